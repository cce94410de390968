/* Building a survey section (record/ts_survey_section.h) and freeing it: columns declared
 * first, then the rows allocated at once (numbers NaN, texts ""), then cells set by row. The
 * writer and reader of survey.h5 (io/ts_survey_file.h) hold sections built here. */
#ifndef TOUCHSTONE_IO_TS_SECTION_H
#define TOUCHSTONE_IO_TS_SECTION_H

#include <stddef.h>

#include <stdint.h>

#include "ts_error.h"
#include "ts_survey_rec.h"
#include "ts_survey_section.h"

/* Empties s and names it (name a C identifier, as TS_SECTION names in docs/survey.md). */
void ts_section_init(struct ts_survey_section *s, const char *name, const char *title);

/* Declares a column of numbers (ts_section_num) or texts (ts_section_text) before the rows are
 * allocated; returns its index, or -1 when the table is full, rows already allocated or the name
 * is not an identifier or already taken (a programming error: TS_INTERNAL_ERROR in err). */
int ts_section_num(struct ts_survey_section *s, const char *name, const char *unit, struct ts_error *err);
int ts_section_text(struct ts_survey_section *s, const char *name, struct ts_error *err);

/* Allocates n_rows rows of every declared column (numbers NaN, texts ""). TS_RESOURCE_ERROR
 * without memory, TS_INTERNAL_ERROR past TS_SECTION_MAX_ROWS or called twice. */
int ts_section_rows(struct ts_survey_section *s, int n_rows, struct ts_error *err);

/* Sets a cell; col and row out of range, or a column of the other kind, are ignored. */
void ts_section_set(struct ts_survey_section *s, int col, int row, double v);
void ts_section_set_text(struct ts_survey_section *s, int col, int row, const char *text);

/* A column by name: its index, or -1. */
int ts_section_column(const struct ts_survey_section *s, const char *name);

/* Adds a plot or a fact (ignored past TS_SECTION_MAX_PLOTS or TS_SECTION_MAX_FACTS). */
struct ts_section_plot *ts_section_add_plot(struct ts_survey_section *s, int kind, const char *title, const char *x,
                                            const char *y);
void ts_section_set_fact(struct ts_survey_section *s, const char *key, double value, const char *unit);

/* A fact by key: its value, NaN when absent. */
double ts_section_fact(const struct ts_survey_section *s, const char *key);

/* Whether s adds up as a survey file holds it (docs/survey.md, "The survey file"): its name and
 * every column's and fact's key an identifier, each once; counts within TS_SECTION_MAX_*; every
 * column's values allocated when there are rows; each plot a known kind naming existing columns
 * (x and y; series, or value and boundaries for a heat map); flags and fractions in range. 0 when
 * it does, else -1 with the first reason in why (size bytes). The writer and the reader of
 * survey.h5 both ask, and a section's own tests can. */
int ts_section_check(const struct ts_survey_section *s, char *why, size_t size);

/* The section of survey s named name, or NULL. */
struct ts_survey_section *ts_survey_section_of(const struct ts_survey_rec *s, const char *name);

/* The sweep's inferred last-level cache in s (fact llc_bytes of section "sweep"), bytes; 0 when
 * s has no sweep, it found none, or it was not sure of it (fact llc_sure: every level named on
 * both curves, their last-level caches within 2x of each other). */
int64_t ts_survey_inferred_llc(const struct ts_survey_rec *s);

/* Frees the columns' values and empties s. */
void ts_section_free(struct ts_survey_section *s);

#endif
