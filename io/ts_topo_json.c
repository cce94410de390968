/* The `topo` report and its parts as JSON, through jansson. json_pack builds each object in
 * one call and returns NULL if anything in it failed (out of memory), and so do the array
 * builders here, so a failure anywhere surfaces as one NULL at the top. */
#include "ts_topo_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* JSON strings must be UTF-8 and jansson enforces it; the environment may hold any bytes, so
 * those outside ASCII become '?' rather than costing the whole report. NULL becomes null. */
static json_t *text(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", s);
    for (char *c = copy; *c; c++)
        if ((unsigned char)*c >= 0x80)
            *c = '?';
    return json_string(copy);
}

/* Appends v to a; on failure releases both and returns NULL, so loops test one pointer. */
static json_t *push(json_t *a, json_t *v)
{
    if (json_array_append_new(a, v) == 0)
        return a;
    json_decref(a);
    return NULL;
}

static json_t *numa_json(const struct ts_topology_rec *t)
{
    json_t *a = json_array();
    for (int i = 0; a && i < t->n_numa; i++)
        a = push(a, json_pack("{s:i, s:I, s:s}", "os_index", t->numa[i].os_index, "memory_bytes",
                              (json_int_t)t->numa[i].memory_bytes, "cpus", t->numa[i].cpus));
    return a;
}

static json_t *distances_json(const struct ts_topology_rec *t)
{
    int n = t->n_numa;
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        json_t *row = json_array();
        for (int j = 0; row && j < n; j++)
            row = push(row, json_integer(t->distances[i * n + j]));
        a = push(a, row);
    }
    return a;
}

static json_t *cores_json(const struct ts_topology_rec *t)
{
    json_t *a = json_array();
    for (int i = 0; a && i < t->n_cores_rec; i++) {
        const struct ts_core_rec *c = &t->cores[i];
        a = push(a, json_pack("{s:i, s:i, s:i, s:i, s:s}", "core", c->index, "os_index", c->os_index, "package",
                              c->package, "node", c->numa, "cpus", c->cpus));
    }
    return a;
}

static json_t *caches_json(const struct ts_topology_rec *t)
{
    json_t *a = json_array();
    for (int i = 0; a && i < t->n_caches; i++) {
        const struct ts_cache_rec *c = &t->caches[i];
        a = push(a, json_pack("{s:i, s:s, s:I, s:I, s:i}", "level", c->level, "type", c->type, "size_bytes",
                              (json_int_t)c->size_bytes, "line_bytes", (json_int_t)c->line_bytes, "count", c->count));
    }
    return a;
}

json_t *ts_topology_json(const struct ts_topology_rec *t)
{
    return json_pack("{s:s, s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:{s:I, s:s}}", "hwloc_version", t->hwloc_version,
                     "thp", t->thp_enabled, "packages", t->n_packages, "cores", t->n_cores, "pus", t->n_pus,
                     "numa_nodes", numa_json(t), "distances", distances_json(t), "core_list", cores_json(t), "caches",
                     caches_json(t), "cache_line", "bytes", (json_int_t)t->cache_line_bytes, "source",
                     t->cache_line_source);
}

json_t *ts_threads_json(const struct ts_thread_rec *rows, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        const struct ts_thread_rec *r = &rows[i];
        a = push(a, json_pack("{s:i, s:i, s:s, s:i, s:i, s:i, s:s}", "thread", r->thread, "place", r->place,
                              "place_cpus", r->place_cpus, "cpu", r->cpu_start, "core", r->core, "node", r->node,
                              "affinity", r->affinity));
    }
    return a;
}

static json_t *strings_json(const char *const *s, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        a = push(a, text(s[i]));
    return a;
}

static json_t *openmp_json(const struct ts_openmp_rec *o)
{
    json_t *places = json_array();
    for (int p = 0; places && p < o->n_places; p++)
        places = push(places, json_string(o->places[p].cpus));
    return json_pack("{s:{s:o, s:o, s:o}, s:i, s:s, s:s, s:s, s:s, s:o, s:o}", "environment", "OMP_NUM_THREADS",
                     text(o->env_num_threads), "OMP_PLACES", text(o->env_places), "OMP_PROC_BIND",
                     text(o->env_proc_bind), "num_threads", o->num_threads, "num_threads_source", o->num_threads_source,
                     "places_source", o->places_source, "proc_bind_source", o->proc_bind_source, "proc_bind",
                     o->proc_bind, "places", places, "threads", ts_threads_json(o->threads, o->num_threads));
}

