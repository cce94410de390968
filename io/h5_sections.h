/* The survey file's /sections (format 3, issue 26), internal to ts_io: each survey section
 * (record/ts_survey_section.h) as a group of attributes, one dataset per column, and its plots
 * and facts as small tables; docs/survey.md "The survey file" describes every item. */
#ifndef TOUCHSTONE_IO_H5_SECTIONS_H
#define TOUCHSTONE_IO_H5_SECTIONS_H

#include <stddef.h>

#include "h5_reader.h"
#include "h5_util.h"
#include "ts_survey_rec.h"

/* Most sections a survey file may hold: far above the six the survey measures. */
#define TS_SURVEY_MAX_SECTIONS 32

/* NULL when s->sections[0..n_sections) add up (ts_section_check, names distinct), else why not
 * (why, size bytes, receives the detail). */
const char *h5_sections_problem(const struct ts_survey_rec *s, char *why, size_t size);

/* Writes /sections under file (always, empty without sections); nonzero after filling w->err. */
int h5_sections_write(struct h5w *w, hid_t file, const struct ts_survey_rec *s);

/* Reads /sections into s->n_sections, s->sections (allocated: ts_survey_free), every value
 * checked as the rest of the file: TS_BAD_INPUT naming the item, TS_RESOURCE_ERROR. */
int h5_sections_read(struct h5r *r, struct ts_survey_rec *s);

#endif
