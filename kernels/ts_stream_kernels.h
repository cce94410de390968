/* STREAM's four kernels (McCalpin's stream.c): Copy c = a, Scale b = s c, Add c = a + b and
 * Triad a = b + s c, each over elements [begin, end) of its arrays on the calling thread, in the
 * shape topo/ts_numa_matrix.h's struct ts_numa_stream takes (init, step, check, ctx), so that
 * the survey's stream section times them where their pages are verified. One table holds what
 * STREAM's report needs of each: its name, the arrays it touches and the bytes it counts per
 * element (16 for Copy and Scale, 24 for Add and Triad: every array read or written once, no
 * write-allocate), so bandwidth is computed from the table in one place.
 *
 * Each kernel runs alone on its own arrays (not in STREAM's chain), so a sweep repeated any
 * number of times leaves the same values: the inputs hold what STREAM's first iteration hands
 * that kernel (a = 2, b = 6, c = 2 or 8), the output what it makes (Copy 2, Scale 6, Add 8,
 * Triad 30), all exact in binary, and the check is STREAM's checkSTREAMresults for one kernel.
 * Pure: no OpenMP, no allocation, no I/O. */
#ifndef TOUCHSTONE_KERNELS_TS_STREAM_KERNELS_H
#define TOUCHSTONE_KERNELS_TS_STREAM_KERNELS_H

#include <stdint.h>

enum ts_stream_id { TS_STREAM_COPY, TS_STREAM_SCALE, TS_STREAM_ADD, TS_STREAM_TRIAD, TS_STREAM_COUNT };

/* STREAM's scalar. */
#define TS_STREAM_SCALAR 3.0

/* STREAM's tolerance of an array's average error, relative to its expected value (double). */
#define TS_STREAM_EPSILON 1e-13

/* A kernel's arrays: its inputs first, its output last (arrays[n_arrays - 1]). */
struct ts_stream_kernel {
    enum ts_stream_id id;
    const char *name;        /* STREAM's: "Copy", "Scale", "Add", "Triad" */
    const char *formula;     /* "c = a" */
    int n_arrays;            /* 2 or 3 */
    double bytes_per_elem;   /* STREAM's count: 16 or 24 */
    const char *byte_model;  /* in words */
    const char *array_names; /* STREAM's names of arrays[0..n_arrays), in order: "a,c" */
    double input[2];         /* the inputs' values as init writes them */
    double expected;         /* what every element of the output holds after any sweep */
};

/* The kernel id, or NULL for an id out of range. */
const struct ts_stream_kernel *ts_stream_kernel(enum ts_stream_id id);

/* ctx is a const struct ts_stream_kernel. init writes every array's elements [begin, end) (their
 * first touch): the inputs their values, the output 0, so an element a sweep missed is seen. */
void ts_stream_init(const void *ctx, double *const *arrays, int64_t begin, int64_t end);

/* One sweep of the kernel over [begin, end). */
void ts_stream_step(const void *ctx, double *const *arrays, int64_t begin, int64_t end);

/* STREAM's check on [begin, end): returns how many elements of any array are off their expected
 * value by more than TS_STREAM_EPSILON relative (checkSTREAMresults' tolerance, applied to each
 * element rather than to the average error, which is stricter); 0 when all hold. */
int64_t ts_stream_check(const void *ctx, double *const *arrays, int64_t begin, int64_t end);

#endif
