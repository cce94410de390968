/* The run-file reader behind compare, report and plot (ts_run_read_image: the bytes of a file,
 * read in this process). Every input ends in a summary that keeps the schema's promises or
 * in an error naming the file; either way nothing of the file stays open in HDF5. A summary
 * read also makes an HTML report (io/ts_html.h), which must build.
 * HDF5 1.10 itself crashes or hangs on some corrupted files (its global heap): the commands
 * read in a child process for that reason, this harness reads in-process so that libFuzzer
 * sees coverage, and tests/fuzz/run_fuzz.sh sorts each crash by whose code crashed. */
#include <float.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "fuzz_util.h"
#include "ts_html.h"
#include "ts_run_ranks.h"
#include "ts_run_read.h"

#define NAME "fuzzed.h5"

static void check_text(const char *what, const char *s, size_t size)
{
    FUZZ_CHECK(memchr(s, '\0', size) != NULL, "%s is not terminated", what);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "%s holds control character 0x%02x", what, *p);
}

#define TEXT(f) check_text(#f, s->f, sizeof s->f)

/* Lines joined by '\n' (warnings, summary): NULL exactly when there are none, `lines` of them,
 * each at most TS_READ_MAX_LINE bytes, bytes counting the NUL, no other control character. */
static void check_lines(const char *what, const char *text, size_t bytes, int64_t lines)
{
    FUZZ_CHECK(lines >= 0 && lines <= TS_READ_MAX_LINES, "%s: %lld lines", what, (long long)lines);
    FUZZ_CHECK((text == NULL) == (lines == 0), "%s: text %s for %lld lines", what, text ? "present" : "missing",
               (long long)lines);
    if (!text) {
        FUZZ_CHECK(bytes == 0, "%s: %zu bytes without text", what, bytes);
        return;
    }
    FUZZ_CHECK(strlen(text) + 1 == bytes, "%s: %zu bytes, the text holds %zu", what, bytes, strlen(text) + 1);
    int64_t n = 1;
    size_t line = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') {
            n++;
            line = 0;
            continue;
        }
        FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "%s holds control character 0x%02x", what, *p);
        FUZZ_CHECK(++line <= TS_READ_MAX_LINE, "%s: a line longer than %d bytes", what, TS_READ_MAX_LINE);
    }
    FUZZ_CHECK(n == lines, "%s: %lld lines in the text, %lld counted", what, (long long)n, (long long)lines);
}

static void in_range(const char *what, const double *v, size_t n, double lo, double hi, int nan_ok)
{
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(isnan(v[i]) ? nan_ok : v[i] >= lo && v[i] <= hi, "%s[%zu] = %g outside %g..%g", what, i, v[i], lo,
                   hi);
}

/* Whether s is one of the NULL-terminated names (record/ts_record.h's enumerations). */
static int one_of(const char *s, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(s, *names) == 0)
            return 1;
    return 0;
}

