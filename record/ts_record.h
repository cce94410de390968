/* Everything one run writes to its HDF5 file, as plain data: the vocabulary app/, topo/ and
 * io/ share. app/ fills it (topo/ the parts it measures), io/ts_h5_write.c turns it into the
 * schema documented in docs/hdf5-schema.md. Pointers are borrowed: the record owns nothing. */
#ifndef TOUCHSTONE_RECORD_TS_RECORD_H
#define TOUCHSTONE_RECORD_TS_RECORD_H

#include <stdint.h>

/* Bump when a group, dataset or attribute changes meaning or disappears. */
/* 3: /mpi, the rank columns of /threads, /placement/thread_rank; 4: under ranks /timings holds
 * the job's times (they were rank 0's), /mpi/ranks each rank's own (its run-level columns) */
#define TS_SCHEMA_VERSION 4

/* Across ranks, the per-thread tables (/threads, /counters' rows, the thread and node rows of
 * /results and /placement) are written by the ranks themselves, each its own rows, and the
 * record on rank 0 holds none of them (its part's rows_later): only their first rows, this many,
 * which the summary shows, and the sums it takes of them. */
#define TS_RECORD_HEAD 8

/* A named string value: config keys, environment variables, binding facts. */
struct ts_attr {
    char name[96];
    char value[1024];
};

/* The machine conditions that distort results, kept in /environment under these lowercase
 * names beside the variables (topo/ts_conditions.h reads them; docs/hdf5-schema.md says what
 * each holds). compare shows those in which two runs differ. */
#define TS_N_CONDITIONS 13
#define TS_CONDITION_NAMES                                                                                             \
    {                                                                                                                  \
        "numa_balancing", "thp_enabled", "thp_defrag", "zone_reclaim_mode", "cpufreq_governor", "cpu_mhz", "smt",      \
            "smt_active", "load_average", "others_busy_percent", "cpuset", "memory_limit_mib", "numa_free_mib"         \
    }

/* The values of the schema's enumerated attributes: what a file may name, and all a reader
 * accepts (io/ts_run_read.c). The kernels are kernels/ts_kernel_table.c's, in the order of
 * enum ts_kernel_id (tests/kernels/test_kernels.c checks that they agree); the rest are the
 * writers' words (docs/hdf5-schema.md). Each list ends with NULL. */
#define TS_KERNEL_NAMES                                                                                                \
    {                                                                                                                  \
        "sum", "triad", "stencil2d", "stencil3d", NULL                                                                 \
    }
#define TS_INIT_MODES                                                                                                  \
    {                                                                                                                  \
        "parallel", "serial", NULL                                                                                     \
    }
#define TS_HUGE_PAGES_VALUES                                                                                           \
    {                                                                                                                  \
        "true", "false", NULL                                                                                          \
    }
#define TS_CACHE_TYPES                                                                                                 \
    {                                                                                                                  \
        "data", "instruction", "unified", NULL                                                                         \
    }
#define TS_MPI_THREAD_LEVELS                                                                                           \
    {                                                                                                                  \
        "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE", NULL               \
    }

struct ts_numa_rec {
    int32_t os_index;      /* node number as the OS (and numactl) calls it */
    uint64_t memory_bytes; /* local memory of the node */
    char cpus[256];        /* OS CPU numbers, list syntax "0-3,8" */
};

struct ts_core_rec {
    int32_t index;    /* hwloc logical index */
    int32_t os_index; /* core id as the OS reports it */
    int32_t package;  /* hwloc logical package index */
    int32_t numa;     /* OS index of its NUMA node, -1 unknown */
    char cpus[64];    /* OS CPU numbers of its PUs */
};

struct ts_cache_rec {
    int32_t level;       /* 1, 2, 3 ... */
    char type[16];       /* "data", "instruction", "unified" */
    uint64_t size_bytes; /* per instance */
    uint32_t line_bytes;
    int32_t count; /* instances in the machine */
};

