/* A run file read back, for compare, report and plot: what they need of it, every value
 * validated against the schema (docs/hdf5-schema.md) by h5_reader.h. */
#ifndef TOUCHSTONE_IO_TS_RUN_READ_H
#define TOUCHSTONE_IO_TS_RUN_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_record.h"

/* The newest schema_version this reader understands; newer files are refused. */
#define TS_READ_SCHEMA_VERSION 4

/* Most values one timing dataset may hold (2 GiB of doubles): a bound on what a file can
 * make the reader allocate, far above any real run's threads x iterations. */
#define TS_READ_MAX_VALUES ((int64_t)1 << 28)

/* Most strings read from /warnings or /summary, and most bytes kept of each: a run writes
 * at most 64 warnings of 512 bytes and a summary of about 20 lines. */
#define TS_READ_MAX_LINES 1024
#define TS_READ_MAX_LINE 4096

/* What a file turned out to be, also when it could not be read as a run. */
enum ts_file_kind {
    TS_FILE_RUN,        /* a touchstone run file (maybe a broken one) */
    TS_FILE_CHECKPOINT, /* a touchstone checkpoint (root attribute touchstone_checkpoint) */
    TS_FILE_FOREIGN,    /* HDF5 without schema_version and without /results: not ours */
    TS_FILE_UNREADABLE  /* missing, not HDF5, or not openable */
};

struct ts_run_summary {
    enum ts_file_kind kind;
    char file[1024]; /* as named by the user */
    int32_t schema_version;
    int32_t complete; /* root @complete; 1 in files older than checkpoints */
    char program_version[64];
    char host[256];
    char start_time[64];    /* ISO 8601 UTC */
    char config_path[1024]; /* /config@file */
    char kernel[32];
    char init_mode[32];    /* /results@init_mode: parallel, serial */
    char policy[64];       /* /config@init.policy */
    char places[256];      /* /threads@OMP_PLACES, the effective value */
    char proc_bind[64];    /* /threads@OMP_PROC_BIND */
    int64_t n, nx, ny, nz; /* problem size as in /results */
    int32_t n_threads;
    int64_t n_iterations;
    int64_t n_warmup;
    double init_time;                       /* s, /timings/init */
    double *iteration;                      /* n_iterations, s */
    double *thread_iteration;               /* n_threads x n_iterations, s, [thread][iteration] */
    double time_min, time_median, time_max; /* s per iteration, as /results stores them */
    double gbs_best, gbs_median;
    double glups_best, glups_median; /* NaN when absent (not a stencil) */
    double global;                   /* /results/global */
    int has_placement;
    double local_fraction;         /* /placement/local_fraction; NaN without an audit */
    double *thread_local_fraction; /* n_threads, NULL without an audit; NaN: owns no page */
    int32_t verified;              /* /verification@passed */
    int64_t n_warnings;            /* length of /warnings: binding trouble, short iterations, ... */
    /* The warnings as run printed them, joined by '\n' (NULL when none); warning_bytes
     * counts the terminating NUL. */
    char *warning_text;
    size_t warning_bytes;

    /* Since schema 2 (absent from older files: NULL, 0, "" or NaN as noted) */
    char *summary;        /* /summary: the lines run printed at the end, joined by '\n'; NULL before schema 2 */
    size_t summary_bytes; /* with the NUL */
    int64_t n_summary;    /* its lines */
    int has_machine;      /* /counters/machine was read into machine */
    struct ts_machine_rec machine;

    /* Read from every schema, "" or NaN when the file has no such item */
    /* The build that wrote the file, as its --version said (root build_*: commit, compiler,
     * OpenMP, the MPI and HDF5 libraries); "" in files written before them */
    char build_commit[128], build_compiler[128], build_openmp[48], build_mpi[256], build_hdf5[64];
    char job_id[160];              /* /job@job_id; in an array "<array_job_id>_<array_task_id>" */
    char variant[160];             /* /results@variant: the kernel variant in words */
    char huge_pages[16];           /* /config@init.huge_pages */
    double kernel_time;            /* s, /timings/kernel */
    double involuntary, voluntary; /* context switches of all threads over the iterations (/counters/kernel) */
    double wait;                   /* s, all threads waited for a CPU then; NaN: not recorded */
    double working_set_bytes;      /* /results@working_set_bytes (schema 2): every array's bytes */
    /* /counters/init and /counters/kernel, n_threads rows each (NULL without /counters);
     * user_time and system_time NaN in files written before those columns */
    struct ts_counter_row *init_counters, *kernel_counters;
    char conditions[TS_N_CONDITIONS][256]; /* /environment's machine conditions, TS_CONDITION_NAMES order */
    /* The first touch (files before them lack both): what else ran on the run's CPUs, and what
     * the kernel's memory management did (memory_stall -1 when not measured) */
    int has_init_machine; /* /counters/init_machine was read into init_machine */
    struct ts_machine_rec init_machine;
    int has_init_memory; /* /counters/init_memory was read into init_memory */
    struct ts_init_memory_rec init_memory;

