/* The `touchstone topo` report: the machine as hwloc sees it and where each OpenMP thread of
 * the current environment runs, as an aligned text report or one JSON object. Renderers only:
 * app/ gathers the plain records. */
#ifndef TOUCHSTONE_IO_TS_TOPO_REPORT_H
#define TOUCHSTONE_IO_TS_TOPO_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "ts_record.h"

struct ts_place_rec {
    char cpus[256]; /* CPU list of one OpenMP place */
};

/* OpenMP as the runtime sees this process's environment. */
struct ts_openmp_rec {
    const char *env_num_threads; /* OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND; NULL when unset */
    const char *env_places;
    const char *env_proc_bind;
    int32_t num_threads;            /* threads in the team that was sampled */
    const char *num_threads_source; /* "--threads", "openmp.threads (config)", "OMP_NUM_THREADS" or "runtime default" */
    const char *places_source;      /* where OMP_PLACES came from: "config", "environment" or "unset" */
    const char *proc_bind_source;   /* likewise for OMP_PROC_BIND */
    const char *proc_bind;          /* omp_get_proc_bind(): false, true, primary, close, spread */
    int32_t n_places;
    const struct ts_place_rec *places;
    const struct ts_thread_rec *threads; /* num_threads rows; cpu_start is "cpu" */
};

/* One rank of a report across ranks (topo under a launcher with more than one rank), as that
 * rank knows itself; ts_topo_rank_json_line turns it into the line rank 0 gathers. */
struct ts_topo_rank {
    int32_t rank, local_rank;
    const char *host;         /* SLURMD_NODENAME in a Slurm job step, else the host name */
    const char *boot_id;      /* its kernel's boot id; "" unknown (null in JSON) */
    const char *process_cpus; /* as in ts_topo_report */
    const char *process_mask; /* "" unknown */
    const struct ts_thread_rec *threads;
    int32_t n_threads;
    const char *const *warnings; /* its own binding warnings */
    int32_t n_warnings;
};

/* The world of a report across ranks, on rank 0. */
struct ts_topo_world {
    int32_t size, hosts, kernels; /* kernels: distinct boot ids; fewer than hosts when node names share one */
    const char *library, *thread_level, *launcher;
    const char *ranks;        /* every rank's ts_topo_rank_json_line, in rank order */
    const char *const *cross; /* the warnings and notes across ranks (topo/ts_rank_warnings.h) */
    const int *cross_note;    /* 1: a note, 0: a warning */
    int32_t n_cross;
};

struct ts_topo_report {
    const char *program_version;
    const char *host;
    const char *process_cpus;        /* CPUs OpenMP threads may use (ts_affinity_available_cpus) */
    int32_t n_process_cpus;          /* -1 when unknown */
    const char *process_cpus_source; /* "affinity mask" or "OpenMP places" */
    const char *process_mask;        /* the affinity mask the process started with (taskset, srun); "" unknown */
    int32_t n_process_mask;          /* -1 when unknown */
    const char *config_path;         /* topo CONFIG: whose binding was applied; NULL without one */
    const struct ts_topology_rec *topology;
    struct ts_openmp_rec openmp;
    const char *const *warnings;
    int32_t n_warnings;
    const struct ts_topo_world *world; /* NULL: one process (launched on one rank or not) */
};

void ts_topo_report_text(const struct ts_topo_report *r, FILE *out);

/* Writes the report as one indented JSON object and a newline; -1 when memory ran out or the
 * write failed. Keys: see ts_topology_json, plus host, touchstone_version, config, process_cpus
 * (with process_cpu_count and process_cpus_source), process_mask (with process_mask_count),
 * openmp and warnings. With r->world, also mpi (size, hosts, kernels, shared_kernel, library,
 * thread_level, launcher), ranks (every rank's line parsed back: rank, local_rank, host,
 * boot_id, process_cpus, process_mask, num_threads, threads, warnings) and rank_warnings
 * (objects of kind "warning" or "note" and text); -1 too when a rank's line does not parse. */
int ts_topo_report_json(const struct ts_topo_report *r, FILE *out);

/* One rank as one line of compact JSON ending in '\n' (malloc'd, the caller frees it), the
 * form in which rank 0 gathers every rank's part of the report; NULL when memory ran out. */
char *ts_topo_rank_json_line(const struct ts_topo_rank *r);

/* `topo --topology FILE.xml` or `topo --synthetic DESC`: a machine described, not observed. The
 * report is the machine alone (no host, no process, no threads: nothing ran on it) and says so. */
struct ts_topo_described {
    const char *program_version;
    const char *describes;               /* the XML file, or "synthetic: DESC" */
    const char *kind;                    /* "hwloc XML export" or "hwloc synthetic description" */
    const char *allowed_cpus, *all_cpus; /* the description's allowed cpuset against all its PUs */
    int32_t n_allowed_cpus, n_all_cpus;
    const char *allowed_nodes, *all_nodes;
    int32_t n_allowed_nodes, n_all_nodes;
    const struct ts_topology_rec *topology; /* a memory size of 0: the description has none */
};

void ts_topo_described_text(const struct ts_topo_described *r, FILE *out);
/* One indented JSON object and a newline: describes, this_machine (false), source,
 * touchstone_version, allowed (cpus, cpu_count, all_cpus, all_cpu_count, nodes, node_count,
 * all_nodes, all_node_count) and ts_topology_json's keys but thp (this machine's), with
 * memory_bytes null where the description has no size; -1 when memory ran out or the write
 * failed. */
int ts_topo_described_json(const struct ts_topo_described *r, FILE *out);

/* The topology as a JSON object (hwloc_version, thp, packages, cores, pus, numa_nodes,
 * distances, core_list, caches, cache_line) and the thread rows as an array, for every command that
 * prints JSON; NULL when memory ran out. */
json_t *ts_topology_json(const struct ts_topology_rec *t);
json_t *ts_threads_json(const struct ts_thread_rec *rows, int n);

#endif