struct ts_topology_rec {
    int32_t n_packages;
    int32_t n_cores;
    int32_t n_pus;
    int32_t n_numa;
    struct ts_numa_rec *numa; /* n_numa */
    int32_t *distances;       /* n_numa x n_numa, row-major, relative (10 = local) */
    int32_t n_cores_rec;
    struct ts_core_rec *cores; /* n_cores_rec */
    int32_t n_caches;
    struct ts_cache_rec *caches; /* n_caches, one per (level, type) */
    uint32_t cache_line_bytes;   /* the padding used for per-thread slots */
    char cache_line_source[64];  /* "hwloc L1d", "sysconf", ... */
    char hwloc_version[32];
    char thp_enabled[32]; /* /sys/kernel/mm/transparent_hugepage/enabled: always, madvise, never */
};

/* One OpenMP thread of the run: where it was bound and where it really ran. */
struct ts_thread_rec {
    int32_t thread;           /* omp_get_thread_num() */
    int32_t place;            /* omp_get_place_num(), -1 when unbound */
    char place_cpus[64];      /* CPUs of that place, "" when unbound */
    char affinity[64];        /* the thread's affinity mask as a CPU list */
    int32_t cpu_start;        /* sched_getcpu() before the first timed iteration */
    int32_t cpu_end;          /* sched_getcpu() after the last one */
    int32_t core;             /* hwloc logical core of cpu_start */
    int32_t node;             /* OS index of the NUMA node of cpu_start */
    int32_t counted_for_node; /* node whose partial this thread's partial went into */
    int64_t item_begin;       /* partition items owned: [item_begin, item_end) */
    int64_t item_end;
    int32_t rank;       /* MPI rank of the thread's process, 0 when not launched */
    int32_t local_rank; /* that rank among the ranks of its host, 0 when not launched */
    char host[64];      /* host name of the rank, "" when not launched (the root's host) */
};

/* One MPI rank of a run under a launcher (/mpi/ranks, one row per rank). */
struct ts_rank_rec {
    int32_t rank;
    int32_t local_rank; /* among the ranks of its host (MPI_COMM_TYPE_SHARED) */
    char host[64];
    char boot_id[40];                       /* its kernel's boot id: two host names on one kernel share it */
    int32_t n_threads;                      /* its threads */
    int32_t first_thread;                   /* its first row in /threads (rows are in rank order) */
    int32_t coords[3];                      /* stencils: its position in the rank grid along x, y, z; 0 otherwise */
    int64_t own_begin[3];                   /* what it owns of the global problem, [own_begin, own_end): sum and */
    int64_t own_end[3];                     /*   triad elements in [0]; stencils interior points along x, y, z */
    double partial;                         /* its partial result, rounded (its threads -> its nodes -> it) */
    double time_min, time_median, time_max; /* its seconds per timed iteration */
    double halo;                            /* seconds in the halo exchange over the timed iterations (0: sum, triad) */
    double reduction;                       /* seconds combining the partials across ranks */
    /* Its own run-level times (schema 4), as struct ts_timings_rec names them for one process;
     * under ranks /timings holds the job's, from these (docs/hdf5-schema.md, /timings). */
    double allocation, init;
    double kernel; /* the sum of its timed iterations (its row of rank_iteration) */
    double combine, result, verify, placement;
    double total; /* from its start to rank 0's writing (the starts aligned at a barrier) */
};

