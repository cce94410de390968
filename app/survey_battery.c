#include "survey_battery.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_continue.h"
#include "ts_affinity.h"
#include "ts_memory.h"
#include "ts_node.h"

/* bench/run.sh and the NUMA matrix assume as much when hwloc knows no cache (VMs often hide
 * theirs, or show the host's whole L3 through CPUID, which sysconf repeats). */
#define LLC_FALLBACK ((int64_t)32 << 20)
#define LLC_MULTIPLE 10
#define MIN_ARRAY ((int64_t)64 << 10)

static const char config_text[] =
    "; touchstone survey: the config every run of the battery reads. It sets nothing: each run's\n"
    "; command line (in survey.h5, /runs:command, and `touchstone survey --dump`) carries its\n"
    "; kernel, size, iterations, init and policy as --set options and its threads and binding as\n"
    "; OMP_* variables, so that it can be pasted and run again. See docs/survey.md.\n";

const char *ts_battery_config_text(void)
{
    return config_text;
}

void ts_battery_append_word(char *buf, size_t size, const char *word)
{
    char q[1200];
    size_t used = strlen(buf);
    /* a word that does not fit is left out whole, never cut */
    if (!ts_shell_quote(word, q, sizeof q)
        || snprintf(buf + used, size - used, "%s%s", used ? " " : "", q) >= (int)(size - used))
        buf[used] = '\0';
}

/* The env assignments keep their '=' unquoted: OMP_PLACES='{0}'. */
static void append_env(char *buf, size_t size, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    char value[320];
    size_t used = strlen(buf);
    if (!ts_shell_quote(eq + 1, value, sizeof value)
        || snprintf(buf + used, size - used, "%s%.*s=%s", used ? " " : "", (int)(eq - assignment), assignment, value)
               >= (int)(size - used))
        buf[used] = '\0';
}

struct shape {
    const char *kernel;
    int arrays;
    char sets[3][64];
    int n_sets;
};

static struct shape shape_of(const char *kernel, int64_t array_bytes)
{
    struct shape s = { .kernel = kernel };
    const int64_t elems = array_bytes / 8;
    if (strcmp(kernel, "sum") == 0) {
        s.arrays = 1;
        snprintf(s.sets[s.n_sets++], sizeof s.sets[0], "sum.n=%lld", (long long)elems);
    } else if (strcmp(kernel, "triad") == 0) {
        s.arrays = 3;
        snprintf(s.sets[s.n_sets++], sizeof s.sets[0], "triad.n=%lld", (long long)elems);
    } else if (strcmp(kernel, "stencil2d") == 0) {
        s.arrays = 2;
        long long side = (long long)sqrt((double)elems);
        side = side < 16 ? 16 : side;
        snprintf(s.sets[s.n_sets++], sizeof s.sets[0], "stencil.nx=%lld", side);
        snprintf(s.sets[s.n_sets++], sizeof s.sets[0], "stencil.ny=%lld", side);
    } else {
        s.arrays = 2;
        long long side = (long long)cbrt((double)elems);
        side = side < 16 ? 16 : side;
        snprintf(s.sets[s.n_sets++], sizeof s.sets[0], "stencil.nx=%lld", side);
        snprintf(s.sets[s.n_sets++], sizeof s.sets[0], "stencil.ny=%lld", side);
        snprintf(s.sets[s.n_sets++], sizeof s.sets[0], "stencil.nz=%lld", side);
    }
    return s;
}

struct planner {
    struct ts_battery *b;
    const char *dir, *exe;
    int first_cpu;
    int capacity;
    int repeat; /* the round being planned: its runs' repeat */
};

static int add_arg(struct ts_battery_run *r, const char *fmt, const char *value)
{
    if (r->n_args >= TS_BATTERY_MAX_ARGS)
        return -1;
    int n = snprintf(r->args[r->n_args++], sizeof r->args[0], fmt, value);
    return n < 0 || (size_t)n >= sizeof r->args[0] ? -1 : 0;
}

