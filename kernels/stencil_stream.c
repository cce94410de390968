#include "stencil_stream.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#define VEC __m512d
#define WIDTH 8
#define SET1 _mm512_set1_pd
#define LOAD _mm512_loadu_pd
#define ADD _mm512_add_pd
#define MUL _mm512_mul_pd
#define STREAM _mm512_stream_pd
#elif defined(__AVX__)
#include <immintrin.h>
#define VEC __m256d
#define WIDTH 4
#define SET1 _mm256_set1_pd
#define LOAD _mm256_loadu_pd
#define ADD _mm256_add_pd
#define MUL _mm256_mul_pd
#define STREAM _mm256_stream_pd
#elif defined(__SSE2__)
#include <emmintrin.h>
#define VEC __m128d
#define WIDTH 2
#define SET1 _mm_set1_pd
#define LOAD _mm_loadu_pd
#define ADD _mm_add_pd
#define MUL _mm_mul_pd
#define STREAM _mm_stream_pd
#endif

#ifdef WIDTH
/* The expressions are row2d's and row3d's (stencil_sweep.c): the same additions in the same
 * order, then the two products and their sum (no FMA, as -ffp-contract=off keeps the C). */
static void row2d_streamed(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                           struct ts_stencil_weights w, int64_t len)
{
    (void)plane;
    const VEC center = SET1(w.center), neighbour = SET1(w.neighbour);
    for (int64_t i = 0; i < len; i += WIDTH) {
        VEC sum = ADD(ADD(LOAD(c + i - nx), LOAD(c + i + nx)), ADD(LOAD(c + i - 1), LOAD(c + i + 1)));
        STREAM(o + i, ADD(MUL(center, LOAD(c + i)), MUL(neighbour, sum)));
    }
}

static void row3d_streamed(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                           struct ts_stencil_weights w, int64_t len)
{
    const VEC center = SET1(w.center), neighbour = SET1(w.neighbour);
    for (int64_t i = 0; i < len; i += WIDTH) {
        VEC sum = ADD(ADD(ADD(LOAD(c + i - 1), LOAD(c + i + 1)), ADD(LOAD(c + i - nx), LOAD(c + i + nx))),
                      ADD(LOAD(c + i - plane), LOAD(c + i + plane)));
        STREAM(o + i, ADD(MUL(center, LOAD(c + i)), MUL(neighbour, sum)));
    }
}

ts_stencil_row_fn *ts_stream_row(int dims)
{
    return dims == 3 ? row3d_streamed : row2d_streamed;
}
#else
ts_stencil_row_fn *ts_stream_row(int dims)
{
    (void)dims;
    return 0;
}
#endif
