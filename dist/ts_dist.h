/* The ranks: whether an MPI launcher (mpirun, srun --mpi=pmix) started this process, MPI
 * started only then, and the facts of the world each rank knows. Without a launcher MPI is
 * never initialised and touchstone is the single-node program it always was. */
#ifndef TOUCHSTONE_DIST_TS_DIST_H
#define TOUCHSTONE_DIST_TS_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"

struct ts_dist {
    int started;         /* MPI_Init_thread ran: ts_dist_finish or ts_dist_abort must end it */
    char launcher[64];   /* how the launcher was recognised ("OMPI_COMM_WORLD_SIZE=4"); "" when not launched */
    int rank, size;      /* in MPI_COMM_WORLD; 0 and 1 when not launched */
    int local_rank;      /* among the ranks that share this node's memory (MPI_COMM_TYPE_SHARED) */
    int local_size;
    int thread_level;    /* what MPI_Init_thread provided (MPI_THREAD_FUNNELED or more) */
    const char *thread_level_name; /* its name, "MPI_THREAD_MULTIPLE"; "" when not started */
    char host[256];      /* SLURMD_NODENAME in a Slurm job step, else gethostname */
    char boot_id[40];    /* /proc/sys/kernel/random/boot_id: two "hosts" with one kernel share it; "" if unknown */
    char library[256];   /* MPI_Get_library_version, its first line */
};

/* The environment variable that shows a launcher started this process (OMPI_COMM_WORLD_SIZE of
 * Open MPI's mpirun, PMIX_RANK of PMIx and srun --mpi=pmix, PMI_RANK or PMI_SIZE of PMI), as
 * "NAME=value" in buf; returns 1 when there is one, 0 when touchstone runs on its own. */
int ts_dist_launched(char *buf, size_t len);

/* The first line of MPI_Get_library_version (the MPI library this binary runs with, "Open MPI
 * v4.1.4, ...") into buf: what a run under ranks records and `touchstone --version` prints. The
 * MPI standard lets it be called before MPI_Init and after MPI_Finalize, so it starts nothing. */
void ts_dist_library_version(char *buf, size_t len);

/* Starts MPI when a launcher started this process (MPI_Init_thread, MPI_THREAD_FUNNELED: only
 * the master thread calls MPI) and fills d: rank, size, local rank, host, boot id, library.
 * Not launched: fills d for one rank and touches no MPI. Call after the binding re-execution
 * (app/binding.c), never before. TS_RESOURCE_ERROR when MPI cannot start or provides less than
 * MPI_THREAD_FUNNELED; TS_BAD_INPUT when the launcher announced more ranks than MPI started
 * (a launcher of another MPI library starts only singletons). d->started says whether MPI must
 * be ended, whatever the status. */
int ts_dist_start(struct ts_dist *d, struct ts_error *err);

/* Collective: rank 0 gets in all (size * bytes, in rank order) every rank's `bytes` bytes at
 * mine; all is ignored on the other ranks. One MPI item of `bytes` a rank: the whole may pass
 * 2 GiB (bytes itself at most INT_MAX). Not started: a copy of mine. TS_INTERNAL_ERROR when
 * MPI fails. */
int ts_dist_gather(const struct ts_dist *d, const void *mine, size_t bytes, void *all, struct ts_error *err);

/* Collective: rank 0's `bytes` bytes at buf copied to buf on every rank. */
int ts_dist_bcast(const struct ts_dist *d, void *buf, size_t bytes, struct ts_error *err);

/* The same from rank root. */
int ts_dist_bcast_from(const struct ts_dist *d, int root, void *buf, size_t bytes, struct ts_error *err);

/* Collective: the largest of every rank's value in *largest (a flag some rank raised, the
 * worst status). Not started: value. */
int ts_dist_max(const struct ts_dist *d, int value, int *largest, struct ts_error *err);