/* One run: group, kernel, what differs (variant), threads, init mode, policy and binding. */
static int add_run(struct planner *p, int group, const char *kernel, const char *variant, int threads, const char *init,
                   const char *policy, const char *places, const char *bind, int iterations, struct ts_error *err)
{
    const int repeat = p->repeat;
    struct ts_battery *b = p->b;
    if (b->n_runs == p->capacity) {
        int cap = p->capacity ? 2 * p->capacity : 32;
        void *more = realloc(b->runs, (size_t)cap * sizeof *b->runs);
        if (!more)
            return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "survey: planning %d runs", cap);
        b->runs = more;
        p->capacity = cap;
    }
    struct ts_battery_run *r = &b->runs[b->n_runs++];
    memset(r, 0, sizeof *r);
    static const char *const groups[] = TS_SURVEY_GROUP_NAMES;
    struct ts_survey_run *rec = &r->rec;
    if (group == TS_SURVEY_SCALING)
        snprintf(rec->name, sizeof rec->name, "%s-scaling-t%d-r%d", kernel, threads, repeat);
    else
        snprintf(rec->name, sizeof rec->name, "%s-%s-%s-t%d-r%d", kernel, groups[group], variant, threads, repeat);
    rec->repeat = repeat;
    rec->disturbed = -1;
    rec->others_share = rec->load_excess = NAN;
    snprintf(rec->file, sizeof rec->file, "runs/%s.h5", rec->name);
    rec->group = group;
    snprintf(rec->kernel, sizeof rec->kernel, "%s", kernel);
    if (group == TS_SURVEY_SCALING)
        snprintf(rec->variant, sizeof rec->variant, "threads=%d", threads);
    else
        snprintf(rec->variant, sizeof rec->variant, "%s", variant);
    rec->threads = threads;
    rec->state = TS_SURVEY_PENDING;
    rec->seconds = rec->time_median = rec->gbs_median = rec->local_fraction = NAN;
    r->iterations = iterations;
    r->estimate = NAN;

    snprintf(r->env[0], sizeof r->env[0], "OMP_NUM_THREADS=%d", threads);
    snprintf(r->env[1], sizeof r->env[1], "OMP_PLACES=%s", places);
    snprintf(r->env[2], sizeof r->env[2], "OMP_PROC_BIND=%s", bind);
    const struct shape s = shape_of(kernel, b->array_bytes);
    char path[4400], num[32];
    int bad = add_arg(r, "%s", "run") || add_arg(r, "%s", b->config) || add_arg(r, "%s", "--set")
              || add_arg(r, "run.kernel=%s", kernel);
    for (int i = 0; i < s.n_sets; i++)
        bad = bad || add_arg(r, "%s", "--set") || add_arg(r, "%s", s.sets[i]);
    snprintf(num, sizeof num, "%d", iterations);
    bad = bad || add_arg(r, "%s", "--set") || add_arg(r, "run.iterations=%s", num) || add_arg(r, "%s", "--set")
          || add_arg(r, "init.mode=%s", init) || add_arg(r, "%s", "--set") || add_arg(r, "init.policy=%s", policy);
    snprintf(path, sizeof path, "%s/%s", p->dir, rec->file);
    bad = bad || add_arg(r, "%s", "-o") || add_arg(r, "%s", path) || add_arg(r, "%s", "--overwrite");
    if (bad)
        return ts_fail(err, TS_BAD_INPUT, "survey: the folder's name is too long for a run's command line: %s", p->dir);
    /* The command a user pastes: the environment, the program, its arguments. */
    for (int i = 0; i < 3; i++)
        append_env(rec->command, sizeof rec->command, r->env[i]);
    ts_battery_append_word(rec->command, sizeof rec->command, p->exe);
    for (int i = 0; i < r->n_args; i++)
        ts_battery_append_word(rec->command, sizeof rec->command, r->args[i]);

    /* Bytes moved per iteration, the init and warm-up counted as three more; fewer threads take
     * longer, by less than their share on memory-bound kernels. */
    const int team = strcmp(variant, "stacked") == 0 ? 1 : threads;
    r->team = team;
    r->init_team = strcmp(init, "serial") == 0 ? 1 : team;
    r->weight = (double)s.arrays * (double)b->array_bytes * (iterations + 3) * sqrt((double)b->cores / team);
    r->touch_bytes = (double)s.arrays * (double)b->array_bytes;
    return TS_OK;
}

