/* From a resolved config to what a run needs: the kernel, its problem and plan, the
 * output path, and whether it fits in memory. Shared by `run` and `check`. */
#ifndef TOUCHSTONE_APP_RUN_PLAN_H
#define TOUCHSTONE_APP_RUN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ts_config.h"
#include "ts_error.h"
#include "ts_file_place.h"
#include "ts_kernel.h"
#include "ts_memory.h"

/* Everything a run holds that grows with its config: the arrays, and what the iterations and
 * the threads add to them. The rest (libraries, stacks, HDF5's working memory) is fixed. */
struct ts_run_plan {
    const struct ts_kernel *kernel;
    struct ts_problem problem;
    struct ts_plan plan;
    int n_threads; /* openmp.threads, else what the OpenMP runtime will start */
    int64_t warmup, iterations;
    int with_field;      /* the field goes into the results file or periodic checkpoints */
    size_t array_bytes;  /* per array */
    size_t arrays_bytes; /* all arrays */
    size_t timing_bytes; /* every step's time and every thread's time of every iteration */
    size_t thread_bytes; /* per-thread records, partial sums and counters */
    size_t file_bytes;   /* the results file or a checkpoint assembled in memory and copied out, with
                             the copy of the times it is made from */
    size_t halo_bytes;   /* a stencil's rank: its halo exchange's buffers (ts_run_plan_halos) */
    int halo_faces, halo_depth;
    size_t world_bytes;    /* rank 0 of several: what it holds of the other ranks (ts_run_plan_world) */
    int64_t world_threads; /* the threads of every rank, when world_bytes is counted */
    int world_ranks;
    size_t total_bytes; /* all of the above: what run and check compare against the limits */
};

/* The plan of cfg's run; TS_BAD_INPUT for a kernel that cannot plan it. Reads the OpenMP
 * runtime's default thread count when openmp.threads is 0. */
int ts_run_plan_make(const struct ts_config *cfg, struct ts_run_plan *rp, struct ts_error *err);

/* Narrows rp (made by ts_run_plan_make) to one rank's part of its problem: the local sizes
 * (n, or nx, ny, nz) and the part (kernels/ts_kernel.h), then plans again, so that the arrays,
 * the partition and the memory check are the rank's. TS_BAD_INPUT when the kernel cannot plan
 * the part. */
int ts_run_plan_part(struct ts_run_plan *rp, const struct ts_config *cfg, const int64_t local[3],
                     const struct ts_problem_part *part, struct ts_error *err);

/* The bytes rp's run needs under limit: total_bytes against a limit on memory in use; against
 * one on this process's mappings (RLIMIT_AS, RLIMIT_DATA) also what it maps already and a
 * stack for each thread the OpenMP runtime will start. The one measure run and check use. */
uint64_t ts_run_plan_need(const struct ts_run_plan *rp, const struct ts_memory_limit *limit);

/* Refuses (TS_RESOURCE_ERROR, with the numbers) a plan that needs more memory than any limit
 * that applies to this process (ts_run_plan_need): free memory, cgroup, rlimits, the Slurm
 * allocation; TS_BAD_INPUT for a limit in the environment that is not a number
 * (ts_memory_limits_check). run and check call it on the same plan, so they agree. */
int ts_run_plan_check_memory(const struct ts_run_plan *rp, struct ts_error *err);

/* On rank 0 of a run over ranks (ranks of them, world_threads threads in all): adds to the plan
 * the other ranks' rows it gathers, keeps for the record and writes (app/run_world.c: one row a
 * rank of /mpi/ranks; not their threads' rows nor their times per iteration, which each rank
 * writes itself), so that the memory check refuses before any allocation a rank 0 that could
 * not hold them. */
void ts_run_plan_world(struct ts_run_plan *rp, int ranks, int64_t world_threads);

/* On every rank of a run over ranks: its own step and halo times, kept for its rows of the file
 * while the step times become each step's slowest rank's (app/run_world.c). */
void ts_run_plan_spread(struct ts_run_plan *rp);

/* On a rank of a stencil run over ranks, after ts_run_plan_part: adds to the plan the buffers
 * its halo exchange packs into and receives into, faces of them holding halo_points points in
 * all each way, depth layers deep (dist/ts_dist_halo.c allocates them before the iterations). */
void ts_run_plan_halos(struct ts_run_plan *rp, int faces, int64_t halo_points, int depth);

