/* What the survey's stream and scaling sections share (app/survey_sec_stream.c,
 * app/survey_sec_scaling.c): the arrays' size by STREAM's rule, the thread counts measured, a
 * number of trials bounded by time as well as by count (an emulated machine sweeps 20-50x slower),
 * and the placement every measurement adds to its section. */
#ifndef TOUCHSTONE_APP_SURVEY_SEC_BANDWIDTH_H
#define TOUCHSTONE_APP_SURVEY_SEC_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>

#include "survey_sections.h"
#include "ts_numa_matrix.h"
#include "ts_survey_section.h"

/* The last-level cache assumed when hwloc knows none and no sweep measured it (the battery's). */
#define TS_SEC_ASSUMED_LLC ((int64_t)32 << 20)
#define TS_SEC_MAX_NODES 64
#define TS_SEC_MAX_CPUS 1024

/* The cache the sizes are past: ctx->llc_bytes, else TS_SEC_ASSUMED_LLC. */
int64_t ts_sec_llc(const struct ts_section_ctx *ctx);

/* Bytes of each array: STREAM's rule, at least 4x the last-level cache in --full, 2x in --quick
 * (smaller, still past it), times ctx->scale, at least 1 MiB, at most what n_arrays arrays may
 * take on each of the memory nodes (ts_numa_memory_cap). */
int64_t ts_sec_array_bytes(const struct ts_section_ctx *ctx, const int *mem_nodes, int n_mem, int n_arrays);

enum ts_sec_counts {
    TS_SEC_ENDS,   /* 1 and n */
    TS_SEC_POWERS, /* 1, 2, 4, ... below n, and n */
    TS_SEC_EVERY   /* 1 .. n */
};

/* Thread counts for n cores, increasing, into counts (at most max); returns how many. */
int ts_sec_thread_counts(int n, enum ts_sec_counts which, int *counts, int max);

/* Trials bounded by time: at most `trials`, fewer (at least 2) when the last measurement's pace
 * says they would take longer than `budget` seconds. */
struct ts_sec_pace {
    int trials;              /* asked */
    double budget;           /* s of timed sweeps per measurement */
    double seconds_per_byte; /* of the last sweep measured; 0: none yet */
    int reduced;             /* 1: some measurement got fewer trials than asked */
};

int ts_sec_pace_trials(struct ts_sec_pace *p, double bytes_per_sweep);
void ts_sec_pace_learn(struct ts_sec_pace *p, const struct ts_numa_bandwidth *b, double bytes_per_elem);

/* Adds b's placement to out's (the smallest fraction, misplaced when any is). */
void ts_sec_add_placement(struct ts_survey_section *out, const struct ts_numa_bandwidth *b);

/* cpus[0..n) as "0,1,2" (cut to len). */
void ts_sec_cpus_text(const int *cpus, int n, char *buf, size_t len);

/* Appends "; text" (or text) to out->note. */
void ts_sec_note(struct ts_survey_section *out, const char *text);

#endif