/* What the readers' callers rely on (docs/hdf5-schema.md; io/ts_run_read.c). */
static void check_summary(const struct ts_run_summary *s)
{
    FUZZ_CHECK(s->kind == TS_FILE_RUN, "read as kind %d", (int)s->kind);
    FUZZ_CHECK(s->schema_version >= 1 && s->schema_version <= TS_READ_SCHEMA_VERSION, "schema_version %d",
               s->schema_version);
    FUZZ_CHECK(s->complete == 0 || s->complete == 1, "complete %d", s->complete);
    TEXT(program_version);
    TEXT(host);
    TEXT(start_time);
    TEXT(config_path);
    TEXT(kernel);
    TEXT(init_mode);
    TEXT(policy);
    TEXT(places);
    TEXT(proc_bind);
    FUZZ_CHECK(one_of(s->kernel, (const char *const[])TS_KERNEL_NAMES), "kernel '%s' is none of touchstone's",
               s->kernel);
    FUZZ_CHECK(one_of(s->init_mode, (const char *const[])TS_INIT_MODES), "init mode '%s'", s->init_mode);
    FUZZ_CHECK(s->n_threads >= 1 && s->n_threads <= 65536, "n_threads %d", s->n_threads);
    FUZZ_CHECK(s->n_iterations >= 0 && s->n_iterations * s->n_threads <= TS_READ_MAX_VALUES,
               "%lld iterations x %d threads", (long long)s->n_iterations, s->n_threads);
    FUZZ_CHECK(s->n > 0 || s->nx > 0, "no problem size");
    FUZZ_CHECK(s->iteration && s->thread_iteration, "arrays missing");
    size_t iters = (size_t)s->n_iterations, threads = (size_t)s->n_threads;
    in_range("iteration", s->iteration, iters, 0, HUGE_VAL, 0);
    in_range("thread_iteration", s->thread_iteration, iters * threads, 0, HUGE_VAL, 1);
    /* NaN: whole iterations not measured, the first ones (before a restart). */
    for (size_t i = 0, measured = 0; i < iters; i++)
        for (size_t t = 0; t < threads; t++) {
            int nan = isnan(s->thread_iteration[t * iters + i]);
            FUZZ_CHECK(!nan || (!measured && isnan(s->thread_iteration[i])), "thread_iteration[%zu][%zu] is NaN", t, i);
            measured |= !nan;
        }
    if (iters > 0)
        FUZZ_CHECK(s->time_min <= s->time_median && s->time_median <= s->time_max, "time_min/median/max out of order");
    else
        FUZZ_CHECK(!s->complete && isnan(s->time_min) && isnan(s->time_median) && isnan(s->time_max)
                       && isnan(s->gbs_best) && isnan(s->gbs_median),
                   "no timed iteration, yet complete %d or time statistics (%g %g %g)", s->complete, s->time_min,
                   s->time_median, s->time_max);
    FUZZ_CHECK(s->verified == 0 || s->verified == 1, "verified %d", s->verified);
    FUZZ_CHECK(s->n_warnings >= 0, "n_warnings %lld", (long long)s->n_warnings);
    FUZZ_CHECK(s->has_placement == (s->thread_local_fraction != NULL), "placement flag and array disagree");
    if (s->has_placement) {
        in_range("local_fraction", &s->local_fraction, 1, 0, 1, 1);
        in_range("thread_local_fraction", s->thread_local_fraction, (size_t)s->n_threads, 0, 1, 1);
    }
    /* Since schema 2, and what every schema may lack. */
    TEXT(job_id);
    TEXT(variant);
    TEXT(huge_pages);
    in_range("kernel_time", &s->kernel_time, 1, 0, DBL_MAX, 0);
    in_range("involuntary", &s->involuntary, 1, 0, HUGE_VAL, 1);
    in_range("voluntary", &s->voluntary, 1, 0, HUGE_VAL, 1);
    check_lines("warning_text", s->warning_text, s->warning_bytes, s->n_warnings);
    check_lines("summary", s->summary, s->summary_bytes, s->n_summary);
    FUZZ_CHECK(s->has_machine == 0 || s->has_machine == 1, "has_machine %d", s->has_machine);
    if (s->has_machine) {
        const struct ts_machine_rec *m = &s->machine;
        TEXT(machine.cpus);
        FUZZ_CHECK(m->n_cpus >= 1 && m->online_cpus >= 1, "machine: %d CPUs, %d online", m->n_cpus, m->online_cpus);
        const double seconds[] = { m->elapsed, m->own_cpu, m->busy, m->others_cpu, m->steal };
        in_range("machine seconds", seconds, 5, 0, DBL_MAX, 0);
        in_range("machine clock_tick", &m->clock_tick, 1, DBL_MIN, 1, 0);
        const double loads[] = { m->load_start, m->load_end };
        in_range("machine loads", loads, 2, 0, 1e9, 0);
    }
    /* Since schema 3: the ranks tile the threads in order, their times agree with their rows. */
    FUZZ_CHECK(s->n_ranks >= 0 && s->n_ranks <= s->n_threads, "%d ranks of %d threads", s->n_ranks, s->n_threads);
    FUZZ_CHECK((s->n_ranks > 0) == (s->ranks != NULL) && (s->ranks != NULL) == (s->rank_iteration != NULL)
                   && (s->ranks != NULL) == (s->rank_halo_iteration != NULL),
               "rank arrays and n_ranks %d disagree", s->n_ranks);
    TEXT(launcher);
    TEXT(mpi_library);
    TEXT(thread_level);
    TEXT(decomposition);
    int64_t next = 0;
    for (int32_t k = 0; k < s->n_ranks; k++) {
        const struct ts_rank_rec *r = &s->ranks[k];
        TEXT(ranks[k].host);
        TEXT(ranks[k].boot_id);
        FUZZ_CHECK(r->rank == k && r->first_thread == next && r->n_threads >= 1,
                   "rank row %d: rank %d, threads %d from %d", k, r->rank, r->n_threads, r->first_thread);
        FUZZ_CHECK(r->local_rank >= 0 && r->local_rank < s->n_ranks, "rank %d: local rank %d", k, r->local_rank);
        next += r->n_threads;
        in_range("rank_iteration", s->rank_iteration + (size_t)k * iters, iters, 0, DBL_MAX, 1);
        in_range("rank_halo_iteration", s->rank_halo_iteration + (size_t)k * iters, iters, 0, DBL_MAX, 1);
        in_range("rank halo", &r->halo, 1, 0, DBL_MAX, 0);
    }
    FUZZ_CHECK(s->n_ranks == 0 || next == s->n_threads, "the ranks have %lld of %d threads", (long long)next,
               s->n_threads);
    FUZZ_CHECK(s->n_ranks == 0 || (s->n_hosts >= 1 && s->n_hosts <= s->n_ranks), "%d hosts for %d ranks", s->n_hosts,
               s->n_ranks);
    char size[128];
    ts_run_size_text(s, size, sizeof size);
    /* show's ranks section, text and JSON, from whatever the reader let through. */
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        ts_ranks_print(s, sink);
        fclose(sink);
    }
    json_t *ranks = ts_ranks_json(s);
    FUZZ_CHECK(ranks != NULL, "no JSON for the ranks");
    json_decref(ranks);
    /* The layout the HTML report draws (h5_layout_read.c): rows as counted, nodes known. */
    const struct ts_topology_rec *t = &s->topology;
    FUZZ_CHECK((t->n_numa > 0) == (t->numa != NULL) && (t->n_cores_rec > 0) == (t->cores != NULL)
                   && (t->n_caches > 0) == (t->caches != NULL) && (t->numa != NULL) == (t->distances != NULL),
               "topology rows and counts disagree (%d nodes, %d cores, %d caches)", t->n_numa, t->n_cores_rec,
               t->n_caches);
    for (int32_t i = 0; i < t->n_numa; i++)
        TEXT(topology.numa[i].cpus);
    for (int32_t i = 0; i < t->n_cores_rec; i++)
        TEXT(topology.cores[i].cpus);
    for (int32_t i = 0; i < t->n_caches; i++)
        TEXT(topology.caches[i].type);
    for (int32_t i = 0; s->threads && i < s->n_threads; i++) {
        TEXT(threads[i].place_cpus);
        TEXT(threads[i].affinity);
        TEXT(threads[i].host);
    }
    FUZZ_CHECK((s->n_place_nodes > 0) == (s->place_node_ids != NULL)
                   && (s->place_node_ids != NULL) == (s->thread_node_pages != NULL),
               "placement nodes %d and their arrays disagree", s->n_place_nodes);
    TEXT(command_line);
    /* The HTML report of whatever the reader let through builds, and says what it is. */
    char *html = NULL;
    size_t bytes = 0;
    struct ts_error err;
    ts_error_clear(&err);
    FUZZ_CHECK(ts_html_build(NULL, s, 1, &html, &bytes, &err) == TS_OK, "the HTML report: %s", err.message);
    FUZZ_CHECK(html && strlen(html) == bytes && strstr(html, "<section id=\"commands\">"),
               "the HTML report is incomplete");
    free(html);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_hdf5_heap_known_bad(data, size)) {
        fuzz_note("run_read: skipped, a global heap HDF5 1.10 cannot read");
        return 0;
    }
    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_run_read_image(data, size, NAME, &s, &err);
    fuzz_note("run_read: %s", status == TS_OK ? "read" : err.message);
    if (status == TS_OK) {
        check_summary(&s);
    } else {
        FUZZ_CHECK(status == TS_BAD_INPUT, "status %d", status);
        FUZZ_CHECK(strstr(err.message, NAME) != NULL, "the error does not name the file: %s", err.message);
        FUZZ_CHECK(!s.iteration && !s.thread_iteration && !s.thread_local_fraction && !s.warning_text && !s.summary
                       && !s.ranks && !s.rank_iteration && !s.rank_halo_iteration,
                   "arrays left after an error");
    }
    ts_run_summary_free(&s);
    /* The reader closes what it opened, on every path (its file image is shared by name). */
    ssize_t open_ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    FUZZ_CHECK(open_ids == 0, "%zd HDF5 objects still open after the read", open_ids);
    return 0;
}
