#include "slurm_step.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* A count as Slurm writes it (digits only); -1 when unset or anything else. */
static long count_of(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    return *end || errno || n < 0 || n > INT_MAX ? -1 : n;
}

int ts_slurm_step_unjoined(const struct ts_dist *d, char *buf, size_t len)
{
    /* Only srun's steps have SLURM_STEP_ID: a batch script sees the job's SLURM_NTASKS and
     * SLURM_PROCID=0 too (Slurm 22.05), though it starts touchstone once. */
    const char *step = getenv("SLURM_STEP_ID"), *job = getenv("SLURM_JOB_ID");
    long tasks = count_of("SLURM_STEP_NUM_TASKS");
    if (tasks < 0)
        tasks = count_of("SLURM_NTASKS");
    const long task = count_of("SLURM_PROCID");
    const int world = d->started ? d->size : 1;
    if (!step || tasks <= 1 || task != 0 || world >= tasks)
        return 0;
    char which[96];
    snprintf(which, sizeof which, " %.40s.%.40s", job ? job : "?", step);
    if (d->started)
        snprintf(buf, len,
                 "this is task 0 of %ld of Slurm step%s, but MPI started a world of %d rank%s (%s): the other tasks "
                 "are jobs of their own, each running the whole problem alone on the same cores; launch one MPI job "
                 "of every task: srun --mpi=pmix with the Open MPI touchstone is built with (srun --mpi=list shows "
                 "what this Slurm offers), or mpirun inside the allocation",
                 tasks, which, world, world == 1 ? "" : "s", d->launcher);
    else
        snprintf(buf, len,
                 "this is task 0 of %ld of Slurm step%s, but no MPI launch joined the tasks (srun without "
                 "--mpi=pmix where Slurm's MpiDefault is none): each of the %ld tasks runs the whole problem alone, "
                 "all of them on the same node's cores, and each reports on itself; launch one MPI job: srun "
                 "--mpi=pmix ... touchstone run CONFIG (touchstone advise --ranks N --slurm prints the whole line), "
                 "or mpirun inside the allocation; or one task: srun -n 1",
                 tasks, which, tasks);
    return 1;
}
