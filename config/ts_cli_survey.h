/* Options of `touchstone survey`: the battery's mode, the folder it writes, and --dump. */
#ifndef TOUCHSTONE_CONFIG_TS_CLI_SURVEY_H
#define TOUCHSTONE_CONFIG_TS_CLI_SURVEY_H

#include "ts_error.h"

enum ts_survey_mode { TS_SURVEY_MODE_UNSET, TS_SURVEY_MODE_QUICK, TS_SURVEY_MODE_FULL };

struct ts_survey_args {
    enum ts_survey_mode mode; /* --quick, --full; unset: the mode of the survey in dir, else quick */
    const char *dir;          /* -o DIR; NULL: touchstone-survey in the current directory */
    int dump;                 /* --dump: print the survey file in dir read back, run nothing */
    int html;                 /* --html: also write DIR/survey.html (io/ts_html.h) */
    const char *sections;     /* --sections LIST: only these sections (names joined by ","), no
                                 battery and no matrix; NULL: the whole survey */
    int help;
};

/* Parses argv[2..] of `touchstone survey`. TS_BAD_INPUT with the option and the reason. */
int ts_survey_parse(struct ts_survey_args *a, int argc, char **argv, struct ts_error *err);

#endif
