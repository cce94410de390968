/* The kernel interface: the driver knows a kernel only through this table entry
 * (BabelStream-style). Every function works on a range of partition items, so
 * init and compute share one partition; none of them prints or talks to the OS,
 * and only init and verify take (small, temporary) scratch tables. */
#ifndef TOUCHSTONE_KERNELS_TS_KERNEL_H
#define TOUCHSTONE_KERNELS_TS_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "ts_partition.h"
#include "ts_xsum.h"

enum ts_kernel_id { TS_KERNEL_SUM, TS_KERNEL_TRIAD, TS_KERNEL_STENCIL2D, TS_KERNEL_STENCIL3D, TS_KERNEL_COUNT };

enum ts_sum_mode {
    TS_SUM_REPRODUCIBLE, /* fixed 512-element blocks deposited exactly: same bits for any thread count */
    TS_SUM_FAST          /* one fixed-order lane sum per thread chunk: depends on the thread count */
};

/* One rank's part of a problem spread over ranks. All zero (whole[0] == 0) for the whole
 * problem in one process. With a part, the sizes of ts_problem (n; nx, ny, nz) are the rank's
 * local arrays: for sum and triad its slice, for the stencils its block with halo layers (as
 * many as time_block's steps) or one boundary layer on each side (kernels/ts_decomp.h), and:
 * - init writes the global problem's values at the local points (global index = origin + local
 *   index along each axis), so a halo starts as the neighbour's points;
 * - result deposits only the points in [own_begin, own_end);
 * - verify checks the local points in [own_begin, own_end) against the global problem's answer
 *   (checked counts them), and the combined result only when checks_result is set: one part of
 *   all checks it. A stencil part that does not hold the global centre point reports
 *   observed = NaN (expected is the centre's value whatever the part); a sum or triad part that
 *   does not check the result reports expected = NaN and observed = the result, unjudged.
 * Sum and triad sum 512-element blocks counted from local index 0 (TS_SUM_BLOCK): their bits
 * equal the whole run's only when origin[0] is a multiple of it, as ts_decomp_slice's slices
 * with the thread partition's granule are (not checked here). A slice may be empty (n = 0).
 * The stencils step a part as a grid of its own, every variant alike (the caller exchanges its
 * halos before every iteration): an iteration's time_block steps over the whole local interior
 * leave the owned points right when the halos are that deep, which plan checks; the points of
 * a halo are left with values nothing reads before the next exchange. plan also refuses a part
 * that does not lie in its global problem. */
struct ts_problem_part {
    int64_t whole[3];     /* the global problem: n in [0] (sum, triad); nx, ny, nz (stencils); 0: no part */
    int64_t origin[3];    /* global index of local point 0 along x, y, z ([0] alone for sum, triad) */
    int64_t own_begin[3]; /* local points this part answers for, [own_begin, own_end) per axis */
    int64_t own_end[3];   /*   ([1] and [2] are [0, 1) for sum and triad, [2] for stencil2d) */
    int checks_result;    /* verify checks the combined result too */
};

/* What to compute; filled by the driver from the resolved config. */
struct ts_problem {
    enum ts_kernel_id kernel;
    int64_t n;          /* sum, triad: elements per array */
    int64_t nx, ny, nz; /* stencil grid points per dimension, boundary included (nz = 1 in 2D) */
    double alpha;       /* stencil diffusion number: u += alpha * (discrete Laplacian of u) */
    double scalar;      /* triad: a = b + scalar * c */
    uint64_t seed;      /* sum, triad: seed of the counter-based values */
    enum ts_sum_mode sum_mode;
    int nontemporal;             /* triad, stencils: streaming stores (no write-allocate, no cache pollution) */
    int64_t time_block;          /* stencils: time steps per iteration, one sweep (0 or 1: plain steps) */
    int64_t block_y;             /* stencil3d: rows per spatial block, 0 picks them (ts_plan.block_y) */
    struct ts_problem_part part; /* this rank's part under MPI; zero for the whole problem */
};

