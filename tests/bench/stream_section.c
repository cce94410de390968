/* The survey's stream section (app/survey_sec_stream.c) measured for bench/peer_stream.sh with a
 * last-level cache given on the command line, so the arrays can be sized past a host cache that
 * hwloc does not see (STREAM's rule: each array 4x the LLC in --full, 2x in --quick). The same
 * measure the survey calls; here, not in bench/, since it links app/, topo/ and kernels/
 * (layers.txt). Built on request (cmake --build BUILD --target bench_stream_section).
 *
 *     bench_stream_section LLC_BYTES full|quick
 *         one line per row: row KERNEL THREADS BEST_MBS GBS_MEDIAN ARRAY_BYTES CHECK_ERRORS FRACTION
 *         then: summary TEXT, note TEXT
 *
 * Exit 2 when the section fails, 1 when STREAM's check found an element off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey_sec_bandwidth.h"
#include "ts_section.h"
#include "ts_topology.h"

static double num(const struct ts_survey_section *s, const char *col, int r)
{
    return s->cols[ts_section_column(s, col)].num[r];
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "full") != 0 && strcmp(argv[2], "quick") != 0)) {
        fprintf(stderr, "usage: bench_stream_section LLC_BYTES full|quick\n");
        return 2;
    }
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    if (ts_topology_create(&topo, &err) != TS_OK) {
        fprintf(stderr, "bench_stream_section: %s\n", err.message);
        return 2;
    }
    struct ts_section_ctx ctx = {
        .topo = topo, .quick = strcmp(argv[2], "quick") == 0, .scale = 1.0, .llc_bytes = atoll(argv[1])
    };
    struct ts_survey_section s;
    ts_section_init(&s, ts_section_stream.name, ts_section_stream.title);
    if (ts_section_stream.measure(&ctx, &s, &err) != TS_OK) {
        fprintf(stderr, "bench_stream_section: %s\n", err.message);
        return 2;
    }
    const int kernel = ts_section_column(&s, "kernel");
    for (int r = 0; r < s.n_rows; r++)
        printf("row %s %.0f %.1f %.3f %.0f %.0f %.3f\n", s.cols[kernel].text[r], num(&s, "threads", r),
               num(&s, "best_mbs", r), num(&s, "gbs_median", r), num(&s, "array_bytes", r), num(&s, "check_errors", r),
               num(&s, "fraction", r));
    printf("summary %s\nnote %s\n", s.summary, s.note);
    const int failed = ts_section_fact(&s, "check_errors") != 0;
    ts_section_free(&s);
    ts_topology_destroy(topo);
    return failed;
}
