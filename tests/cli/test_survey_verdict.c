/* The survey's verdict (app/survey_verdict.c) on fixed runs whose right answer is known: each
 * sentence's direction and wording pinned for a clear finding, a difference inside the noise,
 * too many disturbed runs, threads stacked on one CPU beating threads spread over the cores,
 * and more cores taking longer than one. Nothing runs: the runs are made here, as the survey
 * reads them back from their files (time_median, disturbed). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "survey_verdict.h"
#include "ts_section.h"
#include "ts_test.h"

#define MAX 64

static struct ts_survey_run runs[MAX];
static struct ts_survey_rec rec;

static void reset(void)
{
    memset(runs, 0, sizeof runs);
    memset(&rec, 0, sizeof rec);
    rec.runs = runs;
    rec.repeats = 3;
}

/* One done run per time of times (n of them), disturbed when disturbed is 1. */
static void point(int group, const char *kernel, const char *variant, int threads, const double *times, int n,
                  int disturbed)
{
    static const char *const groups[] = TS_SURVEY_GROUP_NAMES;
    for (int i = 0; i < n && rec.n_runs < MAX; i++) {
        struct ts_survey_run *r = &runs[rec.n_runs++];
        char name[sizeof r->name];
        snprintf(name, sizeof name, "%s-%s-%s-t%d-r%d", kernel, groups[group], variant, threads, i + 1);
        memcpy(r->name, name, sizeof name);
        snprintf(r->file, sizeof r->file, "runs/%s.h5", name);
        r->group = group;
        snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
        snprintf(r->variant, sizeof r->variant, "%s", variant);
        r->threads = threads;
        r->repeat = i + 1;
        r->state = TS_SURVEY_DONE;
        r->time_median = times[i];
        r->gbs_median = 1.0 / times[i];
        r->local_fraction = 1.0;
        r->disturbed = disturbed;
        r->others_share = disturbed ? 0.78 : 0.0;
        r->load_excess = disturbed ? 3.5 : 0.0;
        if (disturbed)
            snprintf(r->disturbed_why, sizeof r->disturbed_why,
                     "other processes took 78.0%% of the CPUs' time (above 5%%)");
    }
}

/* The sentence that starts with prefix, or NULL. */
static const char *sentence(const char *prefix)
{
    for (int i = 0; i < rec.n_sentences; i++)
        if (strncmp(rec.sentences[i].text, prefix, strlen(prefix)) == 0)
            return rec.sentences[i].text;
    return NULL;
}

static void print_verdict(void)
{
    for (int i = 0; i < rec.n_sentences; i++)
        fprintf(stderr, "  %d. %s [%s]\n", i + 1, rec.sentences[i].text, rec.sentences[i].sources);
}

/* No sentence states a ratio ("1.29x") as a finding. */
static int any_ratio(void)
{
    for (int i = 0; i < rec.n_sentences; i++) {
        const char *t = rec.sentences[i].text;
        for (const char *p = strchr(t, 'x'); p; p = strchr(p + 1, 'x'))
            if (p > t && p[-1] >= '0' && p[-1] <= '9' && (p[1] == '\0' || strchr(" ,.;)", p[1])))
                return 1;
    }
    return 0;
}

static const double fast[] = { 1.00, 1.01, 1.02 }, slow[] = { 1.30, 1.31, 1.29 };
static const double spread_a[] = { 1.00, 1.30, 1.10 }, spread_b[] = { 1.20, 1.05, 1.25 };

static void expect(const char *prefix, const char *what)
{
    if (sentence(prefix))
        return;
    FAIL("%s: no sentence starts \"%s\"", what, prefix);
    print_verdict();
}

