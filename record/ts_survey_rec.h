/* A survey (`touchstone survey`, issue 16) as plain data: the battery of runs it made (each a
 * normal run file in the survey's folder), the NUMA matrix it measured, and the verdict drawn
 * from both. app/ fills it (the matrix from topo/ts_numa_matrix.h), io/ writes it to the
 * survey file (survey.h5, which indexes the run files) and reads it back for the report.
 * Pointers are owned by whoever allocated them (ts_survey_free for one read back). */
#ifndef TOUCHSTONE_RECORD_TS_SURVEY_REC_H
#define TOUCHSTONE_RECORD_TS_SURVEY_REC_H

#include <stdint.h>

#include "ts_survey_section.h"

/* Bump when a group, dataset or attribute of the survey file changes meaning or disappears. */
#define TS_SURVEY_FORMAT 2

/* What a battery run answers; the report draws one section per group. */
enum ts_survey_group {
    TS_SURVEY_INIT,    /* parallel vs serial first touch, same everything else */
    TS_SURVEY_BINDING, /* close, spread, unbound, stacked */
    TS_SURVEY_SCALING, /* 1, 2, 4, ... all cores */
    TS_SURVEY_POLICY,  /* firsttouch vs interleave */
    TS_SURVEY_N_GROUPS
};
#define TS_SURVEY_GROUP_NAMES                                                                                          \
    {                                                                                                                  \
        "init", "binding", "scaling", "policy"                                                                         \
    }

/* Where a battery run stands. */
enum ts_survey_state {
    TS_SURVEY_PENDING, /* not run yet (an interrupted survey) */
    TS_SURVEY_DONE,    /* ran, verified, its file read back */
    TS_SURVEY_FAILED   /* ran and failed (exit status and message kept) */
};
#define TS_SURVEY_STATE_NAMES                                                                                          \
    {                                                                                                                  \
        "pending", "done", "failed"                                                                                    \
    }

struct ts_survey_run {
    char name[64];      /* unique, also the file's stem: "stencil2d-init-serial-t2" */
    char file[256];     /* relative to the survey folder: "runs/stencil2d-init-serial-t2.h5" */
    int32_t group;      /* enum ts_survey_group */
    char kernel[32];    /* sum, triad, stencil2d, stencil3d */
    char variant[64];   /* what differs within the group: "parallel", "serial", "close", "spread",
                           "unbound", "stacked", "firsttouch", "interleave", "threads=4" */
    int32_t threads;    /* OMP_NUM_THREADS of the run */
    char command[1024]; /* the exact command line that reproduces it (environment included) */
    int32_t state;      /* enum ts_survey_state */
    int32_t exit_status;
    double seconds; /* wall time of the run, s; NaN when pending */
    /* From its file (NaN when not done): what the report and the verdict compare. */
    double time_median; /* s per iteration */
    double gbs_median;
    double local_fraction; /* pages on the node of the thread that owns them */
    /* Format 2: each point of the battery runs repeat times, interleaved (docs/survey.md). */
    int32_t repeat; /* 1 .. ts_survey_rec.repeats: which run of its point */
    /* Whether other work took its CPUs (common/ts_disturbed.h, as compare judges): 1 yes, 0 no,
     * -1 not known (also while not done); why gives each reason with its number. */
    int32_t disturbed;
    char disturbed_why[600];
    double others_share; /* other processes' share of the CPUs' time while it ran; NaN: unknown */
    double load_excess;  /* load average beyond its own threads; NaN: unknown */
};

/* One cell of the NUMA matrix: memory of mem_node used by the threads of cpu_node. A number
 * whose buffer's pages were not all on mem_node is kept but marked (misplaced, fraction). */
struct ts_survey_cell {
    int32_t cpu_node, mem_node; /* OS indices */
    int32_t threads;            /* bandwidth threads (one per core of cpu_node) */
    char cpus[256];             /* their CPUs */
    double latency_ns;          /* idle, 4 KiB pages, median of the repetitions; NaN: not measured */
    double latency_huge_ns;     /* idle, 2 MiB pages; NaN when not granted or not measured */
    double latency_loaded_ns;   /* while the cell's other threads stream; NaN with one thread */
    double read_gbs, triad_gbs; /* median; NaN: not measured */
    double fraction;            /* the smallest fraction of a buffer's pages found on mem_node */
    int32_t misplaced;          /* 1: some buffer was not all on mem_node: the cell is marked */
    int32_t huge_granted;       /* 2 MiB pages asked and every block got one */
    char note[256];             /* why something is NaN or marked; "" when nothing to say */
};

struct ts_survey_matrix {
    int32_t n_cpu_nodes, n_mem_nodes;
    int32_t *cpu_nodes, *mem_nodes; /* OS indices */
    struct ts_survey_cell *cell;    /* [n_cpu_nodes][n_mem_nodes], row by CPU node */
    int64_t chase_bytes, stream_bytes;
    int64_t llc_bytes;
    char byte_model_read[128], byte_model_triad[128];
    int32_t misplaced_cells;
};

/* One sentence of the verdict, and the runs (or "matrix") its numbers come from. */
struct ts_survey_sentence {
    char text[1024];
    char sources[1024]; /* run names, comma separated; "matrix" for the NUMA matrix */
};

#define TS_SURVEY_MAX_SENTENCES 10

struct ts_survey_rec {
    int32_t format;           /* TS_SURVEY_FORMAT */
    char mode[16];            /* "quick", "full" */
    char command[1024];       /* the survey's own command line */
    char program_version[64]; /* touchstone's */
    char host[256];
    char start_time[64]; /* ISO 8601 UTC of the first start (kept across resumes) */
    int32_t complete;    /* 1 when every run is done or failed and the matrix measured */
    int32_t emulated;    /* 1 on a machine whose timings mean nothing (a VM under emulation) */
    char emulated_why[256];
    int32_t repeats;     /* runs of each point of the battery (3; TOUCHSTONE_SURVEY_REPEATS in tests) */
    int64_t array_bytes; /* the size the battery chose, and why */
    char size_reason[256];
    int32_t n_runs;
    struct ts_survey_run *runs;
    int32_t has_matrix;
    struct ts_survey_matrix matrix;
    int32_t n_sentences;
    struct ts_survey_sentence sentences[TS_SURVEY_MAX_SENTENCES];
    /* The sections measured (issue 26), in app/survey_sections.c's order; one the mode does not
     * run, or a stop left unmeasured, is absent. */
    int32_t n_sections;
    struct ts_survey_section *sections;
};

#endif
