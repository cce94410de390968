/* The survey file (survey.h5, docs/survey.md "The survey file"): a survey's record written
 * atomically, and read back as untrusted input, every value checked against what a survey
 * writes before the caller sees it. It indexes the run files of the survey's folder by their
 * names relative to it, and never names a file outside it. */
#ifndef TOUCHSTONE_IO_TS_SURVEY_FILE_H
#define TOUCHSTONE_IO_TS_SURVEY_FILE_H

#include <stddef.h>

#include "ts_error.h"
#include "ts_survey_rec.h"

/* Most runs and NUMA nodes a survey file may hold: bounds on what a file can make the reader
 * allocate, far above any battery (a few dozen runs) and node (a few dozen NUMA nodes). */
#define TS_SURVEY_MAX_RUNS 4096
#define TS_SURVEY_MAX_NODES 1024
#define TS_SURVEY_MAX_REPEATS 9

/* Writes s to path: built in memory, written to a temporary file next to it, synced and renamed
 * over path, so that path only ever holds a complete survey file (the last one written). On
 * failure path is untouched and err says why: TS_INTERNAL_ERROR for a record that does not add
 * up (counts and arrays, a run file outside the folder), TS_IO_ERROR (or the status of the
 * errno, ts_file_status) for the file system, TS_RESOURCE_ERROR for memory. */
int ts_survey_write(const char *path, const struct ts_survey_rec *s, struct ts_error *err);

/* Reads the survey file at path into out (its arrays allocated here: ts_survey_free). The read
 * runs first in a child process stopped after a time limit, so that a file that crashes or
 * hangs HDF5 is refused like any other. Refused with TS_BAD_INPUT, err naming the path and the
 * item: not HDF5, truncated, another format version (neither TS_SURVEY_FORMAT nor 2, the format before
 * sections, read with none), a value out of its
 * range, a name that is not one a survey writes, a run file not under runs/, counts that do not
 * agree. A missing or unreadable file: the status of its errno. On failure out is freed. */
int ts_survey_read(const char *path, struct ts_survey_rec *out, struct ts_error *err);

/* The same without the child process (the fuzz harness, and the child itself). */
int ts_survey_read_direct(const char *path, struct ts_survey_rec *out, struct ts_error *err);

/* The same for a file image in memory (n bytes, copied; the fuzz harness); name appears in
 * messages. */
int ts_survey_read_image(const void *bytes, size_t n, const char *name, struct ts_survey_rec *out,
                         struct ts_error *err);

/* Frees what a read allocated (runs, matrix) and zeroes out. */
void ts_survey_free(struct ts_survey_rec *s);

/* Frees the matrix's arrays only (also for a matrix app/ filled) and zeroes it. */
void ts_survey_matrix_free(struct ts_survey_matrix *m);

#endif