/* Sizes: LLC_MULTIPLE x the last-level caches of the allowed cores, capped so that the three
 * arrays of triad take at most half the smallest memory limit. */
static int choose_size(struct ts_battery *b, const ts_topology *topo, const struct ts_node *node, int64_t inferred_llc,
                       struct ts_error *err)
{
    int *cpus = malloc((size_t)(node->n_pus > 0 ? node->n_pus : 1) * sizeof *cpus);
    if (!cpus)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "survey: the node's CPUs");
    int n = 0;
    for (int i = 0; i < node->n_pus; i++)
        if (node->pus[i].allowed)
            cpus[n++] = node->pus[i].os_index;
    struct ts_llc llc;
    ts_affinity_llc(topo, cpus, n, &llc);
    free(cpus);
    b->llc_bytes = b->hwloc_llc = llc.bytes;
    char why[160];
    int64_t bytes;
    if (llc.bytes > 0) {
        bytes = LLC_MULTIPLE * llc.bytes;
        snprintf(why, sizeof why, "%dx the last-level cache (%lld MiB, L%d, hwloc)", LLC_MULTIPLE,
                 (long long)(llc.bytes >> 20), llc.level);
    } else if (inferred_llc > 0) {
        b->llc_bytes = inferred_llc;
        bytes = LLC_MULTIPLE * inferred_llc;
        snprintf(why, sizeof why, "%dx the last-level cache (%lld KiB, " TS_BATTERY_SWEEP_SIZED ": hwloc knows none)",
                 LLC_MULTIPLE, (long long)(inferred_llc >> 10));
    } else {
        bytes = LLC_MULTIPLE * LLC_FALLBACK;
        snprintf(why, sizeof why, "%dx an assumed 32 MiB last-level cache (hwloc knows none here)", LLC_MULTIPLE);
    }
    b->uncapped_bytes = bytes;
    struct ts_memory_limit limits[8];
    int nl = ts_memory_limits(limits, 8);
    int tightest = -1;
    for (int i = 0; i < nl; i++)
        if (tightest < 0 || limits[i].bytes < limits[tightest].bytes)
            tightest = i;
    size_t used = (size_t)snprintf(b->size_reason, sizeof b->size_reason, "%s", why);
    b->cap_bytes = tightest >= 0 ? (int64_t)(limits[tightest].bytes / 6) : 0;
    if (tightest >= 0 && (int64_t)(limits[tightest].bytes / 6) < bytes) {
        bytes = (int64_t)(limits[tightest].bytes / 6);
        snprintf(b->size_reason + used, sizeof b->size_reason - used,
                 ", capped to a sixth of %s (%lld MiB): triad's three arrays in half of it", limits[tightest].source,
                 (long long)(limits[tightest].bytes >> 20));
        used = strlen(b->size_reason);
    }
    const char *scale_text = getenv("TOUCHSTONE_SURVEY_SCALE");
    if (scale_text && scale_text[0]) {
        char *end = NULL;
        errno = 0;
        double scale = strtod(scale_text, &end);
        if (errno || end == scale_text || *end != '\0' || !(scale > 0 && scale <= 1))
            return ts_fail(err, TS_BAD_INPUT, "survey: TOUCHSTONE_SURVEY_SCALE=%s: not a number in (0, 1]", scale_text);
        bytes = (int64_t)((double)bytes * scale);
        b->scale = scale;
        b->uncapped_bytes = (int64_t)((double)b->uncapped_bytes * scale);
        snprintf(b->size_reason + used, sizeof b->size_reason - used, ", scaled by TOUCHSTONE_SURVEY_SCALE=%s",
                 scale_text);
        used = strlen(b->size_reason);
    }
    if (bytes < MIN_ARRAY) {
        bytes = MIN_ARRAY;
        snprintf(b->size_reason + used, sizeof b->size_reason - used, ", raised to the least of 64 KiB");
    }
    b->array_bytes = bytes / 4096 * 4096;
    return TS_OK;
}