/* The ranks of a run under an MPI launcher (/mpi). */
struct ts_mpi_rec {
    int32_t size;                      /* ranks */
    int32_t n_hosts;                   /* distinct host names */
    int32_t shared_kernel;             /* some distinct host names share a kernel boot id: an emulated cluster */
    const char *launcher;              /* the variable that showed the launcher, "OMPI_COMM_WORLD_SIZE=4" */
    const char *library;               /* MPI_Get_library_version, its first line */
    const char *thread_level;          /* what MPI_Init_thread provided, "MPI_THREAD_FUNNELED" */
    const char *decomposition;         /* stencils: the rank grid "2x2" (x first); sum, triad: "slices" */
    const struct ts_rank_rec *ranks;   /* size rows, in rank order */
    int64_t n_iterations;              /* timed iterations (as /timings) */
    const double *rank_iteration;      /* [rank][iteration]: seconds per timed iteration on each rank */
    const double *rank_halo_iteration; /* [rank][iteration]: of which in the halo exchange */
    /* The two above left NULL, created empty: each rank writes its row (ts_h5_write_blocks),
     * so that the writer holds O(1) of them per rank; iteration_time is then what the summary
     * takes of them, the sum of every rank's measured iterations (its halo share's whole). */
    int32_t rows_later;
    double iteration_time;
};

/* One process's times; under ranks the job's: kernel the sum of iteration (each iteration's
 * slowest rank), every other phase's time and total the slowest rank's (the largest of the
 * ranks' own in struct ts_rank_rec); write and timer_resolution rank 0's. */
struct ts_timings_rec {
    double allocation; /* seconds, mapping the arrays (untouched) */
    double init;       /* first-touch initialisation */
    double kernel;     /* all timed iterations, warm-up excluded */
    double combine;    /* per-node then global combination of partials */
    double result;     /* the result pass after the last iteration (sum of u^2); 0 without one */
    double verify;
    double placement;  /* page-placement audits */
    double write;      /* assembling the file: the writer fills it from write_from; else as given, may be 0 */
    double write_from; /* CLOCK_MONOTONIC seconds when wall was taken (omp_get_wtime's clock): the writer sets
                        * write to the time from it to the file assembled in memory; 0: write as given */
    double total;      /* wall time of the whole run up to writing */
    /* Where the rest of the wall time went, from the process's start to writing the file */
    double startup;          /* process start to main (the first process's, when re-executed) */
    double reexec;           /* the binding's re-execution: the first process's main to this one's; 0 without */
    double setup;            /* main to the run's start: command line, config, binding, MPI start */
    double plan;             /* the run's start to mapping the arrays: plan, output names, topology, stack, threads */
    double checkpoint;       /* writing checkpoints: the periodic ones and the stop's */
    double finish;           /* verification (or the stop) to writing: gathers, warnings, the record, the summary */
    double wall;             /* process start to writing: the phases above, the work and what falls between */
    double timer_resolution; /* seconds, measured */
    int64_t n_warmup;
    int64_t n_iterations;
    const double *warmup;           /* n_warmup seconds */
    const double *iteration;        /* n_iterations seconds, from the barrier before to the barrier after
                                     * (under ranks each iteration's slowest rank's) */
    const double *thread_iteration; /* n_threads x n_iterations, row-major: [thread][iteration] */
    int32_t thread_iteration_later; /* thread_iteration NULL, created empty: each rank writes its rows */
};

struct ts_results_rec {
    const char *kernel; /* "sum", "triad", "stencil2d", "stencil3d" */
    const char *unit;   /* "element" or "lattice update" */
    const char *byte_model;
    const char *variant;     /* the kernel variant the config selected, in words; NULL reads as "" */
    int64_t block_y;         /* stencil3d: rows per spatial block used, 0 when unblocked */
    const char *result_name; /* what `global` is: "sum of x", "sum of u^2", ... */
    int64_t n, nx, ny, nz;   /* problem size (n for 1D kernels, grid for stencils, 0 otherwise) */
    int32_t n_threads;
    const char *init_mode;         /* "parallel" or "serial" */
    double global;                 /* the combined result */
    const double *thread_partials; /* n_threads, each thread's partial rounded to double */
    int32_t n_nodes;
    const int32_t *node_ids;     /* n_nodes, OS index of each node that had threads, ascending */
    const double *node_partials; /* n_nodes */
    int32_t rows_later;          /* the three above NULL, created empty: each rank writes its rows */
    int64_t units_per_iteration;
    double bytes_per_unit;
    double flops_per_unit;
    double time_min, time_median, time_max; /* seconds per iteration */
    double gbs_best, gbs_median;            /* GB/s = 1e9 bytes/s, from time_min and time_median */
    double gflops_best, gflops_median;
    double glups_best, glups_median; /* stencils only; NaN otherwise */
    int64_t working_set_bytes;       /* every array's bytes together */
    int64_t llc_bytes;               /* last-level cache the threads' cores may keep them in (the
                                  in-cache rule, docs/how-it-works.md); 0 when unknown */
};

