/* touchstone show: a run file's warnings and summary again, as the run printed them, for a
 * ticket or a log that was lost; read through the same validating, isolated reader as
 * compare. Files from before schema 2 kept no summary: show prints what the reader has. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "readback_stats.h"
#include "ts_run_ranks.h"
#include "ts_text_safe.h"

/* Calls fn(line, ctx) for each '\n'-separated line of text (NULL: none). */
static void each_line(const char *text, void (*fn)(const char *line, size_t len, void *ctx), void *ctx)
{
    for (const char *p = text; p;) {
        const char *eol = strchr(p, '\n');
        fn(p, eol ? (size_t)(eol - p) : strlen(p), ctx);
        p = eol ? eol + 1 : NULL;
    }
}

static void print_warning(const char *line, size_t len, void *out)
{
    fprintf(out, "touchstone: warning: %.*s\n", (int)len, line);
}

static void print_line(const char *line, size_t len, void *out)
{
    fprintf(out, "%.*s\n", (int)len, line);
}

/* A schema 1 file: the summary's facts as the reader has them, in its layout. */
static void print_facts(const struct ts_run_summary *s, const struct ts_run_stats *st, FILE *out)
{
    char size[96];
    ts_run_size_text(s, size, sizeof size);
    fprintf(out, "touchstone %s: %s, %s\n", s->program_version, s->kernel, size);
    fprintf(out, "  threads    %d, OMP_PLACES=%s, OMP_PROC_BIND=%s\n", s->n_threads, s->places, s->proc_bind);
    fprintf(out, "  init       %s first touch, %.3f s\n", s->init_mode, s->init_time);
    if (s->has_placement)
        fprintf(out, "  pages      local to their thread after init: %.1f%%\n", 100 * s->local_fraction);
    if (!isnan(s->involuntary))
        fprintf(out, "  counters   kernel: %.0f involuntary switches\n", s->involuntary);
    fprintf(out, "  kernel     %lld iterations (+%lld warm-up), per iteration: min %.4g s, median %.4g s, max %.4g s\n",
            (long long)s->n_iterations, (long long)s->n_warmup, s->time_min, s->time_median, s->time_max);
    if (s->variant[0])
        fprintf(out, "  variant    %s\n", s->variant);
    fprintf(out, "  bandwidth  %.2f GB/s median, %.2f GB/s best\n", s->gbs_median, s->gbs_best);
    if (!isnan(s->glups_median))
        fprintf(out, "  rate       %.3f GLUP/s median (%.3f best)\n", s->glups_median, s->glups_best);
    fprintf(out, "  result     %.17g\n", s->global);
    fprintf(out, "  verified   %s\n", !s->complete ? "stopped early" : s->verified ? "PASSED" : "FAILED");
    if (st->disturbed > 0)
        fprintf(out, "  DISTURBED  %s\n", st->disturbed_why);
    if (s->n_warnings > 0)
        fprintf(out, "  warnings   %lld (see above and /warnings)\n", (long long)s->n_warnings);
}

static void print_text(const struct ts_run_summary *s, const struct ts_run_stats *st, FILE *out)
{
    fprintf(out, "# %s: written by touchstone %s on %s at %s%s%s (schema_version %d)%s\n", s->file, s->program_version,
            s->host, s->start_time, s->job_id[0] ? ", job " : "", s->job_id, s->schema_version,
            s->summary ? "" : "; the file predates stored summaries: what it holds");
    if (s->build_commit[0])
        fprintf(out, "# built from commit %s by %s; OpenMP %s; MPI %s; HDF5 %s\n", s->build_commit, s->build_compiler,
                s->build_openmp, s->build_mpi, s->build_hdf5);
    each_line(s->warning_text, print_warning, out);
    if (s->summary)
        each_line(s->summary, print_line, out);
    else
        print_facts(s, st, out);
    ts_ranks_print(s, out);
}

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static void append_line(const char *line, size_t len, void *array)
{
    json_array_append_new(array, json_stringn(line, len));
}

static json_t *lines(const char *text)
{
    json_t *a = json_array();
    if (a)
        each_line(text, append_line, a);
    return a;
}

static json_t *machine_json(int has, const struct ts_machine_rec *m)
{
    if (!has)
        return json_null();
    return json_pack("{s:s, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "cpus", m->cpus, "n_cpus", m->n_cpus,
                     "online_cpus", m->online_cpus, "elapsed_s", number(m->elapsed), "own_cpu_s", number(m->own_cpu),
                     "busy_s", number(m->busy), "others_cpu_s", number(m->others_cpu), "steal_s", number(m->steal),
                     "clock_tick_s", number(m->clock_tick), "load_start", number(m->load_start), "load_end",
                     number(m->load_end));
}

