/* A Slurm step of several tasks that started no MPI job: `srun -n 2 touchstone run` where
 * Slurm's MpiDefault is none (or another MPI's PMI) starts each task as a process of its own,
 * each running the whole problem alone, with nothing to say so. main warns through this, once,
 * on the step's task 0. */
#ifndef TOUCHSTONE_APP_SLURM_STEP_H
#define TOUCHSTONE_APP_SLURM_STEP_H

#include <stddef.h>

#include "ts_dist.h"

/* 1 with the warning's text in buf when this process is task 0 (SLURM_PROCID) of an srun step
 * (SLURM_STEP_ID set: not the batch script) of more tasks (SLURM_STEP_NUM_TASKS, else
 * SLURM_NTASKS) than d's MPI world holds: MPI not started, or a world that leaves tasks out.
 * 0 otherwise, also on the step's other tasks. */
int ts_slurm_step_unjoined(const struct ts_dist *d, char *buf, size_t len);

#endif
