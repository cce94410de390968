/* Bandwidth kernels by read/write mix (the survey's sections sweep and mixes, issue 26): per
 * element, R read streams and W write streams (W 0 or 1), swept `passes` times over a thread's
 * share so that a share inside L1 still takes long enough to time, with normal or non-temporal
 * (streaming) stores. The shape is topo/ts_numa_matrix.h's struct ts_numa_stream (init, step,
 * ctx), so the NUMA engine times them on placed, verified memory.
 *
 * Arrays: the written one first (arrays[0]), then the read ones, as likwid-bench orders them;
 * the read-only mix has one array. Byte model: 8 B per stream per element per pass, reads plus
 * writes (ts_mix_bytes_per_elem). A normal store first reads the line it writes (the
 * write-allocate, or RFO): memory then moves 8 B more per written element, which the model does
 * not count (likwid-bench, STREAM and MLC's explicit counts do not either); ts_mix_rfo_bytes
 * says how much that is. Non-temporal stores skip it. */
#ifndef TOUCHSTONE_KERNELS_TS_MIX_H
#define TOUCHSTONE_KERNELS_TS_MIX_H

#include <stdint.h>

enum ts_mix_kind {
    TS_MIX_READ,  /* s += x[i]                     1 read, 0 writes */
    TS_MIX_3_1,   /* a[i] = b[i] * c[i] + d[i]     3 reads, 1 write (likwid's triad) */
    TS_MIX_2_1,   /* a[i] = b[i] + s * c[i]        2 reads, 1 write (STREAM's triad, likwid's stream) */
    TS_MIX_1_1,   /* a[i] = s * b[i]               1 read, 1 write (STREAM's scale: copy's traffic) */
    TS_MIX_STORE, /* a[i] = s                      0 reads, 1 write (likwid's store) */
    TS_MIX_COUNT
};

struct ts_mix_info {
    const char *name;    /* "read", "3:1", "2:1", "1:1", "store": reads:writes */
    const char *formula; /* "a = b * c + d" */
    int reads, writes;
};

const struct ts_mix_info *ts_mix_info(enum ts_mix_kind kind);

/* The context of init and step. */
struct ts_mix {
    enum ts_mix_kind kind;
    int nontemporal; /* streaming stores (ts_mix_has_nontemporal); ignored without writes */
    int64_t passes;  /* sweeps of the share per step, >= 1 */
};

/* Arrays the kernel takes (reads + writes; 1 for the read-only mix). */
int ts_mix_n_arrays(enum ts_mix_kind kind);

/* Bytes counted per element of one array per step: 8 (reads + writes) passes. */
double ts_mix_bytes_per_elem(const struct ts_mix *m);

/* The write-allocate reads the model leaves out, per element per step: 8 writes passes with
 * normal stores, 0 with non-temporal ones or without writes. */
double ts_mix_rfo_bytes_per_elem(const struct ts_mix *m);

/* 1 when non-temporal stores are compiled in (x86-64: SSE2 at least; clang's
 * __builtin_nontemporal_store elsewhere); 0: the nontemporal flag stores normally. */
int ts_mix_has_nontemporal(void);

/* ctx is a struct ts_mix. init writes elements [begin, end) of every array (their first touch):
 * the read arrays with small integers (exact sums and products), the written one with -1.
 * step sweeps them passes times; a non-temporal step ends with a store fence. */
void ts_mix_init(const void *ctx, double *const *arrays, int64_t begin, int64_t end);
void ts_mix_step(const void *ctx, double *const *arrays, int64_t begin, int64_t end);

/* The value init gives read array r (0-based among the read arrays) at index i, and the one a
 * step leaves in the written array (NaN for the read-only mix). */
double ts_mix_input(int r, int64_t i);
double ts_mix_expected(enum ts_mix_kind kind, int64_t i);

/* The read-only mix's sum of x[begin, end) in the step's order (its result, kept so the loads
 * are not dropped), for checking. */
double ts_mix_read_sum(const double *x, int64_t begin, int64_t end);

/* Elements of [begin, end) whose written array does not hold ts_mix_expected; 0 for the
 * read-only mix when its sum of a share is the exact one (the inputs are small integers). */
int64_t ts_mix_verify(const struct ts_mix *m, double *const *arrays, int64_t begin, int64_t end);

#endif