/* The same for one of host_ranks ranks that share a machine: the limits of the machine or the
 * job on it (free memory, cgroup, Slurm allocation) against host_bytes, what all of them need
 * together; a process's own limits (rlimits) against this rank's plan. */
int ts_run_plan_check_memory_host(const struct ts_run_plan *rp, size_t host_bytes, int host_ranks,
                                  struct ts_error *err);

/* Prints the memory the plan needs and the limits it was checked against. */
void ts_run_plan_print_memory(const struct ts_run_plan *rp, FILE *out);

/* Expands the output.file template: %k kernel, %i init mode, %j Slurm job id (array jobs:
 * "<job>_<task>") or "local", %t local timestamp YYYYmmdd-HHMMSS, %h host name up to its first
 * '.', %p process id, %% a percent sign. */
int ts_output_path(const struct ts_config *cfg, char *buf, size_t len, struct ts_error *err);

/* The names a run writes under (its results file and the checkpoint next to it) and which
 * files there it may replace. An existing file is replaced only with output.overwrite, or by
 * the run that continues it (--restart X.ckpt.h5 for output X.h5). */
struct ts_run_output {
    char file[4096];                /* the results file */
    char checkpoint[4200];          /* its checkpoint: X.h5 -> X.ckpt.h5 */
    char stem[4096], ext[4];        /* file = stem[-N]ext: numbered names go before ".h5" */
    int suffix;                     /* the N of STEM-N.h5; 1: the name as expanded */
    int overwrite;                  /* output.overwrite */
    int default_name;               /* output.file is the default: a taken name is no error */
    char taken[4200];               /* the expanded name, when it was taken at start */
    char lost[4200];                /* a name another file took during the run */
    int stale_removed;              /* temporaries of dead runs removed at start */
    struct ts_file_id restart;      /* the --restart file */
    struct ts_file_id continued[2]; /* the stopped run's output and checkpoint this run continues */
    struct ts_file_id mine[2];      /* what a checkpoint write may replace (ts_output_checkpoint_place) */
};

/* Before the run starts (before allocation and init): expands output.file, refuses a name (or
 * its checkpoint name) that is not a regular file or missing, refuses a taken name given by
 * the user, numbers a taken default name (the first STEM-N.h5 whose name and checkpoint are
 * both free), checks that the directory takes files, and removes temporaries of dead runs on
 * this host (ts_file_remove_stale_temps). TS_BAD_INPUT with the path and what to do (or
 * the status of the errno, ts_file_status, when the directory refuses the probe file). */
int ts_output_prepare(const struct ts_config *cfg, const char *restart_path, struct ts_run_output *out,
                      struct ts_error *err);

/* ts_output_prepare's verdict without its one change (the removal of dead runs' temporaries):
 * what `check` says of the output, the same refusals with the same messages, so that a check
 * that passes is a start that passes. The directory's probe file is created and removed. */
int ts_output_judge(const struct ts_config *cfg, const char *restart_path, struct ts_run_output *out,
                    struct ts_error *err);

/* Prints what ts_output_prepare changed: a numbered name, temporaries removed. */
void ts_output_note(const struct ts_run_output *out, FILE *to);

/* Moves out to the next free numbered name (results and checkpoint); NULL when none is left. */
const char *ts_output_next_free(struct ts_run_output *out);

/* How the results file, and a checkpoint (own: the checkpoint this run wrote last), take
 * their names: replacing only what this run may replace, moving to the next free name when
 * another file took the name during the run. Both keep pointers into out. */
struct ts_place ts_output_results_place(struct ts_run_output *out);
struct ts_place ts_output_checkpoint_place(struct ts_run_output *out, const struct ts_file_id *own);

/* Right before the results file is written: moves on when another file took the name. */
void ts_output_recheck(struct ts_run_output *out);

/* 1 with a warning in warning when another file took the run's name during the run, else 0. */
int ts_output_moved(const struct ts_run_output *out, char *warning, size_t len);

/* The results file as the summary names it, with the name it replaces when it was taken. */
void ts_output_shown(const struct ts_run_output *out, char *buf, size_t len);

/* The checkpoint next to an output file: "X.h5" -> "X.ckpt.h5" (other names get ".ckpt.h5"). */
void ts_checkpoint_path_for(const char *output, char *buf, size_t len);

#endif
