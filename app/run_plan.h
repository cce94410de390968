/* From a resolved config to what a run needs: the kernel, its problem and plan, the
 * output path, and whether it fits in memory. Shared by `run` and `check`. */
#ifndef TS_RUN_PLAN_H
#define TS_RUN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ts_config.h"
#include "ts_error.h"
#include "ts_kernel.h"

/* Everything a run holds that grows with its config: the arrays, and what the iterations and
 * the threads add to them. The rest (libraries, stacks, HDF5's working memory) is fixed. */
struct ts_run_plan {
    const struct ts_kernel *kernel;
    struct ts_problem problem;
    struct ts_plan plan;
    int n_threads;        /* openmp.threads, else what the OpenMP runtime will start */
    int64_t warmup, iterations;
    int with_field;       /* the field goes into the results file or periodic checkpoints */
    size_t array_bytes;   /* per array */
    size_t arrays_bytes;  /* all arrays */
    size_t timing_bytes;  /* every step's time and every thread's time of every iteration */
    size_t thread_bytes;  /* per-thread records, partial sums and counters */
    size_t file_bytes;    /* the results file or a checkpoint assembled in memory and copied out, with
                             the copy of the times it is made from */
    size_t total_bytes;   /* all of the above: what run and check compare against the limits */
};

/* The plan of cfg's run; TS_BAD_INPUT for a kernel that cannot plan it. Reads the OpenMP
 * runtime's default thread count when openmp.threads is 0. */
int ts_run_plan_make(const struct ts_config *cfg, struct ts_run_plan *rp, struct ts_error *err);

/* Refuses (TS_BAD_INPUT, with the numbers) a plan that needs more memory than any limit
 * that applies to this process: free memory, cgroup, rlimits, the Slurm allocation. run and
 * check call it on the same plan, so they agree. */
int ts_run_plan_check_memory(const struct ts_run_plan *rp, struct ts_error *err);

/* Prints the memory the plan needs and the limits it was checked against. */
void ts_run_plan_print_memory(const struct ts_run_plan *rp, FILE *out);

/* Expands the output.file template: %k kernel, %i init mode, %j Slurm job id (array jobs:
 * "<job>_<task>") or "local", %t local timestamp YYYYmmdd-HHMMSS, %% a percent sign. */
int ts_output_path(const struct ts_config *cfg, char *buf, size_t len, struct ts_error *err);

#endif
