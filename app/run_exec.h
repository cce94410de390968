/* The OpenMP part of a run: first-touch init, the timed iterations, the per-node and global
 * combination of partial results. Every loop over data takes its range from one partition. */
#ifndef TOUCHSTONE_APP_RUN_EXEC_H
#define TOUCHSTONE_APP_RUN_EXEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "run_plan.h"
#include "ts_conditions.h"
#include "ts_error.h"
#include "ts_memory.h"
#include "ts_placement.h"
#include "ts_record.h"
#include "ts_topology.h"

struct ts_run_exec;

/* What the run is given: set by its caller before ts_run_exec_prepare and only read here
 * (first_step by the restore from a checkpoint, before ts_run_exec_compute). */
struct ts_run_inputs {
    const struct ts_run_plan *rp;
    const ts_topology *topo;
    int n_threads;
    int serial_init;
    int64_t warmup;
    int64_t iterations;
    int show_progress;     /* progress on stderr (not --quiet): a line in place on a terminal, else plain lines */
    double progress_delay; /* seconds before the first progress line */
    enum ts_mem_policy policy;
    int policy_node;       /* for bind and preferred */
    int audit;             /* page-placement audit after init */
    int audit_at_end;      /* and after the last iteration */
    int64_t sample_stride; /* pages, 0 automatic */
    int thp_always;        /* THP mode "always": huge pages back every anonymous mapping they can */
    int thp_madvise;       /* THP mode "madvise": huge pages only where madvise asks for them */
    int huge_pages;        /* init.huge_pages: ask for them (madvise), or refuse them under "always" */

    /* stopping early and continuing */
    volatile sig_atomic_t *stop_signal; /* a signal number: finish the current iteration and stop */
    int64_t first_step;                 /* where the timed loop starts: a checkpoint's steps_done, or 0 */
    int64_t checkpoint_every;           /* iterations between periodic checkpoints, 0: none */
    int (*checkpoint)(struct ts_run_exec *ex, void *ctx); /* writes a checkpoint of the current state */
    void *checkpoint_ctx;

    /* ranks (app/run_ranks.c), NULL without. The halo exchange of the grid a step reads, by
     * every thread of the team before the step: halo_post starts it (its failure is
     * halo_wait's to tell), halo_wait finishes it, ending in a barrier and returning the same
     * status on every thread (err filled on the master only). With overlap_halo (kernels with
     * step_split) the points that read no halo are computed between the two and the rim
     * after; halo_times is the master's time in the two. agree_stop is called by the master
     * thread after every step with the signal that asked this rank to stop, 0 for none, and
     * whether steps follow (returns the stop every rank agrees on after this step: the largest
     * number any rank got, possibly a step after it came; after the last step its answer is
     * ignored). */
    void (*halo_post)(struct ts_run_exec *ex, int64_t step, void *ctx, struct ts_error *err);
    int (*halo_wait)(struct ts_run_exec *ex, int64_t step, void *ctx, struct ts_error *err);
    int overlap_halo;
    int (*agree_stop)(struct ts_run_exec *ex, int stop, int more, void *ctx);
    void *ranks_ctx;
};

/* What the run owns to compute with: the arrays, their mappings and how they were mapped, the
 * partition, the threads' accumulators. ts_run_exec_prepare sets them up, ts_run_exec_release
 * gives them back. */
struct ts_run_resources {
    ts_partition *part;
    double *arrays[3];
    void *mappings[3];      /* each array's mapping: the array starts array_offset[a] into it */
    size_t array_offset[3]; /* where each array starts in its mapping: 0, or staggered (huge pages) */
    size_t mapped_bytes[3]; /* each mapping's length, whole huge pages when they were asked for */
    unsigned char *slots;   /* n_threads exact accumulators, one per cache-line-padded slot */
    size_t slot_stride;
    size_t cache_line;
    const char *cache_line_source;
    int64_t granule_bytes;    /* partition chunks start on multiples of this in every array */
    enum ts_mem_pages pages;  /* what the arrays asked of transparent huge pages */
    int64_t page_bytes_asked; /* 2 MiB when MADV_HUGEPAGE was applied, else the base page */
    const char *madvise;      /* what was applied, for the record: MADV_HUGEPAGE, MADV_NOHUGEPAGE, none */
    int huge_refused;         /* MADV_HUGEPAGE failed with EINVAL: a kernel without THP */
    int huge_possible;        /* some page of the arrays may be huge: the audit must look */
};

/* Across ranks, on rank 0: what its record takes of the per-thread rows every rank writes into
 * the file itself (app/rank_files.h), from reductions (app/run_world.c): the first rows the
 * summary shows and the sums it takes. O(1) per rank. */
