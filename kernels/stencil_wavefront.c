/* Temporal blocking: k Jacobi steps in one sweep over a thread's own items (rows in 2D,
 * planes in 3D), so each item comes from memory once per k steps instead of once per step.
 *
 * Level s of the sweep is time step t0 + s, in grid (t0 + s) % 2; two grids suffice because
 * an item's level s overwrites its level s - 2, which only its neighbours' level s - 1 read.
 *
 * Phase A, alone: the trapezoid. Level s covers the thread's items minus s at each side that
 * borders another thread, so it never reads a neighbour's item. A wavefront walks it: at
 * front p, level 1 of item p, level 2 of item p - 1, ..., level k of item p - k + 1; about
 * 2(k + 2) items of the two grids are live at once, which is what must fit in cache.
 * Phase B, in step with the neighbours: level by level, the items the trapezoid left at each
 * side. Level s there needs the neighbour's edge item at level s - 1, and overwrites level
 * s - 2, which the neighbour needed for its own level s - 1: one wait covers both.
 *
 * Every update is the same function of the same inputs as in a plain step, so the results
 * are bitwise those of time_block = 1, for any thread count. */
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>

#include "stencil_common.h"

/* One more than openmp.threads allows; a part's slot is its own cache line, since the
 * neighbours spin on it. */
#define MAX_PARTS 4097

static struct {
    alignas(64) _Atomic int64_t done; /* the last time step this part's items all reached */
} progress[MAX_PARTS];

void ts_stencil_wavefront_reset(int part)
{
    if (part >= 0 && part < MAX_PARTS)
        atomic_store_explicit(&progress[part].done, 0, memory_order_relaxed);
}

static void wait_for(int part, int64_t step)
{
    /* Spins, as OpenMP barriers do; yields when threads outnumber the CPUs and the neighbour
     * may be waiting for this one's CPU. */
    for (unsigned spins = 0; atomic_load_explicit(&progress[part].done, memory_order_acquire) < step; spins++)
        if (spins > 1000)
            sched_yield();
}

static void level(const struct ts_stencil_sweep *s, double *const *arrays, int64_t step, int64_t q0, int64_t q1)
{
    for (int64_t q = q0; q < q1; q++)
        ts_stencil_item(s, arrays[(step - 1) % 2], arrays[step % 2], q, s->row_lo, s->row_hi);
}

void ts_stencil_wavefront(const struct ts_stencil_sweep *s, double *const *arrays, struct ts_range r, int64_t t0,
                          int64_t k)
{
    const int64_t lo = r.begin > 1 ? r.begin : 1;
    const int64_t hi = r.end < s->items - 1 ? r.end : s->items - 1;
    if (lo >= hi)
        return;
    /* A side borders another thread when its next item is not the fixed boundary. */
    const int64_t open_lo = lo > 1, open_hi = hi < s->items - 1;

    /* Phase A: level s covers [lo + s open_lo, hi - s open_hi). */
    for (int64_t p = lo + open_lo; p < hi - open_hi + k - 1; p++)
        for (int64_t lev = 1; lev <= k; lev++) {
            int64_t q = p - (lev - 1);
            if (q >= lo + lev * open_lo && q < hi - lev * open_hi)
                level(s, arrays, t0 + lev, q, q + 1);
        }

    /* Phase B: what phase A left, level by level, after the neighbours' previous level. */
    for (int64_t lev = 1; lev <= k; lev++) {
        if (lev > 1 && open_lo)
            wait_for(r.part - 1, t0 + lev - 1);
        if (lev > 1 && open_hi)
            wait_for(r.part + 1, t0 + lev - 1);
        int64_t a = lo + lev * open_lo, b = hi - lev * open_hi;
        if (a < b) {
            level(s, arrays, t0 + lev, lo, a);
            level(s, arrays, t0 + lev, b, hi);
        } else {
            level(s, arrays, t0 + lev, lo, hi);
        }
        atomic_store_explicit(&progress[r.part].done, t0 + lev, memory_order_release);
    }
}
