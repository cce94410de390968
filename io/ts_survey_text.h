/* The survey's sections as text (issue 26): every field for `touchstone survey --dump`, and the
 * few lines the end-of-survey summary prints of each. app/survey_cmd.c calls both on a record
 * read back (io/ts_survey_file.h) or just measured. */
#ifndef TOUCHSTONE_IO_TS_SURVEY_TEXT_H
#define TOUCHSTONE_IO_TS_SURVEY_TEXT_H

#include <stdio.h>

#include "ts_survey_rec.h"

/* --dump's lines of s->sections, one field per line as the rest of --dump ("n_sections N", then
 * per section its attributes, columns, plots, facts and rows): lines that start with "measured"
 * hold what changes from one survey to the next (numbers, summary, note, conditions, cells),
 * the others the sections' structure (names, units, plots, the command). */
void ts_survey_dump_sections(FILE *out, const struct ts_survey_rec *s);

/* The summary's part: a heading, then per section its title with MISPLACED and DISTURBED marks,
 * its summary line, its note when there is one, and the command that measures it again.
 * Nothing when the survey has no sections. */
void ts_survey_print_sections(FILE *out, const struct ts_survey_rec *s);

#endif
