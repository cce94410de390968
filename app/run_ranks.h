/* A run over MPI ranks: the problem split into one part per rank (a slice of sum and triad,
 * a block of a stencil's grid), the halo exchange before every stencil iteration, the stop every
 * rank agrees on, the rank partials combined by one reduction (thread -> node -> rank ->
 * global, all exact, so the result is the one-process result to the bit), the verification of
 * every part judged together by reductions, and rank 0's world: every thread of every rank,
 * every rank's times, for the one file and the summary. On one rank (launched or not) every
 * function here is a no-op and the run is the single-node run. */
#ifndef TOUCHSTONE_APP_RUN_RANKS_H
#define TOUCHSTONE_APP_RUN_RANKS_H

#include "run_exec.h"
#include "run_plan.h"
#include "ts_config.h"
#include "ts_decomp.h"
#include "ts_dist.h"
#include "ts_dist_agree.h"
#include "ts_dist_halo.h"
#include "ts_error.h"
#include "ts_record.h"

struct ts_run_ranks {
    const struct ts_dist *dist;
    int spread;  /* more than one rank: each holds a part of the problem */
    int stencil; /* a grid in blocks, else a 1D array in slices */
    int agreed;  /* the last error is every rank's (rank 0 prints it) */
    struct ts_decomp dec;
    struct ts_decomp_block block;
    struct ts_range slice;
    struct ts_problem whole; /* the global problem */
    struct ts_plan whole_plan;
    struct ts_dist_halo *halo;
    struct ts_dist_vote *stop_vote; /* the stop vote still open (app/run_ranks.c agree_stop) */
    double t_reduction;             /* seconds combining the ranks' partials */
    double rank_partial;            /* this rank's partial, rounded, before the ranks are combined */
    int placement_mixed;            /* the ranks audited different NUMA nodes: /placement holds rank 0's threads */
    double started;                 /* omp_get_wtime() when this rank's run began (set by the caller): its total */

    /* Every rank's place in the tables of every rank's rows, filled by ts_run_ranks_world:
     * each rank writes its own rows there (app/rank_files.h), nothing of them is gathered. */
    int64_t first_thread;   /* this rank's first row of the per-thread tables */
    int n_threads;          /* this rank's threads (ex->in.n_threads becomes the world's on rank 0) */
    int64_t first_node;     /* this rank's first row of /results/node_ids and node_partials */
    int placement_by_ranks; /* every rank audited the same NUMA nodes: each writes its placement rows */
    int32_t *thread_rank;   /* its threads' rank, the rows of /placement/thread_rank it writes */
    int64_t timed;          /* timed iterations done: the columns of the per-iteration tables */
    double *own_steps;      /* this rank's step times, then its halo times ([2][steps]), kept
                           * once ex->out.step_times hold each step's slowest rank */

    /* rank 0's world, filled by ts_run_ranks_world */
    struct ts_mpi_rec mpi;
    struct ts_rank_rec *ranks;
    double *elapsed; /* each rank's seconds from its start to the barrier before the gathers */
    char decomposition[64];
    struct ts_run_world_rows world; /* what the record takes of the per-thread rows (ex->out.world) */
};

/* Before anything else: the world rk's run is in, so that the ranks can agree on a status
 * (ts_run_ranks_agree_error) from the first stage on; spread when it has several ranks. */
void ts_run_ranks_attach(struct ts_run_ranks *rk, const struct ts_dist *d);

/* After ts_run_plan_make: on more than one rank, refuses (TS_BAD_INPUT, agreed: every rank
 * reaches it alike) a problem too small for the ranks, with the numbers (a stencil's blocks at
 * least stencil.time_block thick along every axis split: its halos are that deep); then narrows
 * rp to this rank's part (ts_run_plan_part). */
int ts_run_ranks_split(struct ts_run_ranks *rk, const struct ts_dist *d, const struct ts_config *cfg,
                       struct ts_run_plan *rp, struct ts_error *err);

/* Collective, after ts_run_ranks_split: rank 0 adds to its plan what it will hold of the other
 * ranks (ts_run_plan_world), from the threads of every rank; the others' plans are theirs. */
int ts_run_ranks_count_world(const struct ts_run_ranks *rk, struct ts_run_plan *rp, struct ts_error *err);

