/* Building a survey section (record/ts_survey_section.h) and freeing it: columns declared
 * first, then the rows allocated at once (numbers NaN, texts ""), then cells set by row. The
 * writer and reader of survey.h5 (io/ts_survey_file.h) hold sections built here. */
#ifndef TOUCHSTONE_IO_TS_SECTION_H
#define TOUCHSTONE_IO_TS_SECTION_H

#include "ts_error.h"
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

/* Frees the columns' values and empties s. */
void ts_section_free(struct ts_survey_section *s);

#endif