/* Collective: the smallest and largest of every rank's seconds (a time span across ranks). */
int ts_dist_min_max(const struct ts_dist *d, double value, double *smallest, double *largest, struct ts_error *err);

/* Collective: sums[i] the sum over every rank of its values[i], i < n, as 64-bit integers (counts
 * across ranks; a flag summed counts the ranks that raised it). values and sums may be the
 * same array. Not started: the values. TS_INTERNAL_ERROR when MPI fails. */
int ts_dist_sum_i64(const struct ts_dist *d, const int64_t *values, int64_t *sums, int n, struct ts_error *err);

/* Collective: the same as ts_dist_sum_i64 for unsigned values, summed modulo 2^64 (C's
 * unsigned addition, which MPI_SUM on MPI_UINT64_T is): digests whose parts add up. */
int ts_dist_sum_u64(const struct ts_dist *d, const uint64_t *values, uint64_t *sums, int n, struct ts_error *err);

/* Collective: largest[i] the largest of every rank's values[i], i < n (values and largest may be
 * the same array). MPI leaves a NaN's order undefined: give none (map it to what it means, as
 * INFINITY for an error). Not started: the values. */
int ts_dist_max_double(const struct ts_dist *d, const double *values, double *largest, size_t n,
                       struct ts_error *err);

/* Collective: sums[i] the sum over every rank of its values[i], i < n (values and sums may be
 * the same array); the order of the additions is MPI's. Not started: the values. */
int ts_dist_sum_double(const struct ts_dist *d, const double *values, double *sums, int n, struct ts_error *err);

/* Collective: where this rank's rows go in a table of every rank's rows in rank order, without
 * anyone gathering them: *first the rows of the ranks before it (MPI_Exscan), *total every
 * rank's (a reduction), both O(log ranks). Not started: 0 and rows. TS_INTERNAL_ERROR when MPI
 * fails. */
int ts_dist_rows_before(const struct ts_dist *d, int64_t rows, int64_t *first, int64_t *total, struct ts_error *err);

/* Collective: on rank 0, head (want items of item bytes) gets the items 0 .. want - 1 of the
 * table of every rank's items in rank order, where this rank's n items at mine are rows first ..
 * first + n (ts_dist_rows_before); an item no rank holds is zero. One MPI_Reduce with a user
 * operation: O(want) bytes on each rank, O(log ranks), nothing per rank at rank 0 (what a summary
 * shows of a table the ranks write themselves). want x item at most 8 KiB (TS_INTERNAL_ERROR
 * beyond). Not started: the items of mine that fall in the head. */
int ts_dist_head(const struct ts_dist *d, const void *mine, size_t item, int64_t first, int64_t n, int want, void *head,
                 struct ts_error *err);

/* Collective: the value of the lowest rank that has one (has != 0) in *first, the same bits on
 * every rank, and that rank in *from; when no rank has one, *first is this rank's value and
 * *from is -1. For what exactly one rank knows (the one that holds a given point). Not started:
 * value, and rank 0 when has. */
int ts_dist_first_double(const struct ts_dist *d, int has, double value, double *first, int *from,
                         struct ts_error *err);

/* Collective: the sum of every rank's value over the ranks that share this rank's memory
 * (MPI_COMM_TYPE_SHARED: one machine, whatever its node names), and how many they are. Not
 * started: value and 1. */
int ts_dist_host_sum(const struct ts_dist *d, double value, double *sum, int *ranks, struct ts_error *err);

/* The end of a normal path: MPI_Finalize when MPI was started. Returns TS_OK, or
 * TS_INTERNAL_ERROR with the reason in err when MPI_Finalize fails. */
int ts_dist_finish(struct ts_dist *d, struct ts_error *err);

/* The end after an error on this rank alone while others may wait for it in a collective:
 * MPI_Abort with this exit status, which ends every rank of the job. Does not return when MPI
 * was started; returns at once when it was not. */
void ts_dist_abort(const struct ts_dist *d, int exit_status);

#endif
