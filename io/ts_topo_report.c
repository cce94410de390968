/* The `topo` report as aligned text: one section per concern, columns sized to their content. */
#include "ts_topo_report.h"

#include <stdio.h>
#include <string.h>

#include "ts_units.h"

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* -1 is how the records say "nobody knows"; a made-up number would read like a fact. */
static const char *number(int v, char *buf, size_t len)
{
    if (v < 0)
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%d", v);
    return buf;
}

static void print_machine(const struct ts_topo_report *r, FILE *out)
{
    const struct ts_topology_rec *t = r->topology;
    fprintf(out, "touchstone %s topo: %s\n", r->program_version, r->host);
    fprintf(out, "  hwloc      %s\n", t->hwloc_version);
    fprintf(out, "  machine    %d package%s, %d core%s, %d PU%s, %d NUMA node%s\n", t->n_packages,
            plural(t->n_packages), t->n_cores, plural(t->n_cores), t->n_pus, plural(t->n_pus), t->n_numa,
            plural(t->n_numa));
    fprintf(out, "  THP        %s (transparent huge pages)\n", t->thp_enabled);
    fprintf(out, "  CPUs       %s: %d CPU%s in the %s\n", r->process_cpus, r->n_process_cpus, plural(r->n_process_cpus),
            r->process_cpus_source);
    if (r->n_process_mask > 0)
        fprintf(out, "  mask       %s: %d CPU%s in the affinity mask the process started with\n", r->process_mask,
                r->n_process_mask, plural(r->n_process_mask));
    if (r->config_path)
        fprintf(out,
                "  config     %s: its openmp.places, openmp.proc_bind and openmp.threads applied as run applies them\n",
                r->config_path);
}

/* unknown_zero: a described node (synthetic) may have no memory size: "?" rather than 0 B. */
static void print_numa(const struct ts_topology_rec *t, int unknown_zero, FILE *out)
{
    char mem[32];
    int w = (int)strlen("memory");
    for (int i = 0; i < t->n_numa; i++) {
        ts_bytes_text(t->numa[i].memory_bytes, mem, sizeof mem);
        w = max_int(w, (int)strlen(mem));
    }
    fprintf(out, "\nNUMA nodes (OS numbers, as numactl uses them)\n  node  %*s  CPUs\n", w, "memory");
    for (int i = 0; i < t->n_numa; i++) {
        if (unknown_zero && t->numa[i].memory_bytes <= 0)
            snprintf(mem, sizeof mem, "?");
        else
            ts_bytes_text(t->numa[i].memory_bytes, mem, sizeof mem);
        fprintf(out, "  %4d  %*s  %s\n", t->numa[i].os_index, w, mem, t->numa[i].cpus);
    }
}

static void print_distances(const struct ts_topology_rec *t, FILE *out)
{
    int n = t->n_numa, w = 2;
    char cell[16];
    for (int i = 0; i < n * n; i++)
        w = max_int(w, (int)strlen(number(t->distances[i], cell, sizeof cell)));
    for (int i = 0; i < n; i++)
        w = max_int(w, (int)strlen(number(t->numa[i].os_index, cell, sizeof cell)));
    fprintf(out, "\nNUMA distances (relative, 10 = local; from row node to column node)\n  node");
    for (int j = 0; j < n; j++)
        fprintf(out, "  %*s", w, number(t->numa[j].os_index, cell, sizeof cell));
    for (int i = 0; i < n; i++) {
        fprintf(out, "\n  %4s", number(t->numa[i].os_index, cell, sizeof cell));
        for (int j = 0; j < n; j++)
            fprintf(out, "  %*s", w, number(t->distances[i * n + j], cell, sizeof cell));
    }
    fprintf(out, "\n");
}

static void print_cores(const struct ts_topology_rec *t, FILE *out)
{
    char os[16], pkg[16], node[16];
    fprintf(out, "\ncores (core and package: hwloc logical numbers; os: the kernel's core id)\n"
                 "  core    os  package  node  CPUs\n");
    for (int i = 0; i < t->n_cores_rec; i++) {
        const struct ts_core_rec *c = &t->cores[i];
        fprintf(out, "  %4d  %4s  %7s  %4s  %s\n", c->index, number(c->os_index, os, sizeof os),
                number(c->package, pkg, sizeof pkg), number(c->numa, node, sizeof node), c->cpus);
    }
}

static void print_caches(const struct ts_topology_rec *t, FILE *out)
{
    char size[32];
    int w = (int)strlen("size");
    for (int i = 0; i < t->n_caches; i++) {
        ts_bytes_text(t->caches[i].size_bytes, size, sizeof size);
        w = max_int(w, (int)strlen(size));
    }
    fprintf(out, "\ncaches (size per instance, line in bytes)\n  level  type         %*s  line  count\n", w, "size");
    for (int i = 0; i < t->n_caches; i++) {
        const struct ts_cache_rec *c = &t->caches[i];
        ts_bytes_text(c->size_bytes, size, sizeof size);
        fprintf(out, "  L%-4d  %-11s  %*s  %4u  %5d\n", c->level, c->type, w, size, c->line_bytes, c->count);
    }
    fprintf(out, "  per-thread slots are padded to %u B (%s)\n", t->cache_line_bytes, t->cache_line_source);
}

static const char *or_unset(const char *v)
{
    return v ? v : "unset";
}