/* Rank 0's status, on every rank: rank 0 did something alone (the output file's name) and the
 * others must not go on when it failed. Returns status on rank 0 and TS_BAD_INPUT or TS_OK on
 * the others, agreed. */
int ts_run_ranks_follow_root(struct ts_run_ranks *rk, int status, struct ts_error *err);

/* Collective: every rank's status after a step each rank did alone (a stage of the run,
 * reading its part of a checkpoint), agreed: one reduction finds the first failing rank, one
 * broadcast carries its status, host and message. When any failed, rank 0 returns that status
 * with the message, prefixed "rank R of N (host): " (and followed by how many more failed)
 * unless the error is every rank's alike (rk->agreed on the failing rank, or every rank failed
 * with that very message); the others return that status with a placeholder message; the error
 * is marked agreed: rank 0 prints it once, no rank aborts. Returns status unchanged on one rank. */
int ts_run_ranks_agree_error(struct ts_run_ranks *rk, int status, struct ts_error *err);

/* Sets the run's hooks: the halo exchange before every stencil step, the agreed stop. After
 * ts_run_exec_prepare (collective: the Cartesian communicator). */
int ts_run_ranks_hook(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_error *err);

/* After ts_run_exec_compute, on every rank: the ranks' exact sums merged by one reduction
 * (ts_dist_xsum_allreduce: a tree, any order gives the same bits) and rounded by every rank
 * into ex->out.global, the same double on every rank; rk->rank_partial keeps this rank's own. */
int ts_run_ranks_combine(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_error *err);

/* Every rank's verification of its part, judged together into ver on every rank (reductions,
 * nothing gathered): values checked and failures summed, passed only when every part passed
 * and none failed; for the stencils the largest error (NaN as infinite) and the centre point's
 * value from the rank that holds it; expected, tolerance and the method stay this rank's (rank
 * 0's, which checked the combined result, is the one recorded), the method ending "; over the
 * parts of N ranks". */
int ts_run_ranks_verify(struct ts_run_ranks *rk, struct ts_verification *ver, struct ts_error *err);

/* Collective: rank 0's ex becomes the world's (every thread of every rank in rank order, the
 * iteration times of the slowest rank, placement of every thread, the job's times: t_kernel the
 * sum of those iterations, the other phases' the largest of the ranks'), its plan the global
 * problem's, and rk->mpi the /mpi group with each rank's own run-level times; the other ranks
 * send theirs and keep them. The per-iteration tables (each thread's and each rank's times per
 * iteration) are never gathered: every rank learns where its rows go (rk->first_thread, its
 * rank) and keeps them for the write (ts_rank_fill_world_rows), rank 0 gets what the summary
 * takes of them by reductions (each step's slowest rank, rk->mpi.iteration_time), and ex's
 * thread_times stay this rank's threads'. After ex->out.t_verify is set. */
int ts_run_ranks_world(struct ts_run_ranks *rk, struct ts_run_exec *ex, struct ts_run_plan *rp, struct ts_error *err);

/* On rank 0 as it writes, own_total its wall time since rk->started: each rank's total in its
 * row of /mpi/ranks (from its own start, the starts placed against rank 0's at the barrier of
 * ts_run_ranks_world), and returns the job's, the largest. own_total on one rank. */
double ts_run_ranks_total(struct ts_run_ranks *rk, double own_total);

/* The local points of block b along axis (0 x, 1 y, 2 z) its rank answers for: its interior
 * and the physical boundary next to it, never a halo. */
void ts_run_ranks_own(const struct ts_decomp_block *b, int ndims, int axis, int64_t *begin, int64_t *end);

/* Collective: the lines of every rank's own warnings on rank 0. Spread over ranks, one line per
 * distinct warning with the ranks that gave it ("rank 1 (n2): ..." when one did, "8 of 8 ranks
 * (ranks 0-7; host n2): ..." when several did: ts_rank_lines_merge); on one rank, its lines as
 * they are. NULL-terminated, malloc'd, the caller frees it (one block); the others get NULL. */
int ts_run_ranks_gather_lines(struct ts_run_ranks *rk, char lines[][512], int n, char ***all, struct ts_error *err);

void ts_run_ranks_release(struct ts_run_ranks *rk);

#endif
