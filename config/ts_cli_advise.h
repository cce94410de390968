/* Options of `touchstone advise`: the job shape to plan, where the node comes from, and whether
 * to check the running job against the plan. */
#ifndef TOUCHSTONE_CONFIG_TS_CLI_ADVISE_H
#define TOUCHSTONE_CONFIG_TS_CLI_ADVISE_H

#include "ts_error.h"

struct ts_advise_args {
    int ranks;   /* --ranks R per node; 0: as the job implies (MPI ranks on this node, SLURM_NTASKS_PER_NODE), else 1 */
    int threads; /* --threads T per rank; 0: as the job implies (--check), else one a core */
    int smt;     /* --smt: a thread on every PU, not one a core */
    int slurm;   /* --slurm: speak Slurm (#SBATCH lines, srun first) */
    int check;   /* --check: judge the running job against the plan */
    int json;    /* --format json */
    const char *topology;  /* --topology FILE.xml (hwloc XML), NULL: this machine */
    const char *synthetic; /* --synthetic "package:2 core:8 pu:2" (hwloc synthetic), NULL: this machine */
    int help;
};

/* Parses argv[2..] of `touchstone advise`. TS_BAD_INPUT with the option and the reason. */
int ts_advise_parse(struct ts_advise_args *a, int argc, char **argv, struct ts_error *err);

#endif