/* The NUMA matrix's work, for the estimate: per cell, the bytes swept (sum's one array and
 * triad's three for the repetitions and a warm-up), those touched first (theirs and the loaded
 * chase's stream array) and the steps of its three chases (4 KiB pages, 2 MiB pages, loaded:
 * a warm-up lap and the repetitions each, and the lines each build writes), each step a cache
 * miss. Sizes as app/survey_matrix.c and topo/ts_numa_matrix.c pick them: 8x hwloc's LLC, at
 * least 64 MiB (the sweep's inferred LLC is not the matrix's), steps one a line within 2^20 and
 * 2^22; scaled runs (tests) a share of 64 MiB, at least 1 MiB, and 2^16 steps. */
static void matrix_work(struct ts_battery *b, int64_t hwloc_llc, int nodes, int full)
{
    const int64_t mib = (int64_t)1 << 20;
    const int reps = full ? 5 : 3;
    double bytes, steps;
    if (b->scale < 1.0) {
        bytes = fmax((double)mib, b->scale * 64.0 * (double)mib);
        steps = 65536;
    } else {
        bytes = fmax(64.0 * (double)mib, 8.0 * (double)hwloc_llc);
        steps = fmin(fmax(bytes / 64, (double)(1 << 20)), (double)(1 << 22));
    }
    const double lines = bytes / 64, lap = fmin(lines, steps);
    const double cells = (double)(nodes > 0 ? nodes : 1) * (double)(nodes > 0 ? nodes : 1);
    b->matrix_weight = cells * 4.0 * bytes * (reps + 1);
    b->matrix_touch = cells * 5.0 * bytes;
    b->matrix_steps = cells * 3.0 * (lap + reps * steps + lines);
}

/* TOUCHSTONE_SURVEY_REPEATS (tests): runs per point, 1 to TS_BATTERY_MAX_REPEATS. */
static int repeats_of(struct ts_battery *b, struct ts_error *err)
{
    const char *text = getenv("TOUCHSTONE_SURVEY_REPEATS");
    b->repeats = TS_BATTERY_REPEATS;
    if (!text || !text[0])
        return TS_OK;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < 1 || v > TS_BATTERY_MAX_REPEATS)
        return ts_fail(err, TS_BAD_INPUT, "survey: TOUCHSTONE_SURVEY_REPEATS=%s: not a whole number from 1 to %d", text,
                       TS_BATTERY_MAX_REPEATS);
    b->repeats = (int)v;
    return TS_OK;
}

/* One run of every point of the battery, in the order docs/survey.md gives. */
static int plan_round(struct planner *p, int full, struct ts_error *err)
{
    const int iters = full ? 50 : 10, brief = full ? 10 : 3;
    static const char *const all4[] = { "stencil2d", "triad", "sum", "stencil3d" };
    static const char *const two[] = { "stencil2d", "triad" };
    const char *const *init_k = full ? all4 : two;
    const int n_init = full ? 4 : 2;
    const char *const *bind_k = two;
    const int n_bind = full ? 2 : 1;
    const char *const *scale_k = full ? all4 : two + 1; /* quick: triad */
    const int n_scale = full ? 4 : 1;
    const char *const *policy_k = full ? two : two + 1;
    const int n_policy = full ? 2 : 1;
    const int T = p->b->cores;
    int status = TS_OK;
    char stacked[32];
    snprintf(stacked, sizeof stacked, "{%d}", p->first_cpu);
    for (int k = 0; status == TS_OK && k < n_init; k++) {
        status = add_run(p, TS_SURVEY_INIT, init_k[k], "parallel", T, "parallel", "firsttouch", "cores", "close", iters,
                         err);
        if (status == TS_OK)
            status = add_run(p, TS_SURVEY_INIT, init_k[k], "serial", T, "serial", "firsttouch", "cores", "close", iters,
                             err);
    }
    for (int k = 0; status == TS_OK && k < n_bind; k++) {
        status = add_run(p, TS_SURVEY_BINDING, bind_k[k], "close", T, "parallel", "firsttouch", "cores", "close", iters,
                         err);
        if (status == TS_OK)
            status = add_run(p, TS_SURVEY_BINDING, bind_k[k], "spread", T, "parallel", "firsttouch", "cores", "spread",
                             iters, err);
        if (status == TS_OK)
            status = add_run(p, TS_SURVEY_BINDING, bind_k[k], "unbound", T, "parallel", "firsttouch", "cores", "false",
                             iters, err);
        if (status == TS_OK)
            status = add_run(p, TS_SURVEY_BINDING, bind_k[k], "stacked", T, "parallel", "firsttouch", stacked, "close",
                             brief, err);
    }
    for (int k = 0; status == TS_OK && k < n_scale; k++)
        for (int t = 1; status == TS_OK && t <= T; t = t * 2 < T || t == T ? t * 2 : T)
            status = add_run(p, TS_SURVEY_SCALING, scale_k[k], "", t, "parallel", "firsttouch", "cores", "close", iters,
                             err);
    for (int k = 0; status == TS_OK && k < n_policy; k++) {
        status = add_run(p, TS_SURVEY_POLICY, policy_k[k], "firsttouch", T, "parallel", "firsttouch", "cores", "close",
                         iters, err);
        if (status == TS_OK)
            status = add_run(p, TS_SURVEY_POLICY, policy_k[k], "interleave", T, "parallel", "interleave", "cores",
                             "close", iters, err);
    }
    return status;
}

