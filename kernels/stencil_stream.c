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
/* (prev, cur) -> {prev[7], cur[0..6]}: the vector one element to the left of cur */
#define LEFT(prev, cur) _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(cur), _mm512_castpd_si512(prev), 7))
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
#define LEFT(prev, cur) _mm256_shuffle_pd(_mm256_permute2f128_pd(prev, cur, 0x21), cur, 5)
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
#define LEFT(prev, cur) _mm_shuffle_pd(prev, cur, 1)
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

/* Moves here (the centre vector) on to the one at c and left to the vector one element to its
 * left, taken from the registers rather than loaded (see below). */
static inline void shift_in(const double *c, VEC *here, VEC *left)
{
    VEC next = LOAD(c);
    *left = LEFT(*here, next);
    *here = next;
}

/* The expressions are row2d's and row3d's (stencil_sweep.c): the same additions in the same
 * order, then the two products and their sum (no FMA, as -ffp-contract=off keeps the C).
 * The left neighbours come from the registers (this vector and the last), not from a load:
 * a load of u at i - 1 has the low 12 address bits of the store to u' at i - 1 just issued
 * whenever u and u' are a whole number of 4 KiB apart (4 KiB pages), and it would wait for
 * that streaming store (4K aliasing). */
static void run2d_streamed(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                           struct ts_stencil_weights w, int64_t len, int64_t x0)
{
    (void)plane;
    const VEC center = SET1(w.center), neighbour = SET1(w.neighbour);
    int64_t pair = x0 == 0 ? -1 : nx - 1 - x0;
    VEC here = SET1(c[-1]), left; /* the vector before c: only its last lane, c[-1], is used */
    for (int64_t i = 0; i < len; i += WIDTH) {
        shift_in(c + i, &here, &left);
        VEC sum = ADD(ADD(LOAD(c + i - nx), LOAD(c + i + nx)), ADD(left, LOAD(c + i + 1)));
        VEC v = ADD(MUL(center, here), MUL(neighbour, sum));
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
    VEC here = SET1(c[-1]), left; /* the vector before c: only its last lane, c[-1], is used */
    for (int64_t i = 0; i < len; i += WIDTH) {
        shift_in(c + i, &here, &left);
        VEC sum = ADD(ADD(ADD(left, LOAD(c + i + 1)), ADD(LOAD(c + i - nx), LOAD(c + i + nx))),
                      ADD(LOAD(c + i - plane), LOAD(c + i + plane)));
        VEC v = ADD(MUL(center, here), MUL(neighbour, sum));
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
