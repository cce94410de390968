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

struct ts_run_plan {
    const struct ts_kernel *kernel;
    struct ts_problem problem;
    struct ts_plan plan;
    size_t array_bytes;   /* per array */
    size_t total_bytes;   /* all arrays */
};

int ts_run_plan_make(const struct ts_config *cfg, struct ts_run_plan *rp, struct ts_error *err);

/* Refuses (TS_BAD_INPUT, with the numbers) a plan that needs more memory than any limit
 * that applies to this process: free memory, cgroup, rlimits, the Slurm allocation. */
int ts_run_plan_check_memory(const struct ts_run_plan *rp, struct ts_error *err);

/* Prints the memory the plan needs and the limits it was checked against. */
void ts_run_plan_print_memory(const struct ts_run_plan *rp, FILE *out);

/* Expands the output.file template: %k kernel, %i init mode, %j Slurm job id (array jobs:
 * "<job>_<task>") or "local", %t local timestamp YYYYmmdd-HHMMSS, %% a percent sign. */
int ts_output_path(const struct ts_config *cfg, char *buf, size_t len, struct ts_error *err);

#endif