static void clear_finding(void)
{
    reset();
    point(TS_SURVEY_INIT, "triad", "parallel", 2, fast, 3, 0);
    point(TS_SURVEY_INIT, "triad", "serial", 2, slow, 3, 0);
    ts_survey_verdict(&rec);
    /* Serial 1.30 s against parallel 1.01 s (the medians): serial costs 1.30 / 1.01 = 1.29x. */
    expect("Serial init costs 1.29x on triad with 2 threads: 1.3 s per iteration against 1.01 s with parallel "
           "init (3 v 3 runs, every one of one side beyond every one of the other: Mann-Whitney p = 0.1), pages "
           "local to their thread 100% against 100%; the pages are as local either way, so that is not placement.",
           "init, serial slower in every run");
    CHECK(rec.n_sentences == 1, "%d sentences for one group of undisturbed runs, expected 1", rec.n_sentences);
    CHECK(strcmp(rec.sentences[0].sources,
                 "triad-init-serial-t2-r1,triad-init-serial-t2-r2,triad-init-serial-t2-r3,"
                 "triad-init-parallel-t2-r1,triad-init-parallel-t2-r2,triad-init-parallel-t2-r3")
              == 0,
          "the init sentence's sources: %s", rec.sentences[0].sources);

    /* The other way round: parallel slower; no "costs" with a ratio below 1. */
    reset();
    point(TS_SURVEY_INIT, "triad", "parallel", 2, slow, 3, 0);
    point(TS_SURVEY_INIT, "triad", "serial", 2, fast, 3, 0);
    ts_survey_verdict(&rec);
    expect("Serial init was faster than parallel init on triad with 2 threads: 1.01 s per iteration against 1.3 s",
           "init, serial faster in every run");
    CHECK(!any_ratio(), "serial init faster stated as a ratio: %s", rec.sentences[0].text);

    /* Binding: bound faster than unbound, stacked slower still: both ratios, their direction. */
    reset();
    const double unbound[] = { 1.50, 1.52, 1.51 }, stacked[] = { 2.02, 2.03, 2.04 }, spread[] = { 1.10, 1.12, 1.11 };
    point(TS_SURVEY_BINDING, "stencil2d", "close", 2, fast, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "spread", 2, spread, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "unbound", 2, unbound, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "stacked", 2, stacked, 3, 0);
    ts_survey_verdict(&rec);
    expect("Bind with OMP_PLACES=cores OMP_PROC_BIND=close: on stencil2d with 2 threads it is 1.50x faster than "
           "unbound (OMP_PROC_BIND=false, 1.01 s against 1.51 s per iteration",
           "binding, close faster than unbound in every run");
    CHECK(strstr(rec.sentences[0].text, "; all 2 threads stacked on one CPU take 2.01x as long."),
          "stacked slower in every run, not said with its ratio: %s", rec.sentences[0].text);

    /* Scaling: 2 threads faster than 1 in every run. */
    reset();
    const double two[] = { 2.00, 2.01, 2.02 };
    point(TS_SURVEY_SCALING, "triad", "threads=1", 1, two, 3, 0);
    point(TS_SURVEY_SCALING, "triad", "threads=2", 2, fast, 3, 0);
    ts_survey_verdict(&rec);
    expect("At all 2 cores the speed-up over 1 thread is 1.99x on triad (100% efficiency", "scaling, a speed-up");

    /* Policy: interleave slower in every run. */
    reset();
    point(TS_SURVEY_POLICY, "triad", "firsttouch", 2, fast, 3, 0);
    point(TS_SURVEY_POLICY, "triad", "interleave", 2, slow, 3, 0);
    ts_survey_verdict(&rec);
    expect("Interleaving triad's pages over the nodes takes 1.29x the time of first touch with 2 threads (1.3 s "
           "against 1.01 s per iteration",
           "policy, interleave slower in every run");
}

