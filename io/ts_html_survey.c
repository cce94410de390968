/* A survey's report from its folder: the run files it indexes read back, then the report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_html.h"

/* A name inside the folder: relative, no ".." component. */
static int inside(const char *file)
{
    if (file[0] == '/' || file[0] == '\0')
        return 0;
    for (const char *p = file; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += n;
        p += *p == '/';
    }
    return 1;
}

int ts_html_write_survey(const char *path, const struct ts_survey_rec *survey, const char *survey_dir,
                         struct ts_error *err)
{
    const int n = survey->n_runs > 0 ? survey->n_runs : 0;
    struct ts_run_summary *runs = calloc((size_t)(n ? n : 1), sizeof *runs);
    if (!runs)
        return ts_fail(err, TS_RESOURCE_ERROR, "report: out of memory for %d runs", n);
    int st = TS_OK;
    for (int i = 0; st == TS_OK && i < n; i++) {
        const struct ts_survey_run *r = &survey->runs[i];
        char file[sizeof r->file + 1];
        snprintf(file, sizeof file, "%.*s", (int)sizeof r->file, r->file);
        if (r->state != TS_SURVEY_DONE || !file[0])
            continue;
        if (!inside(file)) {
            st = ts_fail(err, TS_BAD_INPUT, "report: survey run %.64s: file '%s' is not inside the survey's folder",
                         r->name, file);
            break;
        }
        char where[4096 + sizeof file];
        snprintf(where, sizeof where, "%s/%s", survey_dir && survey_dir[0] ? survey_dir : ".", file);
        st = ts_run_read_file_isolated(where, &runs[i], err);
    }
    if (st == TS_OK)
        st = ts_html_write(path, survey, runs, n, err);
    for (int i = 0; i < n; i++)
        ts_run_summary_free(&runs[i]);
    free(runs);
    return st;
}
