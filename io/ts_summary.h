/* The short human summary printed at the end of a run. */
#ifndef TS_SUMMARY_H
#define TS_SUMMARY_H

#include <stdio.h>

#include "ts_record.h"

void ts_summary_print(const struct ts_record *rec, const char *output_path, FILE *out);

#endif