struct ts_verification_rec {
    double expected;
    double observed;
    double error;
    double tolerance;
    int32_t passed;
    int64_t checked;
    int64_t failures;
    const char *method;
};

/* Where the arrays' pages were, per thread and per array, as the kernel answered (move_pages). */
struct ts_placement_rec {
    const char *measured_after;  /* "init" or "kernel" */
    const char *policy;          /* init.policy: "firsttouch", "interleave", "bind:1", ... */
    int64_t sample_stride;       /* every k-th page was asked about */
    int64_t page_size;           /* bytes per audited page: 2 MiB when every block was huge, else the base page */
    int64_t granule_bytes;       /* partition chunks start on multiples of this (bytes of one array) */
    int64_t requested_page_size; /* bytes the arrays asked for: 2 MiB when madvised huge, else the base page */
    const char *madvise;         /* applied to the arrays: "MADV_HUGEPAGE", "MADV_NOHUGEPAGE", "none", ... */
    int32_t n_nodes;
    const int32_t *node_ids; /* n_nodes: every NUMA node of the machine (the columns) */
    int32_t n_threads;
    const int32_t *thread_rank;  /* rank of each thread; NULL: all rank 0 (not launched) */
    const int32_t *thread_node;  /* node each thread ran on (its "own" node) */
    const int64_t *thread_pages; /* sampled pages of each thread's own chunk, all arrays */
    const int64_t *thread_local_pages;
    const double *thread_local_fraction; /* NaN when a thread owns no page */
    const int64_t *thread_node_pages;    /* [n_threads][n_nodes] */
    int32_t n_arrays;
    const int64_t *array_node_pages;   /* [n_arrays][n_nodes] */
    const int64_t *array_absent_pages; /* n_arrays: not present (never touched, or swapped out) */
    const int64_t *array_error_pages;  /* n_arrays: any other error move_pages reported */
    double local_fraction;             /* all threads: local pages / pages owned by some thread */
    double time;                       /* seconds the audit took */
    /* The thread_* arrays NULL, created empty: each rank writes its threads' rows; what the
     * summary takes of them instead: the pages of every thread's chunk (the sum of
     * thread_pages), each of the first ranks' own local fraction (its local pages over its
     * pages, 0 without any), n_ranks_head of them. */
    int32_t rows_later;
    int64_t pages;
    double rank_local_fraction[TS_RECORD_HEAD];
    int32_t n_ranks_head;
    int64_t pages_moved; /* end audit: sampled pages on another node than the first audit
                                        * found them, at least (ts_placement_moved); -1: not compared */
};

/* One thread's counters over one phase, from the kernel (getrusage(RUSAGE_THREAD), perf). */
struct ts_counter_row {
    int64_t minor_faults;
    int64_t major_faults;
    int64_t voluntary_switches;
    int64_t involuntary_switches;
    int64_t migrations; /* -1 when perf_event_open is not allowed */
    /* The thread's CPU time, s: in user space, and in the kernel on its behalf (page faults:
     * zeroing and mapping the pages it first touches). NaN when getrusage failed. */
    double user_time, system_time;
    /* Seconds the thread was ready to run but waited for a CPU (the scheduler's run delay,
     * /proc/thread-self/schedstat): what other work on its CPU cost it. NaN when unreadable. */
    double wait_time;
};

