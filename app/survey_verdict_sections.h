/* The verdict's sentences drawn from the survey's sections (issue 26): the lines a user acts on
 * about the memory system. How many cores a NUMA domain needs for bandwidth-bound work (the
 * scaling section), what memory costs in latency at load, remote against local (the loaded-
 * latency curve), and which cores are close to which (core-to-core latency). A section measured
 * while other work took the CPUs, or on a node too busy to judge the runs, is not judged: its
 * sentence says so. */
#ifndef TOUCHSTONE_APP_SURVEY_VERDICT_SECTIONS_H
#define TOUCHSTONE_APP_SURVEY_VERDICT_SECTIONS_H

#include <stddef.h>

#include "ts_survey_rec.h"

enum ts_section_sentence {
    TS_SENTENCE_SATURATION,
    TS_SENTENCE_LOADED_LATENCY,
    TS_SENTENCE_CLOSE_CORES,
    TS_N_SECTION_SENTENCES
};

/* Fills t (text and sources: "section:NAME") with sentence which, from the sections of s;
 * returns 0 (t untouched) when s holds no measurement of that section or it concluded nothing.
 * busy: the runs found the node too busy to judge; the sentence then judges nothing either. */
int ts_survey_section_sentence(const struct ts_survey_rec *s, enum ts_section_sentence which, int busy,
                               struct ts_survey_sentence *t);

/* Appends printf-style text to the NUL-terminated buf of size bytes, cut at its end: the
 * sentences of both verdict files are built this way. */
void ts_verdict_addf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
