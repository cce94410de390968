/* Where OpenMP threads are bound and where they really run, and what is wrong with it. */
#ifndef TOUCHSTONE_TOPO_TS_AFFINITY_H
#define TOUCHSTONE_TOPO_TS_AFFINITY_H

#include <stddef.h>
#include <stdint.h>

#include "ts_record.h"
#include "ts_topology.h"

/* Call from inside a parallel region, once per thread, before the timed loop: fills thread,
 * place, place_cpus, affinity, cpu_start, core and node of row. */
void ts_affinity_sample_start(const ts_topology *topo, struct ts_thread_rec *row);
/* Same thread, after the timed loop: fills cpu_end. */
void ts_affinity_sample_end(struct ts_thread_rec *row);

/* Formats a CPU set as a list ("0-3,8,10-11"). */
void ts_cpulist_format(const void *cpu_set, size_t set_size, char *buf, size_t len);

/* Number of CPUs in the calling thread's affinity mask. */
int ts_affinity_mask_cpus(void);

/* The CPUs of OpenMP place `place` as a list; "" for no such place (unbound), "?" when memory
 * ran out, so an empty list never lies about a place. */
void ts_affinity_place_cpus(int place, char *buf, size_t len);

/* The CPUs OpenMP threads may use, as a list in buf and their count (-1 when unknown): when
 * binding is on, the union of the places, because the runtime has already narrowed the
 * initial thread's mask to the first place at start-up; else the calling thread's mask.
 * source (when not NULL) receives which: "OpenMP places" or "affinity mask". Call outside
 * parallel regions. */
int ts_affinity_available_cpus(char *buf, size_t len, const char **source);

/* The CPU list of the affinity mask the process started with, read before any library could
 * narrow it (the OpenMP runtime binds the initial thread to its first place as it loads);
 * returns the number of CPUs, or -1 (buf "") when it could not be read. */
int ts_affinity_launch_cpus(char *buf, size_t len);

/* Gives the calling thread the mask the process started with back. Returns 0, or -1 with errno
 * (ENOENT when that mask is unknown). */
int ts_affinity_restore_launch_mask(void);

struct ts_binding_facts {
    int bound; /* omp_get_proc_bind() != omp_proc_bind_false */
    int n_threads;
    int available_cpus; /* CPUs the threads may use: the union of the places when bound, else the mask */
    /* Optional (0 / NULL / "" when unknown): */
    int available_cores;       /* hwloc cores holding those CPUs */
    char available_list[256];  /* those CPUs as a list */
    int mask_cpus, mask_cores; /* the process's affinity mask at start-up (taskset, srun, cgroup) */
    char mask_list[256];
    char places[256];          /* OMP_PLACES as the threads got it, for the messages */
    char proc_bind[32];        /* OMP_PROC_BIND likewise */
    int under_slurm;           /* SLURM_JOB_ID is set: srun made the mask */
    int under_mpirun;          /* OMPI_COMM_WORLD_SIZE is set: Open MPI's mpirun made it */
    int machine_cpus;          /* every CPU of the machine: a mask that holds them all limits nothing */
    char places_outside[256];  /* CPUs OMP_PLACES names that the process may not use */
    const int32_t *init_node;  /* per thread: the node it first-touched its pages from */
    const int64_t *migrations; /* per thread: CPU migrations during the kernel, -1 unknown */
};

/* Fills the mask, available and machine fields, under_slurm and under_mpirun (bound must be set): the mask is
 * launch_cpus when known (a CPU list: the mask before OpenMP bound anything, handed down a
 * re-execution), else the mask this process started with (ts_affinity_launch_cpus); the
 * available CPUs are the union of the OpenMP places when bound, else the mask. */
void ts_affinity_available(const ts_topology *topo, const char *launch_cpus, struct ts_binding_facts *facts);

/* When the OpenMP runtime has already bound the calling thread (OMP_PLACES or OMP_PROC_BIND
 * were set when it loaded), widens its mask back to the union of all places, which for
 * abstract place names is the mask the process started with, and writes that CPU list to
 * cpus. A process re-executed from a narrowed thread would otherwise start on one place.
 * Returns 0 (also when nothing was bound, cpus then ""), -1 when the mask could not be set. */
int ts_affinity_widen_to_places(char *cpus, size_t len);

/* The most last-level cache one core is credited with. hwloc reports what the CPU (or the
 * hypervisor) says: VMs often give each virtual socket the host's whole L3 (bench/README.md,
 * "Notes behind the code"), which would make working sets of hundreds of MiB "in cache". The
 * largest real share is AMD's 3D V-Cache EPYC with 2 cores per 96 MiB L3: 48 MiB a core. */
#define TS_LLC_MAX_BYTES_PER_CORE ((int64_t)48 << 20)

/* The last-level caches (the deepest data or unified cache above each CPU) holding the given
 * CPUs, each distinct instance counted once. */
struct ts_llc {
    int level;              /* their cache level (3 for L3); 0 when none is known */
    int instances;          /* distinct caches */
    int cores;              /* cores under them */
    int64_t reported_bytes; /* their sizes as hwloc reports them */
    int64_t bytes;          /* what the run may keep in them: each size, at most
                               TS_LLC_MAX_BYTES_PER_CORE per core under it */
};

/* Fills out for the n CPUs (negative ones, unknown, are skipped); all zero when none is known
 * or memory ran out. */
void ts_affinity_llc(const ts_topology *topo, const int *cpus, int n, struct ts_llc *out);

/* The CPUs of `named` (n numbers) missing from facts->mask_list (available_list when the mask
 * is unknown), into facts->places_outside. */
void ts_affinity_outside(struct ts_binding_facts *facts, const int *named, int n);

/* Appends one warning line per problem to warnings (up to max, each < 512 bytes); returns how
 * many were written: binding off (threads may migrate), more threads than CPUs available,
 * fewer cores than threads, several threads sharing one core (naming the core and the
 * threads; all threads on one core gets its own unmissable warning), places naming CPUs
 * outside the mask, a thread that moved CPU or node during the run. The lines on too few CPUs
 * or cores name the cause: OMP_PLACES when the places cover less than the process's mask,
 * OMP_PROC_BIND=primary when it keeps every thread in one place, else the mask itself (srun
 * without -c under Slurm, taskset, numactl or a cgroup elsewhere). */
int ts_affinity_warnings(const struct ts_binding_facts *facts, const struct ts_thread_rec *rows, int n_rows,
                         char (*warnings)[512], int max);

#endif
