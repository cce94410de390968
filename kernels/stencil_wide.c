/* stencil3d's row in AVX-512 for CPUs that have it (measured on AMD Zen 4 and 5, an Intel Xeon),
 * compiled for it whatever the build's flags and chosen at run time, as block_sum.c's wide sums
 * are.
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
 * A third (docs/performance.md, "Three planes a pass"): the sweep takes the planes three at a
 * time where it can (planes3d_wide): its three outputs at a point load five planes' lines, not
 * three each, as the rows were bound by the lines the L1 takes from the L2 (four per vector of
 * updates with the write-allocate, a copy's two), not by their arithmetic. There only the input
 * planes are prefetched: a prefetchw of three outputs cost more than it saved.
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

/* One vector of updates, o[0..8) from the input at c: ts_stencil_row3d's expression, operation
 * for operation (no FMA: -ffp-contract=off keeps the C's products and sums apart), so the bits are
 * the same. The x-neighbours are shifted out of before, here (c[0..8)) and after; the plane
 * neighbours come from the caller, loaded or from its registers. */
WIDE INLINE void update(double *o, const double *c, int64_t nx, const __m512d *weights, __m512d before, __m512d here,
                        __m512d after, __m512d below, __m512d above)
{
    const __m512d left =
        _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(here), _mm512_castpd_si512(before), 7));
    const __m512d right =
        _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(after), _mm512_castpd_si512(here), 1));
    const __m512d sum = _mm512_add_pd(
        _mm512_add_pd(_mm512_add_pd(left, right), _mm512_add_pd(_mm512_loadu_pd(c - nx), _mm512_loadu_pd(c + nx))),
        _mm512_add_pd(below, above));
    _mm512_storeu_pd(o, _mm512_add_pd(_mm512_mul_pd(weights[0], here), _mm512_mul_pd(weights[1], sum)));
}

/* The vectors at [from, to) (multiples of 8 from the row's start), *prev and *cur the vectors at
 * from - 8 (only its last lane, c[from - 1], is used) and from; prefetch (a constant in each
 * caller) AHEAD doubles ahead. */
WIDE INLINE void vectors(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                         const __m512d *weights, int64_t from, int64_t to, __m512d *prev, __m512d *cur, int prefetch)
{
    __m512d before = *prev, here = *cur;
    for (int64_t i = from; i < to; i += 8) {
        if (prefetch) {
            _mm_prefetch((const char *)(c + i + plane + AHEAD), _MM_HINT_T0);
            __builtin_prefetch(o + i + AHEAD, 1, 3);
        }
        const __m512d after = _mm512_loadu_pd(c + i + 8);
        update(o + i, c + i, nx, weights, before, here, after, _mm512_loadu_pd(c + i - plane),
               _mm512_loadu_pd(c + i + plane));
        before = here;
        here = after;
    }
    *prev = before;
    *cur = here;
}

/* Where the vectors of a row of len points end: the vector at i also loads the one at i + 8,
 * c[i + 8 .. i + 15], so vectors while that stays within what ts_stencil_row3d reads (c[len] at
 * most); the rest, fewer than 15 points, is the portable row's. */
static int64_t vectors_end(int64_t len)
{
    return len >= 15 ? ((len - 15) / 8 + 1) * 8 : 0;
}

WIDE static void row3d_wide(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                            struct ts_stencil_weights w, int64_t len)
{
    const int64_t vec_end = vectors_end(len);
    const int64_t fetch_end = vec_end > AHEAD ? vec_end - AHEAD : 0;
    if (vec_end > 0) {
        const __m512d weights[2] = { _mm512_set1_pd(w.center), _mm512_set1_pd(w.neighbour) };
        __m512d prev = _mm512_set1_pd(c[-1]), cur = _mm512_loadu_pd(c);
        vectors(o, c, nx, plane, weights, 0, fetch_end, &prev, &cur, 1);
        vectors(o, c, nx, plane, weights, fetch_end, vec_end, &prev, &cur, 0);
    }
    ts_stencil_row3d(o + vec_end, c + vec_end, nx, plane, w, len - vec_end);
}

/* The same row in TS_STENCIL_PLANES (3) consecutive planes at once, vector by vector: the planes
 * share their loads (plane 1's input is plane 0's neighbour above and plane 2's below, from the
 * registers), so three vectors of updates load five planes' lines instead of nine, and the lines
 * the L1 takes from the L2 are what bound the rows (docs/performance.md). before[k], here[k] as vectors' prev, cur
 * for plane k. */
