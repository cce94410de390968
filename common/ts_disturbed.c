#include "ts_disturbed.h"

#include <math.h>
#include <stdio.h>

double ts_disturb_share(double seconds, double n_cpus, double elapsed, double clock_tick)
{
    double cpu_seconds = n_cpus * elapsed;
    if (isnan(seconds)) /* fmax would make a time not known into none */
        return NAN;
    return cpu_seconds > 0 ? fmax(0.0, seconds - TS_DISTURB_ROUNDING_TICKS * clock_tick * n_cpus) / cpu_seconds : NAN;
}

static double share(const struct ts_disturb_facts *f, double seconds)
{
    return ts_disturb_share(seconds, f->n_cpus, f->elapsed, f->clock_tick);
}

void ts_disturb_numbers(const struct ts_disturb_facts *f, struct ts_disturb_numbers *out)
{
    double thread_seconds = f->n_threads * f->kernel_time;
    out->switch_rate = thread_seconds > 0 ? f->involuntary / thread_seconds : NAN;
    /* The wait is counted over the warm-up too, as elapsed is. */
    double span = f->n_threads * (isnan(f->elapsed) ? f->kernel_time : f->elapsed);
    out->wait_share = span > 0 ? f->wait / span : NAN;
    out->self_wait_share = f->n_cpus > 0 && f->n_threads > f->n_cpus ? 1.0 - f->n_cpus / f->n_threads : 0.0;
    out->steal_share = share(f, f->steal);
    out->others_share = share(f, f->others_cpu);
    out->load_excess = fmax(f->load_start, f->load_end - f->n_threads); /* fmax ignores one NaN */
}

/* Whether other processes' share of the CPUs' time is known over a window long enough to show a
 * CPU half taken (TS_DISTURB_LOAD_ONLY_BELOW): then it, not the lagging load average, speaks. */
static int others_seen(const struct ts_disturb_facts *f, const struct ts_disturb_numbers *n)
{
    return !isnan(n->others_share)
           && f->elapsed * TS_DISTURB_LOAD_ONLY_BELOW > TS_DISTURB_ROUNDING_TICKS * f->clock_tick;
}

static void add(char *why, size_t size, size_t *used, const char *text)
{
    if (*used < size)
        *used += (size_t)snprintf(why + *used, size - *used, "%s%s", *used ? "; " : "", text);
}

int ts_disturbed(const struct ts_disturb_facts *f, char *why, size_t size)
{
    struct ts_disturb_numbers n;
    ts_disturb_numbers(f, &n);
    size_t used = 0;
    char text[200];
    if (size)
        why[0] = '\0';
    if (isnan(n.switch_rate) && isnan(n.wait_share) && isnan(n.steal_share) && isnan(n.others_share)
        && isnan(n.load_excess)) {
        snprintf(why, size, "not known: the file has no counters");
        return -1;
    }
    if (n.wait_share > n.self_wait_share + TS_DISTURB_WAIT_SHARE) {
        char stacked[80] = ""; /* the threshold's parts, where stacking explains some of the wait */
        if (n.self_wait_share > 0)
            snprintf(stacked, sizeof stacked, ": %g%% for %.0f threads on %.0f CPU%s, and %g%%",
                     100 * n.self_wait_share, f->n_threads, f->n_cpus, f->n_cpus == 1 ? "" : "s",
                     100 * TS_DISTURB_WAIT_SHARE);
        snprintf(text, sizeof text, "threads waited for a CPU %.1f%% of their time (above %g%%%s)", 100 * n.wait_share,
                 100 * (n.self_wait_share + TS_DISTURB_WAIT_SHARE), stacked);
        add(why, size, &used, text);
    }
    if (isnan(n.wait_share) && n.switch_rate > TS_DISTURB_SWITCH_RATE
        && f->involuntary > TS_DISTURB_SWITCH_MIN * f->n_threads) {
        snprintf(text, sizeof text, "%.0f involuntary switches per thread-second (above %g)", n.switch_rate,
                 TS_DISTURB_SWITCH_RATE);
        add(why, size, &used, text);
    }
    if (n.steal_share > TS_DISTURB_STEAL_SHARE) {
        snprintf(text, sizeof text, "steal took %.1f%% of the CPUs' time (above %g%%)", 100 * n.steal_share,
                 100 * TS_DISTURB_STEAL_SHARE);
        add(why, size, &used, text);
    }
    if (n.others_share > TS_DISTURB_OTHERS_SHARE) {
        snprintf(text, sizeof text, "other processes took %.1f%% of the CPUs' time (above %g%%)", 100 * n.others_share,
                 100 * TS_DISTURB_OTHERS_SHARE);
        add(why, size, &used, text);
    }
    if (n.load_excess > f->online_cpus && !others_seen(f, &n)) {
        snprintf(text, sizeof text, "load average %.2f beyond its own threads, above the machine's %.0f CPUs",
                 n.load_excess, f->online_cpus);
        add(why, size, &used, text);
    }
    return used > 0;
}
