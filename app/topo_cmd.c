/* `touchstone topo`: the machine, and where the OpenMP threads run on it. */
#include "commands.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binding_warnings.h"
#include "startup.h"
#include "topo_ranks.h"
#include "ts_affinity.h"
#include "ts_topo_report.h"
#include "ts_topology.h"

/* The binding warnings (at most 16) and the config's keys without effect. */
enum { MAX_WARNINGS = 16 + TS_CONFIG_MAX_KEYS };

/* Everything the report borrows, owned here. */
struct topo_state {
    ts_topology *topo;
    struct ts_topology_rec machine;
    struct ts_thread_rec *rows;
    struct ts_place_rec *places;
    char host[256], cpus[1024], mask[1024];
    struct ts_binding_choice binding;
    char lines[MAX_WARNINGS][TS_CONFIG_NOTE_LEN];
    const char *warnings[MAX_WARNINGS];
};

static const char *proc_bind_name(omp_proc_bind_t bind)
{
    switch (bind) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: /* renamed primary in OpenMP 5.1; clang's libomp 14 knows only master */
        return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    }
    return "?";
}

/* Samples a team of n; returns its real size. The barrier of `single` makes the whole team
 * exist before any thread samples, as the threads of a run do. */
static int sample_threads(const ts_topology *topo, struct ts_thread_rec *rows, int n)
{
    int team = 0;
#pragma omp parallel num_threads(n)
    {
#pragma omp single
        team = omp_get_num_threads();
        struct ts_thread_rec *row = &rows[omp_get_thread_num()];
        ts_affinity_sample_start(topo, row);
        row->cpu_end = -1; /* a snapshot has no run to move during */
        row->counted_for_node = -1;
    }
    return team;
}

/* Where the thread count comes from, in run's order: --threads, openmp.threads, then the runtime
 * (OMP_NUM_THREADS or every CPU). */
static int thread_count(int threads, const struct ts_config *cfg, const char **source)
{
    if (threads > 0) {
        *source = "--threads";
        return threads;
    }
    if (cfg && cfg->threads > 0) {
        *source = "openmp.threads (config)";
        return (int)cfg->threads;
    }
    *source = getenv("OMP_NUM_THREADS") ? "OMP_NUM_THREADS" : "runtime default";
    return omp_get_max_threads();
}

static int gather(struct topo_state *st, int threads, const struct ts_config *cfg, struct ts_topo_report *rep,
                  struct ts_error *err)
{
    const char *threads_source;
    omp_set_dynamic(0); /* as run: the team has the size asked for, or the run refuses to start */
    int n = thread_count(threads, cfg, &threads_source);
    int n_places = omp_get_num_places();
    st->rows = calloc((size_t)n, sizeof *st->rows);
    st->places = calloc(n_places > 0 ? (size_t)n_places : 1, sizeof *st->places);
    if (!st->rows || !st->places)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the report of %d threads", n);
    for (int p = 0; p < n_places; p++)
        ts_affinity_place_cpus(p, st->places[p].cpus, sizeof st->places[p].cpus);
    if (ts_startup_stack_for_threads(n, err) != TS_OK)
        return err->status;
    int team = sample_threads(st->topo, st->rows, n);

    if (gethostname(st->host, sizeof st->host - 1) != 0)
        snprintf(st->host, sizeof st->host, "unknown");
    *rep = (struct ts_topo_report){
        .program_version = TS_VERSION,
        .host = st->host,
        .process_cpus = st->cpus,
        .process_mask = st->mask,
        .config_path = cfg ? cfg->path : NULL,
        .topology = &st->machine,
        .openmp = {
            .env_num_threads = getenv("OMP_NUM_THREADS"),
            .env_places = getenv("OMP_PLACES"),
            .env_proc_bind = getenv("OMP_PROC_BIND"),
            .num_threads = team,
            .num_threads_source = threads_source,
            .places_source = st->binding.places_source,
            .proc_bind_source = st->binding.proc_bind_source,
            .proc_bind = proc_bind_name(omp_get_proc_bind()),
            .n_places = n_places,
            .places = st->places,
            .threads = st->rows,
        },
        .warnings = st->warnings,
        .world = NULL,
    };
    rep->n_process_cpus = ts_affinity_available_cpus(st->cpus, sizeof st->cpus, &rep->process_cpus_source);
    rep->n_process_mask = -1;
    if (st->binding.launch_cpus[0]) {
        /* The mask handed down the re-execution, or read at start-up; the facts count it. */
        snprintf(st->mask, sizeof st->mask, "%s", st->binding.launch_cpus);
        struct ts_binding_facts mask = { 0 };
        ts_affinity_available(st->topo, st->mask, &mask);
        rep->n_process_mask = mask.mask_cpus > 0 ? mask.mask_cpus : -1;
    }

