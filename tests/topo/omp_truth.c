/* What libgomp really did with this process's OMP_PLACES, OMP_PROC_BIND and OMP_NUM_THREADS,
 * beside what the binding model (topo/ts_omp_model.h) says it does on this machine.
 * test_omp_truth.sh runs it under every combination and counts the differences.
 *
 * Output, one line each ("-" for an unset variable):
 *   env OMP_PLACES=... OMP_PROC_BIND=... OMP_NUM_THREADS=...
 *   libgomp bind=B places={0},{1} threads=0,1,0
 *   model   bind=B places={0},{1} threads=0,1,0
 *   model-says places_ignored=0 places_warned=0 bind_ignored=0 display='{0},{1}' note=...
 * bind is omp_get_proc_bind()'s number, places every place's CPUs in full, threads each
 * thread's omp_get_place_num() (-1: unbound). Exit status 0 when the libgomp and model lines
 * are equal, 1 when they differ, 2 when something could not run.
 *
 * The model's node is hwloc's allowed cpuset; libgomp's is the process's CPU mask at startup,
 * which libgomp has already changed when main runs (it binds the initial thread to place 0).
 * Under taskset or numactl --physcpubind, name the CPUs given in TS_TRUTH_CPUS ("1" or
 * "0,2,5"): the model then uses only those. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_node.h"
#include "ts_omp_model.h"
#include "ts_topology.h"

#define LINE 65536

static void append(char *buf, const char *fmt, int v)
{
    size_t used = strlen(buf);
    if (used < LINE)
        snprintf(buf + used, LINE - used, fmt, v);
}

/* libgomp's view: its places list through the OpenMP API, and the place of every thread. */
static int observe(int n_threads, char *places, char *threads, int *bind)
{
    *bind = (int)omp_get_proc_bind();
    int n = omp_get_num_places();
    for (int i = 0; i < n; i++) {
        int count = omp_get_place_num_procs(i);
        int *ids = malloc((size_t)(count > 0 ? count : 1) * sizeof *ids);
        if (!ids)
            return 2;
        omp_get_place_proc_ids(i, ids);
        strcat(places, i ? ",{" : "{");
        for (int c = 0; c < count; c++)
            append(places, c ? ",%d" : "%d", ids[c]);
        strcat(places, "}");
        free(ids);
    }
    int *where = malloc((size_t)n_threads * sizeof *where), got = 0;
    if (!where)
        return 2;
#pragma omp parallel
    {
        int id = omp_get_thread_num();
        if (id < n_threads)
            where[id] = omp_get_place_num();
#pragma omp single
        got = omp_get_num_threads();
    }
    for (int i = 0; i < got && i < n_threads; i++)
        append(threads, i ? ",%d" : "%d", where[i]);
    free(where);
    if (got != n_threads)
        append(threads, " (team of %d)", got);
    return 0;
}

/* Leaves allowed only the CPUs of list ("1", "0,2,5"; NULL: all hwloc allows). */
static int restrict_cpus(struct ts_node *node, const char *list)
{
    if (!list)
        return 0;
    for (int i = 0; i < node->n_pus; i++) {
        int listed = 0;
        for (const char *c = list; *c;) {
            char *end;
            long v = strtol(c, &end, 10);
            if (end == c)
                break;
            listed |= v == node->pus[i].os_index;
            c = *end == ',' ? end + 1 : end;
        }
        node->pus[i].allowed &= listed;
    }
    return 0;
}

int main(void)
{
    const char *places_env = getenv("OMP_PLACES"), *bind_env = getenv("OMP_PROC_BIND");
    const char *threads_env = getenv("OMP_NUM_THREADS");
    int n_threads = threads_env ? atoi(threads_env) : 0;
    if (n_threads < 1 || n_threads > 4096) {
        fprintf(stderr, "omp_truth: set OMP_NUM_THREADS to 1 .. 4096\n");
        return 2;
    }
    static char lib_places[LINE], lib_threads[LINE], mod_places[LINE], mod_threads[LINE], display[LINE];
    /* The model's machine first, while this process has one thread: hwloc then loads none of
     * its plugins (topo/ts_topology.c), and no idle OpenMP thread spins through the discovery
     * (a team of 2 cost 40 ms of CPU a run instead of 5, topo.omp_truth's 1440 runs about 30 s
     * of CI). libgomp built its places and bound this thread before main; hwloc neither reads
     * nor changes either, so the order changes neither answer. */
    ts_topology *topo;
    struct ts_node node;
    struct ts_omp_outcome o;
    struct ts_error err = { 0 };
    if (ts_topology_create(&topo, &err) || ts_node_from_topology(topo, &node, &err)
        || restrict_cpus(&node, getenv("TS_TRUTH_CPUS")) || ts_omp_libgomp(&node, places_env, bind_env, &o, &err)) {
        fprintf(stderr, "omp_truth: %s\n", err.message);
        return 2;
    }
    int lib_bind;
    if (observe(n_threads, lib_places, lib_threads, &lib_bind))
        return 2;
    for (int i = 0; i < o.places.n; i++) {
        strcat(mod_places, i ? ",{" : "{");
        int first = 1;
        for (int c = 0; c < o.places.cpu_limit; c++)
            if (ts_omp_place_has(&o.places, i, c)) {
                append(mod_places, first ? "%d" : ",%d", c);
                first = 0;
            }
        strcat(mod_places, "}");
    }
    int *plan = malloc((size_t)n_threads * sizeof *plan);
    if (!plan || ts_omp_libgomp_plan(&o, n_threads, plan, &err)) {
        fprintf(stderr, "omp_truth: %s\n", plan ? err.message : "no memory");
        return 2;
    }
    for (int i = 0; i < n_threads; i++)
        append(mod_threads, i ? ",%d" : "%d", plan[i]);
    ts_omp_places_format(&o.places, display, sizeof display);

    printf("env OMP_PLACES=%s OMP_PROC_BIND=%s OMP_NUM_THREADS=%d\n", places_env ? places_env : "-",
           bind_env ? bind_env : "-", n_threads);
    printf("libgomp bind=%d places=%s threads=%s\n", lib_bind, lib_places, lib_threads);
    printf("model   bind=%d places=%s threads=%s\n", (int)o.bind, mod_places, mod_threads);
    printf("model-says places_ignored=%d places_warned=%d bind_ignored=%d display='%s' note=%s\n", o.places_ignored,
           o.places_warned, o.bind_ignored, display, o.note[0] ? o.note : "-");
    int same = lib_bind == (int)o.bind && strcmp(lib_places, mod_places) == 0 && strcmp(lib_threads, mod_threads) == 0;
    free(plan);
    ts_omp_outcome_free(&o);
    ts_node_free(&node);
    ts_topology_destroy(topo);
    return same ? 0 : 1;
}