struct ts_run_world_rows {
    int n_threads, n_nodes; /* the world's: the tables' lengths */
    struct ts_thread_rec threads[TS_RECORD_HEAD];
    struct ts_counter_row init[TS_RECORD_HEAD], kernel[TS_RECORD_HEAD];
    struct ts_counter_sums counters;
    int placement_by_ranks; /* every rank audited the same NUMA nodes: each writes its placement rows */
    struct ts_run_audit_sums {
        int64_t pages;
        double rank_local_fraction[TS_RECORD_HEAD];
        int n_ranks_head;
    } audit[2]; /* the init audit, the end audit */
};

/* What the run produces: where its threads ran, what they counted and timed, the partial and
 * combined results, the placement audits. The tables are allocated by ts_run_exec_prepare
 * (sized by the inputs) and freed by ts_run_exec_release; the record borrows them. */
struct ts_run_outputs {
    /* per thread */
    struct ts_thread_rec *threads;          /* n_threads */
    int32_t *init_node;                     /* node each thread ran on while it first-touched */
    struct ts_counter_row *init_counters;   /* over the first touch */
    struct ts_counter_row *kernel_counters; /* over every iteration, warm-up included */
    char counters_source[128];
    struct ts_machine_rec machine;         /* what else the machine did over the same span */
    int have_machine;                      /* /proc could be read */
    struct ts_machine_rec init_machine;    /* the same over the first touch */
    int have_init_machine;                 /* /proc could be read */
    struct ts_init_memory_rec init_memory; /* what the kernel's memory management did then */
    int have_init_memory;                  /* /proc/vmstat could be read */
    double *step_times;                    /* [step], warm-up first */
    double *halo_times;                    /* [step]: of which the halo exchange; 0 without */
    int hook_failed;                       /* the halo exchange failed: the loop stopped, hook_err says why */
    struct ts_error hook_err;
    double *thread_times;      /* [thread][timed iteration], warm-up excluded */
    int thread_times_by_ranks; /* across ranks (ts_run_ranks_world): thread_times stay this rank's
                                * threads' while n_threads becomes the world's; each rank writes its
                                * rows into the file, the record holds none */
    double *thread_partials;   /* n_threads */
    /* Across ranks on rank 0 (ts_run_ranks_world): the per-thread arrays here stay this rank's
     * while n_threads becomes the world's, and the record takes the world's rows from this */
    const struct ts_run_world_rows *world;

    /* per node */
    int n_nodes;
    int32_t *node_ids; /* ascending OS indices of the nodes threads ran on */
    double *node_partials;

    int64_t steps_done;      /* iterations completed, warm-up included */
    int stopped;             /* a signal stopped the loop before the last iteration */
    int checkpoint_failures; /* periodic checkpoints that could not be written */

    struct ts_xsum process_sum; /* this process's exact sum: its nodes' partials merged */
    double global;
    double mapping_started; /* omp_get_wtime() when mapping the arrays began */
    double t_allocation, t_init, t_kernel, t_combine, t_placement;
    double t_result; /* the kernel's result pass after the last iteration, 0 without one */
    double t_verify; /* the kernel's check of this process's part, filled by the caller */

    /* page-placement audits */
    struct ts_placement placement;
    struct ts_placement placement_end;
    int have_placement, have_placement_end;
    int64_t pages_moved;    /* between the two audits (ts_placement_moved), -1 without both */
    int64_t pages_compared; /* of the sampled pages this process's threads own */

    /* What distorts results, read before the first touch (root: TOUCHSTONE_CONDITIONS_ROOT,
     * tests only, else "/"): NUMA balancing on makes the end audit run whatever the config says. */
    struct ts_conditions conditions;
};

struct ts_run_exec {
    struct ts_run_inputs in;
    struct ts_run_resources own;
    struct ts_run_outputs out;
};

/* Maps the arrays untouched, sets their memory policy and huge-page advice, and builds the
 * partition (chunk boundaries on pages, huge pages when the arrays ask for them). */
int ts_run_exec_prepare(struct ts_run_exec *ex, struct ts_error *err);

/* First touch: parallel (each thread its own chunk, the compute loops' static schedule) or
 * serial (the master thread touches every chunk), then the placement audit. Every thread
 * counts its own page faults and switches; around them, what the machine and its memory
 * management did (init_machine, init_memory). */
int ts_run_exec_init(struct ts_run_exec *ex, struct ts_error *err);

/* The iterations from first_step on (stopping early when stop_signal is set), the end audit
 * (also when NUMA balancing is on: then pages_moved counts what moved since the first), then the per-node and global combine of the partial results. */
int ts_run_exec_compute(struct ts_run_exec *ex, struct ts_error *err);

void ts_run_exec_release(struct ts_run_exec *ex);

#endif
