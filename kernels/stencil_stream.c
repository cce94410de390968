#include "stencil_stream.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#define VEC __m512d
#define WIDTH 8
#define SET1 _mm512_set1_pd
#define LOAD _mm512_loadu_pd
#define STORE _mm512_store_pd
#define ADD _mm512_add_pd
#define MUL _mm512_mul_pd
#define STREAM _mm512_stream_pd
#elif defined(__AVX__)
#include <immintrin.h>
#define VEC __m256d
#define WIDTH 4
#define SET1 _mm256_set1_pd
#define LOAD _mm256_loadu_pd
#define STORE _mm256_store_pd
#define ADD _mm256_add_pd
#define MUL _mm256_mul_pd
#define STREAM _mm256_stream_pd
#elif defined(__SSE2__)
#include <emmintrin.h>
#define VEC __m128d
#define WIDTH 2
#define SET1 _mm_set1_pd
#define LOAD _mm_loadu_pd
#define STORE _mm_store_pd
#define ADD _mm_add_pd
#define MUL _mm_mul_pd
#define STREAM _mm_stream_pd
#endif

#ifdef WIDTH
/* The x-boundary pairs (x = nx - 1, then x = 0 of the next row) among the lanes of the vector
 * at i are set to zero; *pair is the offset of the first pair not yet done, and moves on. The
 * rare vector that holds one (2 in 16 lines for 128-point rows) goes through memory once. */
static inline VEC zero_boundary(VEC v, int64_t i, int64_t nx, int64_t *pair)
{
    _Alignas(64) double lanes[WIDTH];
    STORE(lanes, v);
    int64_t q = *pair;
    for (; q < i + WIDTH; q += nx) {
        if (q >= i)
            lanes[q - i] = 0.0;
        if (q + 1 >= i && q + 1 < i + WIDTH)
            lanes[q + 1 - i] = 0.0;
    }
    /* A pair whose x = 0 falls in the next vector is not done yet. */
    *pair = q - nx + 1 >= i + WIDTH ? q - nx : q;
    return LOAD(lanes);
}

/* The expressions are row2d's and row3d's (stencil_sweep.c): the same additions in the same
 * order, then the two products and their sum (no FMA, as -ffp-contract=off keeps the C). */
static void run2d_streamed(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                           struct ts_stencil_weights w, int64_t len, int64_t x0)
{
    (void)plane;
    const VEC center = SET1(w.center), neighbour = SET1(w.neighbour);
    int64_t pair = x0 == 0 ? -1 : nx - 1 - x0;
    for (int64_t i = 0; i < len; i += WIDTH) {
        VEC sum = ADD(ADD(LOAD(c + i - nx), LOAD(c + i + nx)), ADD(LOAD(c + i - 1), LOAD(c + i + 1)));
        VEC v = ADD(MUL(center, LOAD(c + i)), MUL(neighbour, sum));
        if (pair < i + WIDTH)
            v = zero_boundary(v, i, nx, &pair);
        STREAM(o + i, v);
    }
}

static void run3d_streamed(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                           struct ts_stencil_weights w, int64_t len, int64_t x0)
{
    const VEC center = SET1(w.center), neighbour = SET1(w.neighbour);
    int64_t pair = x0 == 0 ? -1 : nx - 1 - x0;
    for (int64_t i = 0; i < len; i += WIDTH) {
        VEC sum = ADD(ADD(ADD(LOAD(c + i - 1), LOAD(c + i + 1)), ADD(LOAD(c + i - nx), LOAD(c + i + nx))),
                      ADD(LOAD(c + i - plane), LOAD(c + i + plane)));
        VEC v = ADD(MUL(center, LOAD(c + i)), MUL(neighbour, sum));
        if (pair < i + WIDTH)
            v = zero_boundary(v, i, nx, &pair);
        STREAM(o + i, v);
    }
}

ts_stencil_stream_fn *ts_stream_run(int dims)
{
    return dims == 3 ? run3d_streamed : run2d_streamed;
}
#else
ts_stencil_stream_fn *ts_stream_run(int dims)
{
    (void)dims;
    return 0;
}
#endif