/* Sizes derived from a problem, for allocation, partitioning and metrics. */
struct ts_plan {
    int n_arrays; /* arrays of array_elems doubles each */
    int64_t array_elems;
    int64_t items;            /* partition items: elements (1D) or grid rows (2D) or planes (3D) */
    int64_t elems_per_item;   /* consecutive doubles of each array that one item covers */
    int64_t granule_multiple; /* partition granules must be a multiple of this many items */
    int64_t units_per_step;   /* elements or lattice updates per iteration */
    int64_t block_y;          /* stencil3d: rows per spatial block actually used, 0 when not blocked */
    char variant[160];        /* the kernel variant the problem selects, in words, for the record */
};

struct ts_verification {
    double expected;
    double observed;
    double error;     /* absolute error of observed against expected */
    double tolerance; /* passed when error <= tolerance */
    int passed;
    int64_t checked;  /* values compared (1 for a sum, every element or grid point otherwise) */
    int64_t failures; /* values outside the tolerance */
    char method[320]; /* what was compared and where the tolerance comes from */
};

struct ts_kernel {
    enum ts_kernel_id id;
    const char *name;
    const char *unit;      /* "element" or "lattice update" */
    double bytes_per_unit; /* byte model for GB/s */
    double flops_per_unit;
    const char *byte_model;   /* stated next to every bandwidth figure */
    double nt_bytes_per_unit; /* the same with streaming stores (problem.nontemporal); 0: no such variant */
    const char *nt_byte_model;
    const char *result_name;

    /* Fills plan; returns 0, or non-zero with a reason in why when the sizes cannot work. */
    int (*plan)(const struct ts_problem *pb, struct ts_plan *plan, char *why, size_t why_len);

    /* First touch: writes the initial values of every array over items. */
    void (*init)(const struct ts_problem *pb, double *const *arrays, struct ts_range items);

    /* One timed iteration over items (time_block time steps for the stencils). step counts
     * iterations from 0 (the warm-up). Kernels whose
     * iteration is itself a reduction deposit into partial; others ignore it. */
    void (*step)(const struct ts_problem *pb, double *const *arrays, struct ts_range items, int64_t step,
                 struct ts_xsum *partial);

    /* Stencils (NULL for the others), for a rank that overlaps its halo exchange with the
     * step: step over items in two halves, rim = 0 the points that read no halo layer (the
     * rank's block without the layer next to each face that has a halo; the physical boundary
     * is none), which may run while the exchange fills the halos, rim = 1 the others after it.
     * Together they write exactly what step writes, each point by the same expression and with
     * the same stores, rim = 0 by step's own sweep (blocks, runs) cut to its points. For
     * time_block = 1 (halos one layer deep). */
    void (*step_split)(const struct ts_problem *pb, double *const *arrays, struct ts_range items, int64_t step,
                       int rim);

    /* The run's result over items after `steps` iterations, deposited into partial;
     * NULL when the last step's partial is the result. */
    void (*result)(const struct ts_problem *pb, double *const *arrays, struct ts_range items, int64_t steps,
                   struct ts_xsum *partial);

    /* Compares the arrays and the combined result with the analytic answer.
     * Runs its own OpenMP loops (verification is not timed and not partitioned). */
    void (*verify)(const struct ts_problem *pb, double *const *arrays, int64_t steps, double result,
                   struct ts_verification *out);
};

const struct ts_kernel *ts_kernel_get(enum ts_kernel_id id);
/* NULL when no kernel has that name. */
const struct ts_kernel *ts_kernel_find(const char *name);

/* The byte model of pb's variant: bytes per unit, and the words stated next to GB/s. */
double ts_kernel_bytes_per_unit(const struct ts_kernel *k, const struct ts_problem *pb, const char **model);

/* The grid holding the field after `steps` iterations of a stencil (NULL for other
 * kernels; an iteration is time_block time steps); dims receives (nz, ny, nx), slowest first. */
const double *ts_kernel_field(const struct ts_problem *pb, double *const *arrays, int64_t steps, int64_t dims[3]);

/* Number of elements per exact-sum block of the 1D kernels: partition granules of sum and
 * triad are multiples of it, which keeps their results independent of the thread count. */
#define TS_SUM_BLOCK 512

#endif
