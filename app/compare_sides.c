#include "compare_sides.h"
#include "ts_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields that make a configuration, as people name them. */
enum {
    F_KERNEL,
    F_SIZE,
    F_RANKS,
    F_THREADS,
    F_DECOMP,
    F_PLACES,
    F_BIND,
    F_INIT,
    F_POLICY,
    F_VARIANT,
    F_HUGE,
    F_HOST,
    N_FIELDS
};
static const char *const field_names[N_FIELDS] = {
    "kernel",        "size",      "ranks",       "threads", "decomposition",   "OMP_PLACES",
    "OMP_PROC_BIND", "init mode", "init.policy", "variant", "init.huge_pages", "host",
};

/* Threads of each rank: "2", or "1..2" when the ranks differ; the run's threads without ranks. */
static void threads_text(const struct ts_run_summary *s, char *buf, size_t size)
{
    int least = s->n_threads, most = s->n_threads;
    for (int32_t r = 0; r < s->n_ranks; r++) {
        least = r == 0 || s->ranks[r].n_threads < least ? s->ranks[r].n_threads : least;
        most = r == 0 || s->ranks[r].n_threads > most ? s->ranks[r].n_threads : most;
    }
    if (least == most)
        snprintf(buf, size, "%d", least);
    else
        snprintf(buf, size, "%d..%d", least, most);
}

static void field_text(const struct ts_run_summary *s, int field, char *buf, size_t size)
{
    switch (field) {
    case F_KERNEL: snprintf(buf, size, "%s", s->kernel); break;
    case F_SIZE: ts_run_size_text(s, buf, size); break;
    case F_RANKS: snprintf(buf, size, "%d", s->n_ranks > 0 ? s->n_ranks : 1); break;
    case F_THREADS: threads_text(s, buf, size); break;
    /* One rank splits nothing: a launched run on one rank is the single-node configuration. */
    case F_DECOMP: snprintf(buf, size, "%s", s->n_ranks > 1 ? s->decomposition : "none"); break;
    case F_PLACES: snprintf(buf, size, "%s", s->places); break;
    case F_BIND: snprintf(buf, size, "%s", s->proc_bind); break;
    case F_INIT: snprintf(buf, size, "%s", s->init_mode); break;
    case F_POLICY: snprintf(buf, size, "%s", s->policy); break;
    case F_VARIANT: snprintf(buf, size, "%s", s->variant); break;
    case F_HUGE: snprintf(buf, size, "%s", s->huge_pages); break;
    default: snprintf(buf, size, "%s", s->host); break;
    }
}

/* "init mode serial, threads 4" for the fields where b differs from a; "" when none does. */
static int differences(const struct ts_run_summary *a, const struct ts_run_summary *b, char *buf, size_t size)
{
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int f = 0; f < N_FIELDS; f++) {
        char x[300], y[300];
        field_text(a, f, x, sizeof x);
        field_text(b, f, y, sizeof y);
        if (strcmp(x, y) == 0)
            continue;
        n++;
        if (used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s %s", used ? ", " : "", field_names[f], y);
    }
    return n;
}

/* 2 / C(n + m, n): the chance, with no difference at all, that all n runs of one side or all
 * m of the other come first. */
static double separation_p(size_t n, size_t m)
{
    double c = 1;
    for (size_t i = 1; i <= n; i++)
        c = c * (double)(m + i) / (double)i;
    return fmin(1.0, 2.0 / c);
}

/* A run stopped during its warm-up has no median: it counts in the side, not in its figures. */
static void summarise(const struct ts_run_set *set, struct ts_side *side, double *medians)
{
    size_t m = 0;
    for (size_t i = 0; i < side->n; i++) {
        const double median = set->runs[side->first + i].time_median;
        const int disturbed = set->stats[side->first + i].disturbed > 0;
        side->n_disturbed += disturbed;
        if (isnan(median))
            continue;
        medians[m++] = median;
        side->n_usable += !disturbed;
    }
    side->median = side->low = side->high = NAN;
    if (m == 0)
        return;
    qsort(medians, m, sizeof *medians, ts_compare_doubles);
    size_t h = m / 2;
    side->median = m % 2 ? medians[h] : medians[h - 1] + 0.5 * (medians[h] - medians[h - 1]);
    side->low = medians[0];
    side->high = medians[m - 1];
}

/* Whether every run of b has its middle half below every run of a's (q3 of b < q1 of a). */
static int quartiles_below(const struct ts_run_set *set, const struct ts_side *b, const struct ts_side *a)
{
    for (size_t i = b->first; i < b->first + b->n; i++)
        for (size_t j = a->first; j < a->first + a->n; j++)
            if (!(set->stats[i].q3 < set->stats[j].q1))
                return 0;
    return 1;
}

