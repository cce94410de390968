/* `touchstone advise`: the binding to ask for, and with --check whether the running job got it. */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_report.h"
#include "binding_check.h"
#include "binding_hosts.h"
#include "ts_binding_plan.h"
#include "ts_binding_verdict.h"
#include "ts_node.h"
#include "ts_topology.h"

/* The node to plan for: this machine, or the one an hwloc XML file or synthetic description
 * gives (its allowed PUs: a cpuset recorded in the XML is planned as the job's). */
static int load_node(const struct ts_advise_args *a, struct ts_node *node, struct ts_error *err)
{
    struct ts_topology_source src = { TS_TOPOLOGY_THIS_MACHINE, NULL };
    if (a->topology)
        src = (struct ts_topology_source){ TS_TOPOLOGY_XML, a->topology };
    else if (a->synthetic)
        src = (struct ts_topology_source){ TS_TOPOLOGY_SYNTHETIC, a->synthetic };
    ts_topology *topo = NULL;
    int status = ts_topology_load(&topo, &src, err);
    if (status != TS_OK) {
        if (src.text)
            ts_error_prefix(err, "advise: ");
        return status;
    }
    status = ts_node_from_topology(topo, node, err);
    ts_topology_destroy(topo);
    return status;
}

/* Ranks on this node: --ranks, else the MPI ranks that share this machine, else what Slurm
 * says a node runs, else 1. */
static int ranks_per_node(const struct ts_advise_args *a, const struct ts_dist *dist, char *source, size_t len)
{
    if (a->ranks > 0) {
        snprintf(source, len, "--ranks");
        return a->ranks;
    }
    if (dist && dist->started && dist->local_size > 0) {
        snprintf(source, len, "the job: %d MPI ranks on this node", dist->local_size);
        return dist->local_size;
    }
    const char *slurm = getenv("SLURM_NTASKS_PER_NODE");
    int n = slurm ? atoi(slurm) : 0; /* "2(x3)" when nodes differ: the first count */
    if (n > 0) {
        snprintf(source, len, "SLURM_NTASKS_PER_NODE=%s", slurm);
        return n;
    }
    snprintf(source, len, "one rank");
    return 1;
}

int ts_advise_cmd(const struct ts_advise_args *a, const struct ts_dist *dist, struct ts_error *err)
{
    struct ts_node node;
    int status = load_node(a, &node, err);
    if (status != TS_OK)
        return status;
    char shape[160];
    struct ts_plan_request req = { .ranks = ranks_per_node(a, dist, shape, sizeof shape),
                                   .threads = a->threads,
                                   .use_smt = a->smt };
    struct ts_observed_thread *obs = NULL;
    int n_obs = 0;
    struct ts_binding_plan plan = { 0 };
    /* The verdict: this process's, or under a launcher every host's, judged on its machine and
     * merged (binding_hosts.h); rank 0 prints them with the plan of its own host. */
    struct ts_binding_hosts *judged = a->check ? calloc(1, sizeof *judged) : NULL;
    if (a->check && !judged)
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "advise: no memory for the verdict");
    if (status == TS_OK && a->check) {
        status = ts_binding_observe(a->threads, &obs, &n_obs, err);
        req.threads = n_obs; /* the team the runtime gives is the job's */
        const int launched = dist && dist->started;
        if (status == TS_OK && launched) {
            struct ts_plan_request each = req;
            each.ranks = a->ranks; /* 0: each host's own rank count */
            status = ts_binding_check_hosts(dist, &node, &each, obs, n_obs, judged, err);
        }
        if (status == TS_OK && launched && dist->rank == 0) {
            n_obs = judged->host_threads;
            if (a->ranks == 0) {
                req.ranks = judged->host_ranks;
                snprintf(shape, sizeof shape, "the job: %d MPI rank%s on this host", judged->host_ranks,
                         judged->host_ranks == 1 ? "" : "s");
            }
        } else if (status == TS_OK && !launched) {
            struct ts_verdict_setting set;
            ts_binding_setting(dist, &set);
            status = ts_binding_judge(&node, &req, &set, obs, n_obs, judged->findings, &judged->n_findings, err);
        }
        size_t used = strlen(shape);
        snprintf(shape + used, sizeof shape - used, ", %d thread%s a rank from %s", req.threads,
                 req.threads == 1 ? "" : "s",
                 a->threads                  ? "--threads"
                 : getenv("OMP_NUM_THREADS") ? "OMP_NUM_THREADS"
                                             : "the runtime");
    }
    if (status == TS_OK)
        status = ts_binding_plan_make(&node, &req, &plan, err);
    const struct ts_finding *findings = judged ? judged->findings : NULL;
    const int n_findings = judged && (!dist || dist->rank == 0) ? judged->n_findings : 0;
    if (status == TS_OK && (!dist || dist->rank == 0)) {
        struct ts_advise_report r = { .node = &node,
                                      .plan = &plan,
                                      .shape_source = shape,
                                      .slurm = a->slurm,
                                      .checked = a->check,
                                      .verdict = n_findings > 0,
                                      .findings = findings,
                                      .n_findings = n_findings,
                                      .observed_threads = n_obs };
        if ((a->json ? ts_advise_print_json(&r, stdout) : ts_advise_print_text(&r, stdout)) != 0)
            status = ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO, "advise: writing the report");
    }
    if (status == TS_OK && n_findings > 0)
        status = TS_VERIFY_FAILED; /* exit 1: the job runs, but not as it could */
    ts_binding_plan_free(&plan);
    ts_node_free(&node);
    free(judged);
    free(obs);
    return status;
}