    /* Since schema 3: the ranks of a run an MPI launcher started (/mpi). n_ranks is 0 and the
     * arrays NULL without /mpi (not launched, or a file of schema 1 or 2): one process, every
     * thread rank 0 on the root's host. Rank r's threads are rows ranks[r].first_thread to
     * first_thread + n_threads - 1 of the per-thread arrays; its times per iteration (min,
     * median, max), its halo seconds, host and local rank are in ranks[r]. */
    int32_t n_ranks;
    int32_t n_hosts;       /* distinct host names among the ranks */
    int32_t shared_kernel; /* some of those hosts share one kernel (an emulated cluster) */
    char launcher[256];    /* /mpi@launcher, "OMPI_COMM_WORLD_SIZE=4" */
    char mpi_library[256]; /* /mpi@library */
    char thread_level[64]; /* /mpi@thread_level */
    char decomposition[64];
    struct ts_rank_rec *ranks;   /* n_ranks rows of /mpi/ranks */
    double *rank_iteration;      /* n_ranks x n_iterations, s, [rank][iteration]; NaN: not measured */
    double *rank_halo_iteration; /* of which in the halo exchange */

    /* Where the run ran, for the HTML report (io/ts_html.h); read from every schema, empty
     * ("", 0, NULL) when the file lacks the item. */
    char command_line[1024];         /* /@command_line: the command as typed */
    struct ts_topology_rec topology; /* /topology: counts, numa_nodes, distances, cores, caches (owned) */
    struct ts_thread_rec *threads;   /* n_threads rows of /threads/table: bound where, ran where (rank,
                                        local_rank and host as /mpi says; "" host before schema 3) */
    int32_t n_place_nodes;           /* /placement/node_ids: the columns of thread_node_pages */
    int32_t *place_node_ids;         /* OS node numbers, ascending */
    int64_t *thread_node_pages;      /* n_threads x n_place_nodes, [thread][node]: sampled pages */
};

/* Reads and validates the run file at path. On failure everything is freed, err names the
 * file and the path inside it, and out->kind still says what the file turned out to be. */
int ts_run_read_file(const char *path, struct ts_run_summary *out, struct ts_error *err);

/* The same for a file image in memory (n bytes, copied); name appears in messages. */
int ts_run_read_image(const void *bytes, size_t n, const char *name, struct ts_run_summary *out, struct ts_error *err);

/* HDF5 1.10 can crash or loop forever on corrupted files (its global heap), which no check in
 * front of it can prevent. These read in a child process, stopped after `seconds`, and turn a
 * crash or a hang there into TS_BAD_INPUT ("FILE: HDF5 crashed reading it ..."); commands
 * read files this way. TS_RESOURCE_ERROR when the child cannot be started (pipe, fork). */
typedef int ts_run_reader(const void *ctx, struct ts_run_summary *out, struct ts_error *err);

/* What an isolated read may take: seconds before it is stopped, and bytes of memory beyond what
 * the process held when it began (0: no memory limit). */
struct ts_read_limits {
    unsigned seconds;
    uint64_t bytes;
};
int ts_run_read_isolated(ts_run_reader *reader, const void *ctx, const char *name, struct ts_read_limits limits,
                         struct ts_run_summary *out, struct ts_error *err);
int ts_run_read_file_isolated(const char *path, struct ts_run_summary *out, struct ts_error *err);

/* The same for a check that returns only a status and err (a checkpoint read into scratch
 * before the real restore). */
typedef int ts_read_check(const void *ctx, struct ts_error *err);
int ts_read_check_isolated(ts_read_check *check, const void *ctx, const char *name, struct ts_read_limits limits,
                           struct ts_error *err);

/* The limits of an isolated read of the file at path (TOUCHSTONE_READ_TIMEOUT and
 * TOUCHSTONE_READ_MEMORY_MB override them). */
struct ts_read_limits ts_read_limits_of(const char *path);

void ts_run_summary_free(struct ts_run_summary *s);

/* "4096 x 4096" for grids, "50000000" for 1D kernels. */
void ts_run_size_text(const struct ts_run_summary *s, char *buf, size_t size);

#endif