    int w = 0;
    if (team < n)
        snprintf(st->lines[w++], sizeof st->lines[0],
                 "asked for %d threads but the runtime started %d (OMP_THREAD_LIMIT, OMP_DYNAMIC?)", n, team);
    /* Every warning run gives before it computes, from the same function. */
    struct ts_binding_observed seen = { .threads = st->rows, .n_threads = team };
    char binding[16][512];
    int n_binding = ts_binding_warnings(&st->binding, st->topo, &seen, binding, 16);
    for (int i = 0; i < n_binding && w < MAX_WARNINGS; i++)
        memcpy(st->lines[w++], binding[i], sizeof binding[i]); /* each line fits 512 bytes */
    /* And, as run would, the keys of the config that the run would not read. */
    if (cfg)
        w += (int)ts_config_unused_keys(cfg, st->lines + w, (size_t)(MAX_WARNINGS - w));
    for (int i = 0; i < w; i++)
        st->warnings[i] = st->lines[i];
    rep->n_warnings = w;
    return TS_OK;
}

static int print(enum ts_format format, const struct ts_topo_report *rep, struct ts_error *err)
{
    int failed = 0;
    if (format == TS_FORMAT_JSON)
        failed = ts_topo_report_json(rep, stdout) != 0;
    else
        ts_topo_report_text(rep, stdout);
    if (fflush(stdout) != 0 || ferror(stdout))
        return ts_fail_errno(err, TS_IO_ERROR, errno, "cannot write the topo report to stdout");
    if (failed)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot build the JSON report");
    return TS_OK;
}

/* topo --topology FILE / --synthetic DESC: the described machine alone, printed by rank 0. */
static int describe(enum ts_format format, const struct ts_cli_machine *machine, const struct ts_dist *dist,
                    struct ts_error *err)
{
    const struct ts_topology_source src = {
        .kind = machine->kind == TS_MACHINE_XML ? TS_TOPOLOGY_XML : TS_TOPOLOGY_SYNTHETIC,
        .text = machine->text,
    };
    ts_topology *topo;
    int status = ts_topology_load(&topo, &src, err);
    if (status != TS_OK)
        return status;
    struct ts_topology_rec rec;
    static struct ts_topology_allowed allowed; /* 2.5 KB of lists */
    status = ts_topology_record(topo, &rec, err);
    if (status == TS_OK) {
        ts_topology_allowed(topo, &allowed);
        const struct ts_topo_described rep = {
            .program_version = TS_VERSION,
            .describes = ts_topology_label(topo),
            .kind = src.kind == TS_TOPOLOGY_XML ? "hwloc XML export" : "hwloc synthetic description",
            .allowed_cpus = allowed.cpus,
            .all_cpus = allowed.all_cpus,
            .n_allowed_cpus = allowed.n_cpus,
            .n_all_cpus = allowed.n_all_cpus,
            .allowed_nodes = allowed.nodes,
            .all_nodes = allowed.all_nodes,
            .n_allowed_nodes = allowed.n_nodes,
            .n_all_nodes = allowed.n_all_nodes,
            .topology = &rec,
        };
        int failed = 0;
        if (dist->rank == 0 && format == TS_FORMAT_JSON)
            failed = ts_topo_described_json(&rep, stdout) != 0;
        else if (dist->rank == 0)
            ts_topo_described_text(&rep, stdout);
        if (fflush(stdout) != 0 || ferror(stdout))
            status = ts_fail_errno(err, TS_IO_ERROR, errno, "cannot write the topo report to stdout");
        else if (failed)
            status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot build the JSON report");
        ts_topology_record_free(&rec);
    }
    ts_topology_destroy(topo);
    return status;
}

int ts_topo_cmd(enum ts_format format, int threads, int all_ranks, const struct ts_config *cfg,
                const struct ts_binding_choice *binding, const struct ts_dist *dist,
                const struct ts_cli_machine *machine, struct ts_error *err)
{
    if (machine && machine->kind != TS_MACHINE_THIS)
        return describe(format, machine, dist, err);
    struct topo_state *st = calloc(1, sizeof *st);
    if (!st)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the topo report");
    if (binding)
        st->binding = *binding;
    else
        ts_binding_from_environment(&st->binding);
    struct ts_topo_report rep;
    int status = ts_topology_create(&st->topo, err);
    if (status == TS_OK)
        status = ts_topology_record(st->topo, &st->machine, err);
    if (status == TS_OK)
        status = gather(st, threads, cfg, &rep, err);
    /* JSON across ranks: the world's part merged first, then rank 0's one document. One
     * rank's JSON report (launched or not) is the one of a process alone. */
    struct ts_topo_ranks_json *world = NULL;
    const int json_ranks = format == TS_FORMAT_JSON && dist->started && dist->size > 1;
    if (status == TS_OK && json_ranks)
        status = ts_topo_ranks_json(dist, &rep, all_ranks, &world, err);
    if (status == TS_OK && dist->rank == 0) {
        rep.world = ts_topo_ranks_world(world);
        status = print(format, &rep, err);
    }
    /* Under a launcher, the text report then summarises the hosts and lists the first ranks'
     * threads (every rank's with --all-ranks), printed by rank 0. */
    if (status == TS_OK && dist->started && format != TS_FORMAT_JSON)
        status = ts_topo_ranks_print(dist, &rep, all_ranks, stdout, err);
    ts_topo_ranks_json_free(world);

    ts_topology_record_free(&st->machine);
    ts_topology_destroy(st->topo);
    free(st->rows);
    free(st->places);
    free(st);
    return status;
}