static void inside_noise(void)
{
    reset();
    point(TS_SURVEY_INIT, "triad", "parallel", 2, spread_a, 3, 0);
    point(TS_SURVEY_INIT, "triad", "serial", 2, spread_b, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "close", 2, spread_a, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "unbound", 2, spread_b, 3, 0);
    point(TS_SURVEY_SCALING, "triad", "threads=1", 1, spread_a, 3, 0);
    point(TS_SURVEY_SCALING, "triad", "threads=2", 2, spread_b, 3, 0);
    point(TS_SURVEY_POLICY, "triad", "firsttouch", 2, spread_a, 3, 0);
    point(TS_SURVEY_POLICY, "triad", "interleave", 2, spread_b, 3, 0);
    ts_survey_verdict(&rec);
    expect("Serial and parallel init differ by nothing beyond the noise on triad with 2 threads: serial 1.05-1.25 s "
           "over 3 runs, parallel 1-1.3 s over 3 runs per iteration overlap.",
           "init inside the noise");
    expect("Binding made no difference beyond the noise on stencil2d with 2 threads: OMP_PROC_BIND=close 1-1.3 s "
           "over 3 runs, unbound 1.05-1.25 s over 3 runs per iteration overlap.",
           "binding inside the noise");
    expect("triad is no faster with all 2 cores than with 1 thread beyond the noise", "scaling inside the noise");
    expect("Interleaving triad's pages over the nodes makes no difference beyond the noise with 2 threads",
           "policy inside the noise");
    CHECK(rec.n_sentences == 4, "%d sentences, expected 4 (no busy node)", rec.n_sentences);
    CHECK(!any_ratio(), "a difference inside the noise stated as a ratio");

    /* One run a point, none disturbed (a survey stopped early): not judged, and not called busy. */
    reset();
    point(TS_SURVEY_INIT, "triad", "parallel", 2, fast, 1, 0);
    point(TS_SURVEY_INIT, "triad", "serial", 2, slow, 1, 0);
    ts_survey_verdict(&rec);
    expect("Init not judged on triad with 2 threads: 1 undisturbed run of serial init and 1 of parallel init, a "
           "judgement needs 3 of each (0 disturbed runs left out).",
           "init with one run a side");
    CHECK(!sentence("The node was too busy"), "a survey with too few runs called busy");
    CHECK(!any_ratio(), "one run a side stated as a ratio");
}

static void too_busy(void)
{
    /* Every run disturbed, with differences that would be findings on a quiet node. */
    reset();
    const double stacked[] = { 0.50, 0.51, 0.52 }, two[] = { 1.60, 1.70, 1.65 };
    point(TS_SURVEY_INIT, "triad", "parallel", 2, fast, 3, 1);
    point(TS_SURVEY_INIT, "triad", "serial", 2, slow, 3, 1);
    point(TS_SURVEY_BINDING, "stencil2d", "close", 2, fast, 3, 1);
    point(TS_SURVEY_BINDING, "stencil2d", "unbound", 2, slow, 3, 1);
    point(TS_SURVEY_BINDING, "stencil2d", "stacked", 2, stacked, 3, 1);
    point(TS_SURVEY_SCALING, "triad", "threads=1", 1, fast, 3, 1);
    point(TS_SURVEY_SCALING, "triad", "threads=2", 2, two, 3, 1);
    point(TS_SURVEY_POLICY, "triad", "firsttouch", 2, fast, 3, 1);
    point(TS_SURVEY_POLICY, "triad", "interleave", 2, slow, 3, 1);
    ts_survey_verdict(&rec);
    CHECK(rec.n_sentences >= 1
              && strncmp(rec.sentences[0].text,
                         "The node was too busy to judge: 27 of 27 runs were "
                         "disturbed by other work (other processes took a "
                         "median 78% of their CPUs' time, the load average "
                         "reached 3.5 beyond their own threads",
                         strlen("The node was too busy to judge: 27 of 27 runs were disturbed by "
                                "other work (other processes took a median 78% of their CPUs' "
                                "time, the load average reached 3.5 beyond their own threads"))
                     == 0,
          "the busy sentence first, with its numbers");
    CHECK(rec.n_sentences >= 1 && strstr(rec.sentences[0].text, "run the survey again when the node is quiet"),
          "the busy sentence does not say to run again when quiet");
    expect("Init not judged on triad with 2 threads: 0 undisturbed runs of serial init and 0 of parallel init",
           "init on a busy node");
    expect("Binding not judged on stencil2d", "binding on a busy node");
    expect("Scaling not judged on triad", "scaling on a busy node");
    expect("Policy not judged on triad", "policy on a busy node");
    CHECK(!any_ratio(), "a ratio stated on a node where every run was disturbed");

    /* Two of three serial runs disturbed: the one left cannot be judged either. */
    reset();
    point(TS_SURVEY_INIT, "triad", "parallel", 2, fast, 3, 0);
    point(TS_SURVEY_INIT, "triad", "serial", 2, slow, 1, 0);
    point(TS_SURVEY_INIT, "triad", "serial", 2, slow + 1, 2, 1);
    ts_survey_verdict(&rec);
    expect("The node was too busy to judge: 2 of 6 runs were disturbed", "two disturbed runs of six");
    expect("Init not judged on triad with 2 threads: 1 undisturbed run of serial init and 3 of parallel init",
           "init with two serial runs disturbed");
    CHECK(!any_ratio(), "a ratio stated from one undisturbed run");
}