char *ts_topo_rank_json_line(const struct ts_topo_rank *r)
{
    json_t *o =
        json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:i, s:o, s:o}", "rank", r->rank, "local_rank", r->local_rank, "host",
                  text(r->host), "boot_id", text(r->boot_id[0] ? r->boot_id : NULL), "process_cpus",
                  text(r->process_cpus), "process_mask", text(r->process_mask), "num_threads", r->n_threads, "threads",
                  ts_threads_json(r->threads, r->n_threads), "warnings", strings_json(r->warnings, r->n_warnings));
    char *compact = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    size_t n = compact ? strlen(compact) : 0;
    char *line = compact ? malloc(n + 2) : NULL;
    if (line) {
        memcpy(line, compact, n);
        line[n] = '\n';
        line[n + 1] = '\0';
    }
    free(compact);
    return line;
}

/* Every rank's line (ts_topo_rank_json_line) parsed back into one array; NULL when one does
 * not parse or memory ran out. */
static json_t *ranks_json(const char *lines)
{
    json_t *a = json_array();
    for (const char *p = lines; a && p && *p;) {
        size_t n = strcspn(p, "\n");
        json_t *rank = json_loadb(p, n, 0, NULL);
        a = rank ? push(a, rank) : (json_decref(a), NULL);
        p += n + (p[n] == '\n');
    }
    return a;
}

static json_t *world_json(const struct ts_topo_world *w)
{
    return json_pack("{s:i, s:i, s:i, s:b, s:o, s:o, s:o}", "size", w->size, "hosts", w->hosts, "kernels", w->kernels,
                     "shared_kernel", w->kernels < w->hosts, "library", text(w->library), "thread_level",
                     text(w->thread_level), "launcher", text(w->launcher));
}

static json_t *cross_json(const struct ts_topo_world *w)
{
    json_t *a = json_array();
    for (int i = 0; a && i < w->n_cross; i++)
        a = push(a, json_pack("{s:s, s:o}", "kind", w->cross_note[i] ? "note" : "warning", "text", text(w->cross[i])));
    return a;
}

int ts_topo_report_json(const struct ts_topo_report *r, FILE *out)
{
    json_t *root = json_pack("{s:s, s:s, s:o, s:s, s:i, s:s, s:s, s:i}", "host", r->host, "touchstone_version",
                             r->program_version, "config", text(r->config_path), "process_cpus", r->process_cpus,
                             "process_cpu_count", r->n_process_cpus, "process_cpus_source", r->process_cpus_source,
                             "process_mask", r->process_mask, "process_mask_count", r->n_process_mask);
    json_t *topology = ts_topology_json(r->topology);
    int ok = root && topology && json_object_update(root, topology) == 0;
    json_decref(topology);

    ok = ok && json_object_set_new(root, "openmp", openmp_json(&r->openmp)) == 0;
    ok = ok && json_object_set_new(root, "warnings", strings_json(r->warnings, r->n_warnings)) == 0;
    if (r->world) {
        ok = ok && json_object_set_new(root, "mpi", world_json(r->world)) == 0;
        ok = ok && json_object_set_new(root, "ranks", ranks_json(r->world->ranks)) == 0;
        ok = ok && json_object_set_new(root, "rank_warnings", cross_json(r->world)) == 0;
    }
    ok = ok && json_dumpf(root, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF;
    json_decref(root);
    return ok ? 0 : -1;
}

/* A size of 0 is a description without one (synthetic), not an empty node. */
static void unknown_memory_null(json_t *nodes)
{
    size_t i;
    json_t *node;
    json_array_foreach(nodes, i, node) if (json_integer_value(json_object_get(node, "memory_bytes")) == 0)
        json_object_set_new(node, "memory_bytes", json_null());
}

int ts_topo_described_json(const struct ts_topo_described *r, FILE *out)
{
    json_t *root = json_pack(
        "{s:s, s:b, s:s, s:s, s:{s:s, s:i, s:s, s:i, s:s, s:i, s:s, s:i}}", "describes", r->describes, "this_machine",
        0, "source", r->kind, "touchstone_version", r->program_version, "allowed", "cpus", r->allowed_cpus, "cpu_count",
        r->n_allowed_cpus, "all_cpus", r->all_cpus, "all_cpu_count", r->n_all_cpus, "nodes", r->allowed_nodes,
        "node_count", r->n_allowed_nodes, "all_nodes", r->all_nodes, "all_node_count", r->n_all_nodes);
    json_t *topology = ts_topology_json(r->topology);
    int ok = root && topology && json_object_del(topology, "thp") == 0;
    if (ok)
        unknown_memory_null(json_object_get(topology, "numa_nodes"));
    ok = ok && json_object_update(root, topology) == 0;
    json_decref(topology);
    ok = ok && json_dumpf(root, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF;
    json_decref(root);
    return ok ? 0 : -1;
}
