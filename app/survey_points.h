/* The survey's points and compare's rule on them: a point is the runs of one group, kernel,
 * variant and thread count of the battery (its repeats); two points are judged as compare
 * judges two sides (app/compare_sides.h), undisturbed runs only. For the verdict. */
#ifndef TOUCHSTONE_APP_SURVEY_POINTS_H
#define TOUCHSTONE_APP_SURVEY_POINTS_H

#include "ts_survey_file.h"
#include "ts_survey_rec.h"

/* Only a point's undisturbed runs with a time count in a judgement, as compare counts a side. */
struct survey_point {
    const struct ts_survey_run *run; /* one of its runs (kernel, variant, threads); NULL: none */
    int n_done, n_disturbed;         /* done runs, and of them disturbed */
    int n;                           /* usable: done, undisturbed, timed */
    double median, low, high;        /* of the usable runs' time_median, s per iteration */
    double gbs;                      /* the median of their gbs_median */
    double local;                    /* local_fraction of the first usable run */
    const struct ts_survey_run *runs[TS_SURVEY_MAX_REPEATS];
    int n_runs; /* the done runs, for the sentence's sources */
};

/* What compare's rule says of point b against point a. */
enum survey_judgement {
    JUDGE_TOO_FEW,  /* fewer than TS_SIDE_MIN_RUNS usable runs on a side */
    JUDGE_OVERLAP,  /* inside the noise: the runs' times overlap */
    JUDGE_B_FASTER, /* every run of b faster than every run of a */
    JUDGE_B_SLOWER
};

/* The runs of s of that group and kernel, of variant (NULL: any) and threads (0: any). */
struct survey_point ts_survey_point(const struct ts_survey_rec *s, int group, const char *kernel, const char *variant,
                                    int threads);

/* Judges b against a; *p_value the separation's p (NaN unless apart). When too few runs are
 * left because some were disturbed, *blocked is counted up: the node, not the plan. */
enum survey_judgement ts_survey_judge(const struct survey_point *a, const struct survey_point *b, double *p_value,
                                      int *blocked);

/* The median of v[0..n) (sorted in place); NaN when n is 0. */
double ts_survey_median(double *v, int n);

#endif
