/* stencil3d's row in AVX-512 for AMD CPUs (Zen 4, Zen 5), compiled for it whatever the build's
 * flags and chosen at run time, as block_sum.c's wide sums are.
 *
 * Why: there the portable row (gcc's own 512-bit loop) stayed well short of the copy roofline,
 * not for want of memory bandwidth but because the loop and memory did not overlap: in the L2
 * the loop runs not much faster than memory feeds it, and each vector waited for its line of
 * the plane above, the hardware prefetchers keeping too few lines in flight for a loop whose
 * reorder window holds a fifth of the vectors a copy's does. Two changes
 * (docs/performance.md, "stencil3d against the copy roofline"):
 * - the x-neighbours c[i - 1] and c[i + 1] come from the registers (this vector, the one before
 *   and the one after), not from two loads that each straddle two cache lines;
 * - software prefetch AHEAD doubles ahead of the plane above (the one stream memory feeds) and
 *   of the output (prefetchw: its write-allocate read starts early), within the run.
 * On Intel's AVX-512 Xeon VM a software prefetch of the next plane was slower (bench/README.md,
 * "Tried and dropped") and the portable row was at the roofline already: there, and on every
 * CPU without AVX-512, the portable row stays. */
#include "stencil_wide.h"

#include <stdint.h>

/* Doubles ahead of the vector being computed: 4 KiB, 64 lines, about two memory latencies' worth
 * of one core's share of the bandwidth (docs/performance.md has the distances tried). */
#define AHEAD 512

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

#define WIDE __attribute__((target("avx512f,prfchw")))
#define INLINE static inline __attribute__((always_inline))

/* The vectors at [from, to) (multiples of 8 from the row's start), *prev and *cur the vectors at
 * from - 8 (only its last lane, c[from - 1], is used) and from; prefetch (a constant in each
 * caller) AHEAD doubles ahead. The expression is ts_stencil_row3d's, operation for operation (no
 * FMA: -ffp-contract=off keeps the C's products and sums apart), so the bits are the same. */
WIDE INLINE void vectors(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                         const __m512d *weights, int64_t from, int64_t to, __m512d *prev, __m512d *cur, int prefetch)
{
    const __m512d center = weights[0], neighbour = weights[1];
    __m512d before = *prev, here = *cur;
    for (int64_t i = from; i < to; i += 8) {
        if (prefetch) {
            _mm_prefetch((const char *)(c + i + plane + AHEAD), _MM_HINT_T0);
            __builtin_prefetch(o + i + AHEAD, 1, 3);
        }
        const __m512d after = _mm512_loadu_pd(c + i + 8);
        const __m512d left =
            _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(here), _mm512_castpd_si512(before), 7));
        const __m512d right =
            _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(after), _mm512_castpd_si512(here), 1));
        const __m512d sum =
            _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(left, right),
                                        _mm512_add_pd(_mm512_loadu_pd(c + i - nx), _mm512_loadu_pd(c + i + nx))),
                          _mm512_add_pd(_mm512_loadu_pd(c + i - plane), _mm512_loadu_pd(c + i + plane)));
        _mm512_storeu_pd(o + i, _mm512_add_pd(_mm512_mul_pd(center, here), _mm512_mul_pd(neighbour, sum)));
        before = here;
        here = after;
    }
    *prev = before;
    *cur = here;
}

WIDE static void row3d_wide(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                            struct ts_stencil_weights w, int64_t len)
{
    /* The vector at i also loads the one at i + 8, c[i + 8 .. i + 15]: vectors while that stays
     * within what ts_stencil_row3d reads (c[len] at most); the rest, fewer than 15 points, is its. */
    const int64_t vec_end = len >= 15 ? ((len - 15) / 8 + 1) * 8 : 0;
    const int64_t fetch_end = vec_end > AHEAD ? vec_end - AHEAD : 0;
    if (vec_end > 0) {
        const __m512d weights[2] = { _mm512_set1_pd(w.center), _mm512_set1_pd(w.neighbour) };
        __m512d prev = _mm512_set1_pd(c[-1]), cur = _mm512_loadu_pd(c);
        vectors(o, c, nx, plane, weights, 0, fetch_end, &prev, &cur, 1);
        vectors(o, c, nx, plane, weights, fetch_end, vec_end, &prev, &cur, 0);
    }
    ts_stencil_row3d(o + vec_end, c + vec_end, nx, plane, w, len - vec_end);
}

ts_stencil_row_fn *const ts_stencil_row3d_wide = row3d_wide;

int ts_stencil_row3d_wide_available(void)
{
    return __builtin_cpu_supports("avx512f") != 0;
}

int ts_stencil_row3d_wide_chosen(void)
{
    return ts_stencil_row3d_wide_available() && __builtin_cpu_is("amd");
}
#else
ts_stencil_row_fn *const ts_stencil_row3d_wide = 0;

int ts_stencil_row3d_wide_available(void)
{
    return 0;
}

int ts_stencil_row3d_wide_chosen(void)
{
    return 0;
}
#endif

ts_stencil_row_fn *ts_stencil_row3d_for_cpu(void)
{
    return ts_stencil_row3d_wide_chosen() ? ts_stencil_row3d_wide : ts_stencil_row3d;
}

const char *ts_stencil_row3d_variant(void)
{
    /* Short: it follows the longest variant there is (the wavefront's) within ts_plan's 160. */
    return ts_stencil_row3d_wide_chosen() ? "AVX-512 rows (AMD)" : "portable rows";
}
