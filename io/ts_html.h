/* The HTML report (issue 16): one self-contained file (no network: its CSS, script and pictures
 * are inline) of a survey or of any set of runs, readable on a phone and printable. Its
 * sections, each a <section id="..."> in this order and always present (saying why when
 * empty), are the contract with the browser test and docs/reading-the-report.md: verdict,
 * node, placement, init, binding, scaling, matrix, sections (the survey's sections,
 * io/html_sections.c), threads, conditions, commands. Every text from a file is HTML-escaped;
 * each run has an anchor id="run-NAME" in commands. */
#ifndef TOUCHSTONE_IO_TS_HTML_H
#define TOUCHSTONE_IO_TS_HTML_H

#include <stddef.h>

#include "ts_error.h"
#include "ts_run_read.h"
#include "ts_survey_rec.h"

/* The section ids, in order. */
#define TS_HTML_N_SECTIONS 11
#define TS_HTML_SECTIONS                                                                                               \
    {                                                                                                                  \
        "verdict", "node", "placement", "init", "binding", "scaling", "matrix", "sections", "threads", "conditions",   \
            "commands"                                                                                                 \
    }

/* Builds the report in memory: *html (malloc'd, NUL-terminated) and *size its bytes without the
 * NUL. survey is NULL for a plain set of runs (runs[0..n_runs), each read by ts_run_read_file);
 * for a survey, runs holds survey->n_runs summaries in survey->runs order, one that was not
 * read (a pending or failed run: n_threads 0, e.g. zeroed) shown as such. TS_RESOURCE_ERROR
 * when memory runs out, TS_BAD_INPUT when n_runs does not match the survey. */
int ts_html_build(const struct ts_survey_rec *survey, const struct ts_run_summary *runs, int n_runs, char **html,
                  size_t *size, struct ts_error *err);

/* The same written to path: a temporary file next to it, synced, then renamed over path (an
 * existing regular file is replaced; a directory, device or symbolic link refused). Errors say
 * "cannot write output PATH: ..." with the errno text (a missing directory: TS_BAD_INPUT). */
int ts_html_write(const char *path, const struct ts_survey_rec *survey /* NULL for a plain set of runs */,
                  const struct ts_run_summary *runs, int n_runs, struct ts_error *err);

/* A survey's report: reads each done run's file (survey->runs[i].file, relative to survey_dir,
 * the folder of the survey file) in an isolated reader, then ts_html_write. A file name that is
 * absolute or climbs out of the folder ("..") is refused (the survey file is input too); a run
 * file that does not read fails with the reader's message naming it. Pending and failed runs are
 * not read (shown as such). */
int ts_html_write_survey(const char *path, const struct ts_survey_rec *survey, const char *survey_dir,
                         struct ts_error *err);

#endif