WIDE INLINE void plane_vectors(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                               const __m512d *weights, int64_t from, int64_t to, __m512d *before, __m512d *here,
                               int prefetch)
{
    __m512d b0 = before[0], b1 = before[1], b2 = before[2], h0 = here[0], h1 = here[1], h2 = here[2];
    const double *c1 = c + plane, *c2 = c + 2 * plane;
    double *o1 = o + plane, *o2 = o + 2 * plane;
    for (int64_t i = from; i < to; i += 8) {
        if (prefetch) {
            _mm_prefetch((const char *)(c1 + i + AHEAD), _MM_HINT_T0);
            _mm_prefetch((const char *)(c2 + i + AHEAD), _MM_HINT_T0);
            _mm_prefetch((const char *)(c2 + plane + i + AHEAD), _MM_HINT_T0);
        }
        const __m512d a0 = _mm512_loadu_pd(c + i + 8), a1 = _mm512_loadu_pd(c1 + i + 8),
                      a2 = _mm512_loadu_pd(c2 + i + 8);
        update(o + i, c + i, nx, weights, b0, h0, a0, _mm512_loadu_pd(c + i - plane), h1);
        update(o1 + i, c1 + i, nx, weights, b1, h1, a1, h0, h2);
        update(o2 + i, c2 + i, nx, weights, b2, h2, a2, h1, _mm512_loadu_pd(c2 + i + plane));
        b0 = h0;
        b1 = h1;
        b2 = h2;
        h0 = a0;
        h1 = a1;
        h2 = a2;
    }
    before[0] = b0, before[1] = b1, before[2] = b2;
    here[0] = h0, here[1] = h1, here[2] = h2;
}

WIDE static void planes3d_wide(double *restrict o, const double *restrict c, int64_t nx, int64_t plane,
                               struct ts_stencil_weights w, int64_t len)
{
    const int64_t vec_end = vectors_end(len);
    const int64_t fetch_end = vec_end > AHEAD ? vec_end - AHEAD : 0;
    if (vec_end > 0) {
        const __m512d weights[2] = { _mm512_set1_pd(w.center), _mm512_set1_pd(w.neighbour) };
        __m512d before[TS_STENCIL_PLANES], here[TS_STENCIL_PLANES];
        for (int k = 0; k < TS_STENCIL_PLANES; k++) {
            before[k] = _mm512_set1_pd(c[k * plane - 1]);
            here[k] = _mm512_loadu_pd(c + k * plane);
        }
        plane_vectors(o, c, nx, plane, weights, 0, fetch_end, before, here, 1);
        plane_vectors(o, c, nx, plane, weights, fetch_end, vec_end, before, here, 0);
    }
    for (int k = 0; k < TS_STENCIL_PLANES; k++)
        ts_stencil_row3d(o + k * plane + vec_end, c + k * plane + vec_end, nx, plane, w, len - vec_end);
}

ts_stencil_row_fn *const ts_stencil_row3d_wide = row3d_wide;
ts_stencil_row_fn *const ts_stencil_planes3d_wide = planes3d_wide;

/* Every CPU with AVX-512 takes the wide rows: on AMD's Zen 4 and 5 VMs they gave 1.1-1.4x the
 * portable row, on an Intel Xeon VM (AVX-512, AMX) 1.11-1.17x (docs/performance.md). */
int ts_stencil_row3d_wide_available(void)
{
    return __builtin_cpu_supports("avx512f") != 0;
}
#else
ts_stencil_row_fn *const ts_stencil_row3d_wide = 0;
ts_stencil_row_fn *const ts_stencil_planes3d_wide = 0;

int ts_stencil_row3d_wide_available(void)
{
    return 0;
}
#endif

ts_stencil_row_fn *ts_stencil_row3d_for_cpu(void)
{
    return ts_stencil_row3d_wide_available() ? ts_stencil_row3d_wide : ts_stencil_row3d;
}

ts_stencil_row_fn *ts_stencil_planes3d_for_cpu(void)
{
    return ts_stencil_row3d_wide_available() ? ts_stencil_planes3d_wide : 0;
}

const char *ts_stencil_row3d_variant(void)
{
    /* Short: it follows the longest variant there is (the wavefront's) within ts_plan's 160. */
    return ts_stencil_row3d_wide_available() ? "AVX-512 rows" : "portable rows";
}
