#include "advise_report.h"

#include <jansson.h>
#include <string.h>

static void node_line(const struct ts_node *n, const struct ts_binding_plan *p, FILE *out)
{
    fprintf(out, "node       %d package%s, %d NUMA domain%s, %d core%s, %d PU%s (SMT %d)", n->n_packages,
            n->n_packages == 1 ? "" : "s", n->n_numa > 0 ? n->n_numa : 1, n->n_numa > 1 ? "s" : "", n->n_cores,
            n->n_cores == 1 ? "" : "s", n->n_pus, n->n_pus == 1 ? "" : "s", n->smt);
    if (n->n_numa_all > n->n_numa)
        fprintf(out, " and %d NUMA node%s of memory alone", n->n_numa_all - n->n_numa,
                n->n_numa_all - n->n_numa == 1 ? "" : "s");
    if (p->usable_cores < n->n_cores)
        fprintf(out, "; the job may use %d core%s (%d PU%s)", p->usable_cores, p->usable_cores == 1 ? "" : "s",
                p->usable_pus, p->usable_pus == 1 ? "" : "s");
    fprintf(out, " [%s]\n", n->source);
}

static void thread_table(const struct ts_binding_plan *p, FILE *out)
{
    fprintf(out, "rank  cpus                  numa   threads: thread core (its first CPU)\n");
    for (int r = 0; r < p->ranks; r++) {
        const struct ts_plan_rank *pr = &p->rank[r];
        char numa[32];
        if (pr->numa_first < 0)
            snprintf(numa, sizeof numa, "-");
        else if (pr->numa_first == pr->numa_last)
            snprintf(numa, sizeof numa, "%d", pr->numa_first);
        else
            snprintf(numa, sizeof numa, "%d-%d", pr->numa_first, pr->numa_last);
        fprintf(out, "%4d  %-20s  %-5s ", r, pr->cpus, numa);
        for (int t = 0; t < p->threads; t++) {
            const struct ts_plan_thread *th = &p->thread[(size_t)r * (size_t)p->threads + (size_t)t];
            fprintf(out, " t%d c%d (%d)%s", th->thread, th->core, th->pu, t + 1 < p->threads ? "," : "");
        }
        fputc('\n', out);
    }
}

int ts_advise_print_text(const struct ts_advise_report *r, FILE *out)
{
    const struct ts_binding_plan *p = r->plan;
    node_line(r->node, p, out);
    fprintf(out, "job        %d rank%s x %d thread%s (%s)\n", p->ranks, p->ranks == 1 ? "" : "s", p->threads,
            p->threads == 1 ? "" : "s", r->shape_source);
    fprintf(out, "layout     %s\n", p->reason);
    if (p->caution[0])
        fprintf(out, "caution    %s\n", p->caution);
    fputc('\n', out);
    if (r->slurm) {
        int cpus = p->cores_per_rank * (p->ranks > 0 && p->rank[0].n_cores ? p->rank[0].n_pus / p->rank[0].n_cores : 1);
        fprintf(out, "  #SBATCH --ntasks-per-node=%d\n  #SBATCH --cpus-per-task=%d\n", p->ranks, cpus);
        fprintf(out, "  %s\n  %s touchstone run CONFIG\n", p->env_line, p->srun_line);
    } else {
        fprintf(out, "  %s\n  %s touchstone run CONFIG\n  %s touchstone run CONFIG\n", p->env_line, p->srun_line,
                p->mpirun_line);
    }
    fputc('\n', out);
    thread_table(p, out);
    if (r->checked) {
        fprintf(out, "\nverdict    %d: %s (%d thread%s observed)\n", r->verdict,
                r->verdict == 0 ? "as planned" : "works, but loses", r->observed_threads,
                r->observed_threads == 1 ? "" : "s");
        for (int i = 0; i < r->n_findings; i++)
            fprintf(out, "  %s: %s\n", ts_finding_kind_name(r->findings[i].kind), r->findings[i].text);
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

static json_t *ranks_json(const struct ts_binding_plan *p)
{
    json_t *ranks = json_array();
    for (int r = 0; ranks && r < p->ranks; r++) {
        const struct ts_plan_rank *pr = &p->rank[r];
        json_t *threads = json_array();
        for (int t = 0; threads && t < p->threads; t++) {
            const struct ts_plan_thread *th = &p->thread[(size_t)r * (size_t)p->threads + (size_t)t];
            json_array_append_new(threads, json_pack("{s:i, s:i, s:i, s:i}", "thread", th->thread, "core", th->core,
                                                     "cpu", th->pu, "numa", th->numa));
        }
        json_array_append_new(ranks, json_pack("{s:i, s:s, s:i, s:i, s:i, s:i, s:o*}", "rank", r, "cpus", pr->cpus,
                                               "cores", pr->n_cores, "pus", pr->n_pus, "numa_first", pr->numa_first,
                                               "numa_last", pr->numa_last, "threads", threads));
    }
    return ranks;
}

int ts_advise_print_json(const struct ts_advise_report *r, FILE *out)
{
    const struct ts_binding_plan *p = r->plan;
    const struct ts_node *n = r->node;
    json_t *findings = json_array();
    for (int i = 0; findings && i < r->n_findings; i++)
        json_array_append_new(findings, json_pack("{s:s, s:s}", "kind", ts_finding_kind_name(r->findings[i].kind),
                                                  "text", r->findings[i].text));
    json_t *o = json_pack("{s:{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}, s:{s:i, s:i, s:s}, s:s, s:s, s:{s:i, s:s, "
                          "s:s}, s:s, s:s, s:o*}",
                          "node", "source", n->source, "packages", n->n_packages, "numa_domains", n->n_numa,
                          "numa_nodes", n->n_numa_all, "cores", n->n_cores, "pus", n->n_pus, "smt", n->smt,
                          "usable_cores", p->usable_cores, "usable_pus", p->usable_pus, "job", "ranks", p->ranks,
                          "threads", p->threads, "from", r->shape_source, "layout", p->reason, "caution", p->caution,
                          "openmp", "OMP_NUM_THREADS", p->threads, "OMP_PLACES", p->omp_places, "OMP_PROC_BIND",
                          p->omp_proc_bind, "srun", p->srun_line, "mpirun", p->mpirun_line, "ranks", ranks_json(p));
    if (o && r->checked) {
        json_object_set_new(o, "verdict", json_integer(r->verdict));
        json_object_set_new(o, "observed_threads", json_integer(r->observed_threads));
        json_object_set(o, "findings", findings);
    }
    json_decref(findings);
    int st = o && json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? 0 : -1;
    json_decref(o);
    if (st == 0)
        fputc('\n', out);
    return st == 0 && fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