/* What the machine did while the iterations ran (warm-up included: the span of the kernel
 * counters), over the CPUs the run's threads may use. Seconds; busy and steal come from
 * /proc/stat, which counts in clock ticks. */
struct ts_machine_rec {
    char cpus[256];              /* the CPUs watched, list syntax */
    int32_t n_cpus;              /* how many */
    int32_t online_cpus;         /* CPUs the machine has online */
    double elapsed;              /* wall time of the interval */
    double own_cpu;              /* this process's user + system time (getrusage(RUSAGE_SELF)) */
    double busy;                 /* non-idle time of those CPUs: user, nice, system, irq, softirq */
    double others_cpu;           /* busy - own_cpu, at least 0: other processes' time on them */
    double steal;                /* time a hypervisor gave to other guests while those CPUs wanted to run */
    double clock_tick;           /* resolution of busy and steal (1 / USER_HZ) */
    double load_start, load_end; /* 1-minute load average (/proc/loadavg) at both ends */
};

/* What the kernel's memory management did while the arrays were first touched (from just
 * before the first touch to just after it), so that an init slowed by the machine can be told
 * from one slowed by placement (docs/how-it-works.md, "Init time: the machine's or the
 * configuration's"). The counts are /proc/vmstat's, which counts every process on the machine:
 * other processes' events during the interval are in them too. A count is -1 when this
 * kernel's /proc/vmstat has no such line. */
struct ts_init_memory_rec {
    double elapsed;                        /* wall time of the interval, s */
    int64_t thp_fault_alloc;               /* huge pages a page fault allocated */
    int64_t thp_fault_fallback;            /* page faults that wanted a huge page and fell back to base pages */
    int64_t thp_fault_fallback_charge;     /* of them, because the cgroup's memory limit was reached (Linux 5.8) */
    int64_t compact_stall;                 /* allocations that stalled to compact memory (direct compaction) */
    int64_t compact_fail, compact_success; /* how those compactions ended */
    int64_t allocstall;                    /* allocations that stalled to reclaim memory (allocstall_* together) */
    int64_t pgfault, pgmajfault;           /* page faults, and of them those that waited for I/O */
    double memory_stall; /* s during which some task waited on memory (reclaim, compaction, thrashing):
                          * /proc/pressure/memory "some" total; -1 when the kernel has no PSI */
};

/* What the summary takes of every thread's counters (ts_summary.c), when the ranks write the rows. */
struct ts_counter_sums {
    int64_t init_faults; /* minor and major page faults during the first touch */
    int64_t involuntary; /* involuntary switches over the iterations */
    int64_t migrations;  /* migrations over the iterations, of the threads that could count them */
    double touch_system; /* system CPU time of the threads that touched (every rank's first one, serial init) */
    double touch_span;   /* their user and system CPU time */
    double wait;         /* s, the threads' wait for a CPU over the iterations; NaN when one's is not known */
};

struct ts_counters_rec {
    int32_t n_threads;
    const struct ts_counter_row *init;   /* n_threads, over first-touch initialisation */
    const struct ts_counter_row *kernel; /* n_threads, over all iterations, warm-up included */
    /* init and kernel hold the first min(n_threads, TS_RECORD_HEAD) rows only, the ranks write
     * every row (created empty), and sums is what the summary takes of them all */
    int32_t rows_later;
    struct ts_counter_sums sums;
    const char *migrations_source;        /* "perf_event_open (software event)" or why not */
    const struct ts_machine_rec *machine; /* NULL when /proc/stat or /proc/loadavg could not be read */
    /* The same over the first touch (NULL when not read): steal and others' CPU during init, and
     * what the kernel's memory management did then (/proc/vmstat unreadable: NULL). */
    const struct ts_machine_rec *init_machine;
    const struct ts_init_memory_rec *init_memory;
};