/* " (config)" or " (environment)"; nothing for a variable nobody set. */
static const char *source_note(const char *source, char *buf, size_t len)
{
    if (source && (strcmp(source, "config") == 0 || strcmp(source, "environment") == 0))
        snprintf(buf, len, " (%s)", source);
    else if (len)
        buf[0] = '\0';
    return buf;
}

static void print_openmp(const struct ts_topo_report *r, FILE *out)
{
    const struct ts_openmp_rec *o = &r->openmp;
    char places[32] = "no places", note[32];
    if (o->n_places > 0)
        snprintf(places, sizeof places, "%d place%s", o->n_places, plural(o->n_places));
    if (r->config_path)
        fprintf(out, "\nOpenMP (as touchstone run %s will start it: the environment wins over the config)\n",
                r->config_path);
    else
        fprintf(out, "\nOpenMP (the OMP_* environment as the runtime read it at start-up)\n");
    fprintf(out, "  OMP_NUM_THREADS  %-12s -> %d thread%s (%s)\n", or_unset(o->env_num_threads), o->num_threads,
            plural(o->num_threads), o->num_threads_source);
    fprintf(out, "  OMP_PLACES       %-12s -> %s%s\n", or_unset(o->env_places), places,
            source_note(o->places_source, note, sizeof note));
    fprintf(out, "  OMP_PROC_BIND    %-12s -> %s%s%s\n", or_unset(o->env_proc_bind), o->proc_bind,
            strcmp(o->proc_bind, "false") == 0 ? ": binding off" : "",
            source_note(o->proc_bind_source, note, sizeof note));
    if (o->n_places > 0)
        fprintf(out, "  place  CPUs\n");
    for (int p = 0; p < o->n_places; p++)
        fprintf(out, "  %5d  %s\n", p, o->places[p].cpus);
}

/* One row per thread, as xthi prints them, aligned so a stacked binding stands out. */
static void print_threads(const struct ts_openmp_rec *o, FILE *out)
{
    int w = (int)strlen("place CPUs");
    for (int i = 0; i < o->num_threads; i++)
        w = max_int(w, (int)strlen(o->threads[i].place_cpus));
    char place[16], cpu[16], core[16], node[16];
    fprintf(out, "\nthreads (where each thread runs now; core: hwloc logical, node: OS number)\n");
    fprintf(out, "  thread  place  %-*s   CPU  core  node  affinity\n", w, "place CPUs");
    for (int i = 0; i < o->num_threads; i++) {
        const struct ts_thread_rec *r = &o->threads[i];
        fprintf(out, "  %6d  %5s  %-*s  %4s  %4s  %4s  %s\n", r->thread,
                r->place < 0 ? "-" : number(r->place, place, sizeof place), w, r->place_cpus[0] ? r->place_cpus : "-",
                number(r->cpu_start, cpu, sizeof cpu), number(r->core, core, sizeof core),
                number(r->node, node, sizeof node), r->affinity);
    }
}

void ts_topo_report_text(const struct ts_topo_report *r, FILE *out)
{
    print_machine(r, out);
    print_numa(r->topology, 0, out);
    print_distances(r->topology, out);
    print_cores(r->topology, out);
    print_caches(r->topology, out);
    print_openmp(r, out);
    print_threads(&r->openmp, out);
    fprintf(out, "\nwarnings%s\n", r->n_warnings ? "" : ": none");
    for (int i = 0; i < r->n_warnings; i++)
        fprintf(out, "  warning: %s\n", r->warnings[i]);
}

/* A described machine: what describes it first, so that nobody mistakes it for this one. */
static void print_described(const struct ts_topo_described *r, FILE *out)
{
    const struct ts_topology_rec *t = r->topology;
    fprintf(out, "touchstone %s topo: %s, not this machine\n", r->program_version, r->describes);
    fprintf(out, "  source     %s: described, not observed (nothing ran on it, no thread was bound)\n", r->kind);
    fprintf(out, "  hwloc      %s\n", t->hwloc_version);
    fprintf(out, "  machine    %d package%s, %d core%s, %d PU%s, %d NUMA node%s\n", t->n_packages,
            plural(t->n_packages), t->n_cores, plural(t->n_cores), t->n_pus, plural(t->n_pus), t->n_numa,
            plural(t->n_numa));
    if (r->n_allowed_cpus == r->n_all_cpus)
        fprintf(out, "  CPUs       %s: all %d PU%s allowed\n", r->all_cpus, r->n_all_cpus, plural(r->n_all_cpus));
    else
        fprintf(out,
                "  CPUs       %s allowed: %d of the %d PUs (%s); the rest lie outside the cpuset the description "
                "was made in\n",
                r->allowed_cpus, r->n_allowed_cpus, r->n_all_cpus, r->all_cpus);
    if (r->n_allowed_nodes == r->n_all_nodes)
        fprintf(out, "  nodes      %s: all %d NUMA node%s allowed\n", r->all_nodes, r->n_all_nodes,
                plural(r->n_all_nodes));
    else
        fprintf(out, "  nodes      %s allowed: %d of the %d NUMA nodes (%s)\n", r->allowed_nodes, r->n_allowed_nodes,
                r->n_all_nodes, r->all_nodes);
}

void ts_topo_described_text(const struct ts_topo_described *r, FILE *out)
{
    print_described(r, out);
    print_numa(r->topology, 1, out);
    print_distances(r->topology, out);
    print_cores(r->topology, out);
    print_caches(r->topology, out);
}