static void against_physics(void)
{
    /* Stacked on one CPU faster than bound over the cores in every run: an anomaly, no binding
     * finding (not even unbound against bound, which is as much in doubt). */
    reset();
    const double stacked[] = { 0.50, 0.51, 0.52 };
    point(TS_SURVEY_BINDING, "stencil2d", "close", 2, fast, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "spread", 2, fast, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "unbound", 2, slow, 3, 0);
    point(TS_SURVEY_BINDING, "stencil2d", "stacked", 2, stacked, 3, 0);
    ts_survey_verdict(&rec);
    expect("Anomaly, not a finding: on stencil2d all 2 threads stacked on one CPU ran faster than with "
           "OMP_PROC_BIND=close over 2 cores (0.51 s against 1.01 s per iteration",
           "stacked faster than bound");
    CHECK(!sentence("Bind with"), "a binding finding beside stacked threads faster than spread ones");
    CHECK(!any_ratio(), "stacked faster than spread stated as a ratio");

    /* All cores slower than 1 thread in every run: an anomaly, never a speed-up below 1. */
    reset();
    const double two[] = { 1.60, 1.70, 1.65 };
    point(TS_SURVEY_SCALING, "triad", "threads=1", 1, fast, 3, 0);
    point(TS_SURVEY_SCALING, "triad", "threads=2", 2, two, 3, 0);
    ts_survey_verdict(&rec);
    expect("Anomaly, not a finding: triad took longer with all 2 cores than with 1 thread (1.65 s against 1.01 s "
           "per iteration",
           "2 threads slower than 1");
    CHECK(rec.n_sentences == 1 && !strstr(rec.sentences[0].text, "speed-up"), "a speed-up below 1 stated");
    CHECK(!any_ratio(), "more cores slower stated as a ratio");
}

/* A section with the facts given as key, value pairs (NaN: absent). */
static void with_section(struct ts_survey_section *c, const char *name, int disturbed, const char *const *keys,
                         const double *values, int n)
{
    ts_section_init(c, name, name);
    c->disturbed = disturbed;
    if (disturbed)
        snprintf(c->note, sizeof c->note, "disturbed: other processes took 41.0%% of the CPUs' time (above 5%%)");
    for (int i = 0; i < n; i++)
        if (!isnan(values[i]))
            ts_section_set_fact(c, keys[i], values[i], "");
}

/* The sections' sentences: their numbers, one node said as such, a disturbed section not judged,
 * a section that concluded nothing silent. */
