/* The survey's verdict: up to nine sentences a person can paste in a ticket, each with its
 * numbers and the runs (or "matrix") they come from. Drawn only from the runs as read back
 * from their files (time_median, gbs_median, local_fraction of the runs done) and the measured
 * NUMA matrix; a group with no finished pair says nothing. */
#ifndef TOUCHSTONE_APP_SURVEY_VERDICT_H
#define TOUCHSTONE_APP_SURVEY_VERDICT_H

#include "ts_survey_rec.h"

/* Fills s->sentences and s->n_sentences from s->runs, s->matrix (when s->has_matrix) and
 * s->emulated. Sentences, in order: init, binding, scaling, memory (the matrix), policy, then
 * the sections' (app/survey_verdict_sections.h): saturation, latency at load, close cores. */
void ts_survey_verdict(struct ts_survey_rec *s);

#endif
