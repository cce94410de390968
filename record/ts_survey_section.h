/* A section of the survey (issue 26): one measurement of the node's memory system beside the
 * battery and the NUMA matrix: STREAM's four kernels, the working-set sweep, bandwidth scaling in
 * a domain, the loaded-latency curve, read/write mixes, core-to-core latency. Each is a table:
 * named columns of numbers or short texts, one row per measured point, with the conditions it ran
 * under, the command that measures it again, what it concluded (facts the verdict and the battery
 * read by key) and how the report draws it. app/ fills it (app/survey_sections.h), io/ builds,
 * writes it to survey.h5 (/sections/NAME) and reads it back (io/ts_section.h). */
#ifndef TOUCHSTONE_RECORD_TS_SURVEY_SECTION_H
#define TOUCHSTONE_RECORD_TS_SURVEY_SECTION_H

#include <stdint.h>

#define TS_SECTION_MAX_COLUMNS 24
#define TS_SECTION_MAX_PLOTS 4
#define TS_SECTION_MAX_FACTS 12
#define TS_SECTION_TEXT 64 /* bytes of one text cell, its NUL included */
#define TS_SECTION_MAX_ROWS 1048576

/* One column: numbers (NaN: not measured) or texts, n_rows of them. */
struct ts_section_column {
    char name[32];   /* a C identifier: "bytes", "gbs", "kernel", "cpu_a" */
    char unit[16];   /* "B", "GB/s", "MB/s", "ns", "s"; "" for counts, indices and labels */
    int32_t is_text; /* 1: text holds the values; 0: num */
    double *num;
    char (*text)[TS_SECTION_TEXT];
};

/* How the report draws the table (inline SVG, as its other plots). */
enum ts_section_plot_kind {
    TS_SECTION_LINES, /* y against x, one curve per distinct value of series ("" one curve) */
    TS_SECTION_BARS,  /* y for each x (a label), grouped by series */
    TS_SECTION_HEAT   /* a matrix: x the column, y the row, value the colour */
};

struct ts_section_plot {
    int32_t kind; /* enum ts_section_plot_kind */
    char title[128];
    char x[32], y[32]; /* column names */
    char series[32];   /* LINES, BARS: the column that splits rows into curves or groups; "" none */
    char value[32];    /* HEAT: the column coloured */
    int32_t log_x;     /* LINES: a logarithmic x axis (sizes from 16 KiB to 8x the LLC) */
    /* HEAT: columns naming each row's and each column's domains, outermost first, comma
     * separated ("node_a,l3_a,core_a"): a line is drawn where a domain changes along the axis,
     * the thicker the outer, so that SMT siblings, core complexes and sockets show. */
    char boundaries[128];
};

/* A conclusion by key, for the verdict ("saturation_cores"), the battery ("llc_bytes") and the
 * summary. */
struct ts_section_fact {
    char key[32];
    double value; /* NaN: could not be concluded (the note says why) */
    char unit[16];
};

struct ts_survey_section {
    char name[32];          /* "stream", "sweep", "scaling", "loaded_latency", "mixes", "c2c" */
    char title[128];        /* a heading for the report */
    char command[1024];     /* the exact command that measures this section again, alone */
    char conditions[1024];  /* THP, NUMA balancing, governor and clock, load, others' share while
                              it ran: "thp=madvise; numa_balancing=0; ..." */
    char summary[512];      /* one line for the text summary: "peak 24.1 GB/s; 90% at 1 core" */
    char note[512];         /* why something is NaN or marked; "" when nothing to say */
    double seconds;         /* how long it took */
    double placed_fraction; /* the smallest fraction of any of its buffers' pages found on the
                               node asked for (move_pages); NaN: no memory placement involved */
    int32_t misplaced;      /* 1: some buffer was not all where asked: its rows are marked */
    int32_t disturbed;      /* 1: other processes took its CPUs while it ran, 0 no, -1 unknown */
    int32_t n_rows, n_cols;
    struct ts_section_column cols[TS_SECTION_MAX_COLUMNS];
    int32_t n_plots;
    struct ts_section_plot plots[TS_SECTION_MAX_PLOTS];
    int32_t n_facts;
    struct ts_section_fact facts[TS_SECTION_MAX_FACTS];
};

#endif