/* A count of /counters/init_memory: null when the kernel has none (-1). */
static json_t *count(int64_t v)
{
    return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static json_t *init_memory_json(const struct ts_run_summary *s)
{
    const struct ts_init_memory_rec *m = &s->init_memory;
    if (!s->has_init_memory)
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "elapsed_s", number(m->elapsed),
                     "memory_stall_s", m->memory_stall >= 0 ? number(m->memory_stall) : json_null(), "thp_fault_alloc",
                     count(m->thp_fault_alloc), "thp_fault_fallback", count(m->thp_fault_fallback),
                     "thp_fault_fallback_charge", count(m->thp_fault_fallback_charge), "compact_stall",
                     count(m->compact_stall), "compact_fail", count(m->compact_fail), "compact_success",
                     count(m->compact_success), "allocstall", count(m->allocstall), "pgfault", count(m->pgfault),
                     "pgmajfault", count(m->pgmajfault));
}

/* The build that wrote the file, as its --version said; null in files before build_*. */
static json_t *build_json(const struct ts_run_summary *s)
{
    if (!s->build_commit[0])
        return json_null();
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "commit", s->build_commit, "compiler", s->build_compiler, "openmp",
                     s->build_openmp, "mpi", s->build_mpi, "hdf5", s->build_hdf5);
}

/* The reader's fields (io/ts_run_read.h) but the per-iteration arrays, then the texts. */
static json_t *show_json(const struct ts_run_summary *s, const struct ts_run_stats *st)
{
    char size[96], file[sizeof s->file];
    ts_run_size_text(s, size, sizeof size);
    snprintf(file, sizeof file, "%s", s->file); /* as typed: maybe not UTF-8, which JSON must be */
    ts_sanitize_text(file);
    json_t *o = json_pack("{s:s, s:i, s:s, s:b, s:s, s:s, s:s, s:s}", "file", file, "schema_version", s->schema_version,
                          "program_version", s->program_version, "complete", s->complete, "host", s->host, "start_time",
                          s->start_time, "job_id", s->job_id, "config_path", s->config_path);
    json_t *run =
        json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I}", "kernel", s->kernel,
                  "size", size, "n", (json_int_t)s->n, "nx", (json_int_t)s->nx, "ny", (json_int_t)s->ny, "nz",
                  (json_int_t)s->nz, "init_mode", s->init_mode, "policy", s->policy, "omp_places", s->places,
                  "omp_proc_bind", s->proc_bind, "variant", s->variant, "huge_pages", s->huge_pages, "threads",
                  s->n_threads, "iterations", (json_int_t)s->n_iterations, "warmup", (json_int_t)s->n_warmup);
    json_t *figures = json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:I, s:o, s:o, s:o}", "init_s",
        number(s->init_time), "kernel_s", number(s->kernel_time), "time_min_s", number(s->time_min), "time_median_s",
        number(s->time_median), "time_max_s", number(s->time_max), "gbs_best", number(s->gbs_best), "gbs_median",
        number(s->gbs_median), "glups_best", number(s->glups_best), "glups_median", number(s->glups_median), "result",
        number(s->global), "local_fraction", number(s->local_fraction), "verified", s->verified, "n_warnings",
        (json_int_t)s->n_warnings, "involuntary_switches", number(s->involuntary), "voluntary_switches",
        number(s->voluntary), "wait_s", number(s->wait));
    int ok = o && run && figures && json_object_update(o, run) == 0 && json_object_update(o, figures) == 0
             && json_object_set_new(o, "build", build_json(s)) == 0
             && json_object_set_new(o, "machine", machine_json(s->has_machine, &s->machine)) == 0
             && json_object_set_new(o, "init_machine", machine_json(s->has_init_machine, &s->init_machine)) == 0
             && json_object_set_new(o, "init_memory", init_memory_json(s)) == 0
             && json_object_set_new(o, "init_by_machine", json_string(ts_disturbed_text(st->init_by_machine))) == 0
             && json_object_set_new(o, "init_by_machine_why",
                                    json_string(st->init_by_machine > 0 ? st->init_by_machine_why : ""))
                    == 0
             && json_object_set_new(o, "mpi", ts_ranks_json(s)) == 0
             && json_object_set_new(o, "disturbed", json_string(ts_disturbed_text(st->disturbed))) == 0
             && json_object_set_new(o, "disturbed_why", json_string(st->disturbed > 0 ? st->disturbed_why : "")) == 0
             && json_object_set_new(o, "summary", s->summary ? lines(s->summary) : json_null()) == 0
             && json_object_set_new(o, "warnings", s->warning_text ? lines(s->warning_text) : json_array()) == 0;
    json_decref(run);
    json_decref(figures);
    if (!ok) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

int ts_show_cmd(const struct ts_runs_args *a, struct ts_error *err)
{
    struct ts_run_summary s;
    struct ts_run_stats st;
    if (ts_run_read_file_isolated(a->files[0], &s, err) != TS_OK)
        return err->status;
    int rc = ts_run_stats_of(&s, &st);
    if (rc == 0 && a->format == TS_TABLE_JSON) {
        json_t *o = show_json(&s, &st);
        rc = o && json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? 0 : -1;
        json_decref(o);
        if (rc == 0)
            fputc('\n', stdout);
    } else if (rc == 0) {
        print_text(&s, &st, stdout);
    }
    int failed = rc != 0 || fflush(stdout) != 0 || ferror(stdout);
    ts_run_summary_free(&s);
    if (rc != 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "show");
    return failed ? ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO, "show: cannot print %s", a->files[0]) : TS_OK;
}