int ts_battery_plan(const char *mode, const ts_topology *topo, const char *dir, const char *exe, int64_t keep_bytes,
                    int64_t inferred_llc, struct ts_battery *b, struct ts_error *err)
{
    memset(b, 0, sizeof *b);
    b->scale = 1.0;
    snprintf(b->mode, sizeof b->mode, "%s", mode);
    struct ts_node node;
    int status = ts_node_from_topology(topo, &node, err);
    if (status != TS_OK)
        return status;
    int first_cpu = -1, last_core = -1;
    for (int i = 0; i < node.n_pus; i++) {
        if (!node.pus[i].allowed)
            continue;
        if (first_cpu < 0)
            first_cpu = node.pus[i].os_index;
        if (node.pus[i].core != last_core) { /* logical order: a core's PUs are together */
            b->cores++;
            last_core = node.pus[i].core;
        }
    }
    if (b->cores < 1) {
        ts_node_free(&node);
        return ts_fail(err, TS_BAD_INPUT, "survey: no allowed core on this node");
    }
    const int node_count = node.n_numa;
    status = choose_size(b, topo, &node, inferred_llc, err);
    ts_node_free(&node);
    if (status == TS_OK)
        status = repeats_of(b, err);
    if (status != TS_OK)
        return status;
    if (keep_bytes > 0 && keep_bytes != b->array_bytes) {
        b->array_bytes = keep_bytes;
        snprintf(b->size_reason, sizeof b->size_reason, "kept from the survey being resumed (%lld MiB now)",
                 (long long)(b->uncapped_bytes >> 20));
    }
    if (snprintf(b->config, sizeof b->config, "%s/survey.ini", dir) >= (int)sizeof b->config)
        return ts_fail(err, TS_BAD_INPUT, "survey: folder name too long: %s", dir);

    const int full = strcmp(mode, "full") == 0;
    struct planner p = { .b = b, .dir = dir, .exe = exe, .first_cpu = first_cpu };
    /* Round after round (A B C A B C, never A A A): a slow minute of the machine then falls on
     * one run of each point, not on all runs of one, and the spread between a point's runs
     * shows it (docs/survey.md, "Repeats and noise"). */
    for (p.repeat = 1; status == TS_OK && p.repeat <= b->repeats; p.repeat++)
        status = plan_round(&p, full, err);
    matrix_work(b, b->hwloc_llc, node_count, full);
    if (status != TS_OK)
        ts_battery_free(b);
    return status;
}

void ts_battery_free(struct ts_battery *b)
{
    free(b->runs);
    b->runs = NULL;
    b->n_runs = 0;
}
