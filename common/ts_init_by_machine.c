#include "ts_init_by_machine.h"

#include <math.h>
#include <stdio.h>

#include "ts_disturbed.h"

void ts_init_numbers(const struct ts_init_facts *f, struct ts_init_numbers *out)
{
    out->stall_share = f->elapsed > 0 ? f->memory_stall / f->elapsed : NAN;
    out->steal_share = ts_disturb_share(f->steal, f->n_cpus, f->machine_elapsed, f->clock_tick);
    /* A serial init needs one CPU: others may have the rest without slowing it. The rounding is
     * that of every watched CPU's ticks. */
    const double needed = fmin(f->touching, f->n_cpus), spare = (f->n_cpus - needed) * f->machine_elapsed;
    const double taken = f->others_cpu - spare - TS_DISTURB_ROUNDING_TICKS * f->clock_tick * f->n_cpus;
    out->others_share = needed * f->machine_elapsed > 0 ? fmax(0.0, taken) / (needed * f->machine_elapsed) : NAN;
    out->kernel_share = f->touch_span > 0 ? f->touch_system / f->touch_span : NAN;
    out->clear_rate = f->touch_system > 0 ? f->touch_bytes / f->touch_system : NAN;
    /* One of the two missing still counts the other's stalls. */
    out->stalls = isnan(f->compact_stall) && isnan(f->allocstall)
                      ? NAN
                      : (isnan(f->compact_stall) ? 0 : f->compact_stall) + (isnan(f->allocstall) ? 0 : f->allocstall);
}

/* The kernel's page handling took most of it: the touching threads mostly in the kernel, and
 * that kernel clearing their pages slower than any healthy machine does. */
static int paging(const struct ts_init_numbers *n)
{
    return n->kernel_share > TS_INIT_MACHINE_SHARE && n->clear_rate < TS_INIT_CLEAR_FLOOR;
}

static void add(char *buf, size_t size, size_t *used, const char *text)
{
    if (*used < size)
        *used += (size_t)snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", text);
}

/* "tasks waited on memory for 81% of it, 12 compaction stalls, ...": what the counters saw,
 * the shares that are not 0 when rounded and the counts that are not 0. */
static void facts_text(const struct ts_init_facts *f, const struct ts_init_numbers *n, char *buf, size_t size)
{
    size_t used = 0;
    char t[160];
    buf[0] = '\0';
    if (paging(n)) {
        snprintf(t, sizeof t,
                 "the touching threads spent %.0f%% of their time in the kernel, clearing pages at %.3g GB/s a thread",
                 100 * n->kernel_share, n->clear_rate / 1e9);
        add(buf, size, &used, t);
    }
    if (n->stall_share >= 0.005) {
        snprintf(t, sizeof t, "tasks waited on memory for %.0f%% of it", 100 * n->stall_share);
        add(buf, size, &used, t);
    }
    if (f->compact_stall > 0) {
        snprintf(t, sizeof t, "%.0f compaction stall%s", f->compact_stall, f->compact_stall == 1 ? "" : "s");
        add(buf, size, &used, t);
    }
    if (f->allocstall > 0) {
        snprintf(t, sizeof t, "%.0f reclaim stall%s", f->allocstall, f->allocstall == 1 ? "" : "s");
        add(buf, size, &used, t);
    }
    if (f->thp_fault_fallback > 0) {
        snprintf(t, sizeof t, "%.0f huge-page fault%s fell back to 4 KiB pages", f->thp_fault_fallback,
                 f->thp_fault_fallback == 1 ? "" : "s");
        add(buf, size, &used, t);
    }
    if (n->steal_share >= 0.005) {
        snprintf(t, sizeof t, "steal %.0f%% of the CPUs' time", 100 * n->steal_share);
        add(buf, size, &used, t);
    }
    if (n->others_share >= 0.005) {
        snprintf(t, sizeof t, "other processes %.0f%% of the CPUs' time", 100 * n->others_share);
        add(buf, size, &used, t);
    }
}

int ts_init_by_machine(const struct ts_init_facts *f, char *why, size_t size)
{
    struct ts_init_numbers n;
    ts_init_numbers(f, &n);
    if (size)
        why[0] = '\0';
    if (isnan(n.stall_share) && isnan(n.steal_share) && isnan(n.others_share) && isnan(n.stalls)
        && (isnan(n.kernel_share) || isnan(n.clear_rate))) {
        snprintf(why, size, "not known: the file has no counters of its first touch");
        return -1;
    }
    /* The first share past the line names whose time it was; the facts list all. */
    const char *whose = n.stall_share > TS_INIT_MACHINE_SHARE    ? "the kernel's memory management"
                        : n.steal_share > TS_INIT_MACHINE_SHARE  ? "the hypervisor's (steal)"
                        : n.others_share > TS_INIT_MACHINE_SHARE ? "other processes'"
                        : paging(&n)                             ? "the kernel's page handling"
                                                                 : NULL;
    /* Without PSI nothing says how long the stalls took: that they happened at all is enough
     * to keep an init time from being read as placement's. */
    const int unmeasured_stalls = !whose && isnan(n.stall_share) && n.stalls > 0;
    if (!whose && !unmeasured_stalls)
        return 0;
    char facts[400];
    facts_text(f, &n, facts, sizeof facts);
    if (whose)
        snprintf(why, size, "most of it %s (%s), not placement", whose, facts);
    else
        snprintf(why, size,
                 "the kernel's memory management stalled it (%s; how long, only /proc/pressure/memory would say), "
                 "not placement alone",
                 facts);
    return 1;
}
