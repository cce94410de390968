/* What `touchstone advise` prints: the node, the plan (the lines to use and where each thread
 * lands), and with --check the verdict and its findings; as text or one JSON document. */
#ifndef TOUCHSTONE_APP_ADVISE_REPORT_H
#define TOUCHSTONE_APP_ADVISE_REPORT_H

#include <stdio.h>

#include "ts_binding_plan.h"
#include "ts_binding_verdict.h"
#include "ts_node.h"

struct ts_advise_report {
    const struct ts_node *node;
    const struct ts_binding_plan *plan;
    const char *shape_source; /* where the ranks and threads came from ("--ranks", "the job: ...") */
    int slurm;                /* #SBATCH lines, srun first */
    int checked;              /* --check: the verdict below applies */
    int verdict;              /* 0 as planned, 1 works but loses */
    const struct ts_finding *findings;
    int n_findings;
    int observed_threads;
};

/* 0, or -1 when out could not be written. */
int ts_advise_print_text(const struct ts_advise_report *r, FILE *out);
int ts_advise_print_json(const struct ts_advise_report *r, FILE *out);

#endif