/* The batch job the run belonged to (all "" outside Slurm) and whether it was restarted. */
struct ts_job_rec {
    int32_t under_slurm;          /* SLURM_JOB_ID was set */
    const char *job_id;           /* SLURM_JOB_ID */
    const char *array_job_id;     /* SLURM_ARRAY_JOB_ID */
    const char *array_task_id;    /* SLURM_ARRAY_TASK_ID */
    const char *node_list;        /* SLURM_JOB_NODELIST */
    const char *cpus_on_node;     /* SLURM_CPUS_ON_NODE */
    const char *cpus_per_task;    /* SLURM_CPUS_PER_TASK */
    const char *partition;        /* SLURM_JOB_PARTITION */
    const char *restart_count;    /* SLURM_RESTART_COUNT (requeues) */
    const char *cpu_mask;         /* the CPUs the process was given, as it saw them at start */
    int32_t restarted;            /* continued from a checkpoint */
    const char *restarted_from;   /* that checkpoint's path, "" when not restarted */
    int64_t steps_before_restart; /* iterations (warm-up included) the checkpoint held */
};

/* The build that wrote the file, root attributes build_*: what `touchstone --version` prints,
 * from the same place (app/build_info.c). */
struct ts_build_rec {
    const char *commit;   /* the commit the build was configured from, "unknown" without git */
    const char *compiler; /* "GCC 12.2.0" */
    const char *openmp;   /* "4.5 (_OPENMP 201511)" */
    const char *mpi;      /* the MPI library, the first line of MPI_Get_library_version */
    const char *hdf5;     /* the HDF5 the writer was compiled against, "1.10.8 (parallel)" */
};

struct ts_record {
    /* root attributes */
    const char *program_version;
    const struct ts_build_rec *build; /* NULL: none written (a test's record) */
    const char *command_line;
    const char *host;
    const char *start_time; /* ISO 8601, UTC */
    int32_t complete;       /* 0 when a signal stopped the run early (a checkpoint holds the rest) */
    int64_t steps_done;     /* iterations done, warm-up included */
    int64_t steps_planned;  /* warm-up + timed iterations asked for */

    const struct ts_job_rec *job; /* /job */

    /* /config: every resolved key as an attribute, plus the file text */
    const struct ts_attr *config;
    int32_t n_config;
    const char *config_path;
    const char *config_text;
    const char *config_overrides; /* the --set arguments, one per line; "" for none */

    /* /environment */
    const struct ts_attr *environment;
    int32_t n_environment;

    /* /threads attributes: effective OMP_PLACES, OMP_PROC_BIND, their source, ... */
    const struct ts_attr *binding;
    int32_t n_binding;

    const struct ts_topology_rec *topology;

    const struct ts_thread_rec *threads; /* every thread of every rank, in rank order */
    int32_t n_threads;
    int32_t threads_later; /* threads holds the first min(n_threads, TS_RECORD_HEAD) rows, for the
                            * summary; /threads/table is created empty, each rank writes its rows */

    /* /mpi: NULL when no MPI launcher started the run */
    const struct ts_mpi_rec *mpi;

    const struct ts_timings_rec *timings;
    const struct ts_results_rec *results;

    /* /placement (NULL when placement.audit = false) and /placement/end (placement.at_end) */
    const struct ts_placement_rec *placement;
    const struct ts_placement_rec *placement_end;

    /* /counters (NULL when not measured) */
    const struct ts_counters_rec *counters;
    const struct ts_verification_rec *verification;

    /* /field, written only when field != NULL (output.write_field = true on a stencil), or when
     * field_later: created empty, the ranks write their blocks (ts_h5_write_blocks) */
    const double *field;
    int field_later;
    int64_t field_dims[3]; /* nz, ny, nx */

    /* /warnings: what the run warned about, in the order printed */
    const char *const *warnings;
    int32_t n_warnings;

    /* /summary: the lines of the summary the run printed at the end, without newlines */
    const char *const *summary;
    int32_t n_summary;
};

#endif