static void judge(const struct ts_run_set *set, const struct ts_side *ref, struct ts_side *side, size_t number)
{
    size_t ok_ref = ref->n_usable, ok = side->n_usable;
    const int apart = ts_sides_separated(ref->low, ref->high, ref->n, side->low, side->high, side->n, &side->p_value);
    const int faster = apart > 0, slower = apart < 0;
    side->speedup = ref->median / side->median;
    char runs[160];
    const size_t not_counted = ref->n + side->n - ref->n_usable - side->n_usable;
    snprintf(runs, sizeof runs, "%zu v %zu runs%s", ref->n, side->n,
             not_counted == 0                                      ? ""
             : not_counted == ref->n_disturbed + side->n_disturbed ? ", disturbed ones not counted"
                                                                   : ", disturbed or untimed ones not counted");
    if (ok_ref >= TS_SIDE_MIN_RUNS && ok >= TS_SIDE_MIN_RUNS) {
        side->verdict = faster ? "faster" : slower ? "slower" : "within noise";
        if (faster || slower)
            snprintf(side->why, sizeof side->why,
                     "every run of side %zu was %s than every run of side 1 (%zu v %zu runs: Mann-Whitney p = %.2g, "
                     "two-sided)",
                     number, side->verdict, ref->n, side->n, side->p_value);
        else
            snprintf(side->why, sizeof side->why,
                     "the runs of side %zu and side 1 overlap (%zu v %zu runs): no difference beyond the spread "
                     "between runs",
                     number, ref->n, side->n);
        return;
    }
    int far = side->n_disturbed == 0 && ref->n_disturbed == 0
              && ((side->speedup > TS_SIDE_FAR_FACTOR && quartiles_below(set, side, ref))
                  || (side->speedup < 1 / TS_SIDE_FAR_FACTOR && quartiles_below(set, ref, side)));
    if (far) {
        side->verdict = side->speedup > 1 ? "faster" : "slower";
        snprintf(side->why, sizeof side->why,
                 "%s: too few runs for a verdict, but %.3gx apart with every run's middle half apart and no run "
                 "disturbed: far beyond machine noise (more than %gx)",
                 runs, side->speedup > 1 ? side->speedup : 1 / side->speedup, TS_SIDE_FAR_FACTOR);
        return;
    }
    side->verdict = "cannot separate";
    snprintf(side->why, sizeof side->why,
             "%s: fewer than %d undisturbed runs on a side cannot separate a difference from machine noise; run %d "
             "or more of each, interleaved (A B B A A B ...), and compare them all",
             runs, TS_SIDE_MIN_RUNS, TS_SIDE_MIN_RUNS);
}

long ts_sides_make(const struct ts_run_set *set, const unsigned char *split_before, struct ts_side **out)
{
    struct ts_side *sides = calloc(set->n, sizeof *sides);
    double *medians = malloc(set->n * sizeof *medians);
    if (!sides || !medians) {
        free(sides);
        free(medians);
        return -1;
    }
    char scratch[600];
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++) {
        int new_side =
            i == 0 || split_before[i] || differences(&set->runs[i - 1], &set->runs[i], scratch, sizeof scratch) > 0;
        if (new_side)
            sides[n++].first = i;
        sides[n - 1].n++;
    }
    for (size_t k = 0; k < n; k++) {
        summarise(set, &sides[k], medians);
        if (k == 0) {
            sides[0].verdict = "reference";
            sides[0].speedup = 1;
            sides[0].p_value = NAN;
            snprintf(sides[0].why, sizeof sides[0].why, "the reference");
            continue;
        }
        judge(set, &sides[0], &sides[k], k + 1);
        if (!differences(&set->runs[0], &set->runs[sides[k].first], sides[k].differs, sizeof sides[k].differs))
            snprintf(sides[k].differs, sizeof sides[k].differs, "the same configuration");
    }
    free(medians);
    *out = sides;
    return (long)n;
}

int ts_sides_separated(double a_low, double a_high, size_t n_a, double b_low, double b_high, size_t n_b,
                       double *p_value)
{
    const int apart = b_high < a_low ? 1 : b_low > a_high ? -1 : 0;
    *p_value = apart ? separation_p(n_a, n_b) : NAN;
    return apart;
}

size_t ts_side_of(const struct ts_side *sides, size_t n_sides, size_t run)
{
    size_t k = 0;
    while (k + 1 < n_sides && sides[k + 1].first <= run)
        k++;
    return k;
}

static const char *const condition_names[TS_N_CONDITIONS] = TS_CONDITION_NAMES;

const char *ts_condition_name(int k)
{
    return condition_names[k];
}

/* The numbers of a value, in order ("1200-3400" -> 1200 3400, "0:812 1:790" -> 0 812 1 790). */
static int numbers(const char *text, double *v, int max)
{
    int n = 0;
    for (const char *p = text; *p && n < max;) {
        if (*p < '0' || *p > '9') {
            p++;
            continue;
        }
        char *end;
        v[n++] = strtod(p, &end);
        p = end;
    }
    return n;
}

static int measured(const char *name)
{
    static const char *const names[] = { "cpu_mhz", "memory_limit_mib", "numa_free_mib" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

int ts_condition_differs(const struct ts_run_summary *a, const struct ts_run_summary *b, int k)
{
    const char *x = a->conditions[k], *y = b->conditions[k];
    if (!x[0] || !y[0] || strcmp(x, "unknown") == 0 || strcmp(y, "unknown") == 0 || strcmp(x, y) == 0)
        return 0;
    /* The load is each run's own affair: the notes on disturbed runs judge it. */
    if (strcmp(condition_names[k], "load_average") == 0 || strcmp(condition_names[k], "others_busy_percent") == 0)
        return 0;
    if (!measured(condition_names[k]))
        return 1;
    double u[64], v[64];
    int n = numbers(x, u, 64), m = numbers(y, v, 64);
    if (n != m || n == 0)
        return 1;
    for (int i = 0; i < n; i++) {
        double gap = fabs(u[i] - v[i]), scale = fmax(fabs(u[i]), fabs(v[i]));
        if (gap > 0.1 * scale && gap > 1.0)
            return 1;
    }
    return 0;
}
