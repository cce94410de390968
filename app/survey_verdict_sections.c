#include "survey_verdict_sections.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ts_section.h"

void ts_verdict_addf(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* A section other work disturbed says nothing of the node: the sentence says only that. So does
 * one measured on a node too busy to judge the runs (busy), though its own window looked quiet:
 * a window of a few tens of ms is too short for /proc/stat's 10 ms ticks to show other work, and
 * a scheduler may run it whole in the slice it gives a thread that wakes. */
static int not_judged(const struct ts_survey_section *c, const char *what, int busy, struct ts_survey_sentence *t)
{
    if (c->disturbed <= 0) {
        if (!busy)
            return 0;
        ts_verdict_addf(t->text, sizeof t->text,
                        "%s not judged: the %s section ran on a node too busy to judge the runs; measure it again "
                        "on a quiet node (touchstone survey --sections %s).",
                        what, c->name, c->name);
        return 1;
    }
    /* The note's disturbance part, which the runner puts last. */
    const char *why = strstr(c->note, "disturbed: ");
    why = why ? why + strlen("disturbed: ") : c->note[0] ? c->note : "see its conditions";
    ts_verdict_addf(
        t->text, sizeof t->text,
        "%s not judged: other work took the CPUs while the %s section ran (%.300s); measure it again on a quiet "
        "node (touchstone survey --sections %s).",
        what, c->name, why, c->name);
    return 1;
}

static int saturation(const struct ts_survey_section *c, int busy, struct ts_survey_sentence *t)
{
    const double k = ts_section_fact(c, "saturation_cores"), peak = ts_section_fact(c, "peak_gbs");
    const double n = ts_section_fact(c, "domain_cores");
    if (not_judged(c, "Bandwidth scaling", busy, t))
        return 1;
    if (!isfinite(k) || k < 1)
        return 0;
    ts_verdict_addf(t->text, sizeof t->text, "Bandwidth-bound work needs %.0f core%s of a NUMA domain", k,
                    k == 1 ? "" : "s");
    if (isfinite(n) && n >= 1)
        ts_verdict_addf(t->text, sizeof t->text, " (of %.0f)", n);
    ts_verdict_addf(t->text, sizeof t->text, ": %.0f core%s reach 90%% of the domain's peak", k, k == 1 ? "" : "s");
    if (isfinite(peak))
        ts_verdict_addf(t->text, sizeof t->text, " of %.3g GB/s (triad)", peak);
    ts_verdict_addf(t->text, sizeof t->text, "%s.",
                    isfinite(n) && k < n ? "; more threads per domain add little to a kernel that streams memory" : "");
    return 1;
}

static int loaded_latency(const struct ts_survey_section *c, int busy, struct ts_survey_sentence *t)
{
    const double idle = ts_section_fact(c, "idle_local_ns"), loaded = ts_section_fact(c, "loaded_local_ns");
    const double remote = ts_section_fact(c, "remote_extra_ns");
    if (not_judged(c, "Latency at load", busy, t))
        return 1;
    if (!isfinite(idle))
        return 0;
    ts_verdict_addf(t->text, sizeof t->text, "Local memory answers in %.3g ns idle", idle);
    if (isfinite(loaded))
        ts_verdict_addf(t->text, sizeof t->text, " and %.3g ns (%.2fx) while the other cores read at their most",
                        loaded, loaded / idle);
    if (isfinite(remote))
        ts_verdict_addf(t->text, sizeof t->text, "; remote memory costs %.3g ns more at that load", remote);
    else
        ts_verdict_addf(t->text, sizeof t->text, "; no remote memory to compare (one NUMA node)");
    ts_verdict_addf(t->text, sizeof t->text, ".");
    return 1;
}

static int close_cores(const struct ts_survey_section *c, int busy, struct ts_survey_sentence *t)
{
    static const struct {
        const char *key, *what;
    } levels[] = {
        { "smt_ns", "SMT siblings" },
        { "same_llc_ns", "cores sharing a last-level cache" },
        { "cross_llc_ns", "cores of different last-level caches" },
        { "same_node_ns", "cores of one NUMA node (hwloc knows no cache to tell them apart)" },
        { "cross_node_ns", "cores of different NUMA nodes" },
    };
    if (not_judged(c, "Core-to-core latency", busy, t))
        return 1;
    int said = 0;
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const double ns = ts_section_fact(c, levels[i].key);
        if (!isfinite(ns))
            continue;
        ts_verdict_addf(t->text, sizeof t->text, "%s%s %.3g ns", said ? ", " : "A cache line moves between ",
                        levels[i].what, ns);
        said++;
    }
    if (!said)
        return 0;
    ts_verdict_addf(t->text, sizeof t->text, " (one way, medians): threads that share data belong %s.",
                    said > 1 ? "on the closest of these" : "anywhere on this node alike");
    return 1;
}

int ts_survey_section_sentence(const struct ts_survey_rec *s, enum ts_section_sentence which, int busy,
                               struct ts_survey_sentence *t)
{
    static const char *const names[TS_N_SECTION_SENTENCES] = { "scaling", "loaded_latency", "c2c" };
    if ((int)which < 0 || which >= TS_N_SECTION_SENTENCES)
        return 0;
    const struct ts_survey_section *c = ts_survey_section_of(s, names[which]);
    if (!c)
        return 0;
    struct ts_survey_sentence out;
    memset(&out, 0, sizeof out);
    int said = which == TS_SENTENCE_SATURATION       ? saturation(c, busy, &out)
               : which == TS_SENTENCE_LOADED_LATENCY ? loaded_latency(c, busy, &out)
                                                     : close_cores(c, busy, &out);
    if (!said)
        return 0;
    snprintf(out.sources, sizeof out.sources, "section:%s", c->name);
    *t = out;
    return 1;
}