static void sections(void)
{
    static struct ts_survey_section secs[3];
    static const char *const scaling_keys[] = { "saturation_cores", "peak_gbs", "domain_cores" };
    static const char *const latency_keys[] = { "idle_local_ns", "loaded_local_ns", "remote_extra_ns" };
    static const char *const c2c_keys[] = { "smt_ns", "same_llc_ns", "cross_llc_ns", "cross_node_ns" };
    reset();
    with_section(&secs[0], "scaling", 0, scaling_keys, (const double[]){ 3, 41.5, 8 }, 3);
    with_section(&secs[1], "loaded_latency", 0, latency_keys, (const double[]){ 95, 190, NAN }, 3);
    with_section(&secs[2], "c2c", 0, c2c_keys, (const double[]){ 12, 40, NAN, 130 }, 4);
    rec.sections = secs;
    rec.n_sections = 3;
    ts_survey_verdict(&rec);
    print_verdict();
    CHECK(rec.n_sentences == 3, "%d sentences from three sections, expected 3", rec.n_sentences);
    const char *t = sentence("Bandwidth-bound work needs 3 cores of a NUMA domain (of 8)");
    CHECK(t && strstr(t, "41.5 GB/s"), "the saturation sentence: %s", t ? t : "(none)");
    t = sentence("Local memory answers in 95 ns idle and 190 ns (2.00x)");
    CHECK(t && strstr(t, "no remote memory to compare (one NUMA node)"), "the latency sentence: %s", t ? t : "(none)");
    t = sentence("A cache line moves between SMT siblings 12 ns, cores sharing a last-level cache 40 ns, cores of "
                 "different NUMA nodes 130 ns");
    CHECK(t != NULL, "the close cores' sentence");
    CHECK(rec.n_sentences == 3 && strcmp(rec.sentences[0].sources, "section:scaling") == 0
              && strcmp(rec.sentences[2].sources, "section:c2c") == 0,
          "the sections named as sources");

    with_section(&secs[1], "loaded_latency", 1, latency_keys, (const double[]){ 95, 190, 60 }, 3);
    with_section(&secs[2], "c2c", 0, c2c_keys, (const double[]){ NAN, NAN, NAN, NAN }, 4);
    ts_section_set_fact(&secs[2], "all_pairs_ns", 45, "ns"); /* not a level: says nothing alone */
    ts_survey_verdict(&rec);
    print_verdict();
    t = sentence("Latency at load not judged: other work took the CPUs");
    CHECK(t && !strstr(t, "95") && strstr(t, "41.0%"), "a disturbed section judged: %s", t ? t : "(none)");
    CHECK(rec.n_sentences == 2, "%d sentences with a section that concluded nothing, expected 2", rec.n_sentences);

    /* hwloc shows no cache (this VM): the pairs are one node's. */
    ts_section_set_fact(&secs[2], "same_node_ns", 44, "ns");
    ts_survey_verdict(&rec);
    t = sentence("A cache line moves between cores of one NUMA node (hwloc knows no cache to tell them apart) 44 ns");
    CHECK(t && strstr(t, "alike"), "the close cores' sentence without caches: %s", t ? t : "(none)");

    /* The runs found the node too busy to judge: a section whose own window looked quiet (too
     * short for /proc/stat to show anything) judges nothing either. */
    with_section(&secs[1], "loaded_latency", 0, latency_keys, (const double[]){ 95, 190, NAN }, 3);
    point(TS_SURVEY_INIT, "triad", "parallel", 2, fast, 3, 1);
    point(TS_SURVEY_INIT, "triad", "serial", 2, slow, 3, 1);
    ts_survey_verdict(&rec);
    print_verdict();
    expect("The node was too busy to judge: 6 of 6 runs were disturbed", "the busy node, with sections");
    t = sentence("Latency at load not judged: the loaded_latency section ran on a node too busy to judge the runs");
    CHECK(t && !strstr(t, "95") && strstr(t, "touchstone survey --sections loaded_latency"),
          "a quiet-looking section on a busy node judged: %s", t ? t : "(none)");
    CHECK(sentence("Bandwidth scaling not judged: the scaling section ran on a node too busy") != NULL,
          "the scaling section on a busy node");
    CHECK(sentence("Core-to-core latency not judged: the c2c section ran on a node too busy") != NULL,
          "the c2c section on a busy node");
    CHECK(!any_ratio(), "a section's ratio stated on a busy node");
}

int main(void)
{
    clear_finding();
    inside_noise();
    too_busy();
    against_physics();
    sections();
    return ts_test_finish();
}
