#include "ts_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts_disturbed.h"
#include "ts_init_by_machine.h"

static const char *binding_value(const struct ts_record *rec, const char *name)
{
    for (int i = 0; i < rec->n_binding; i++)
        if (strcmp(rec->binding[i].name, name) == 0)
            return rec->binding[i].value;
    return "?";
}

static void print_size(const struct ts_results_rec *r, FILE *out)
{
    if (r->nx > 0 && r->nz > 1)
        fprintf(out, "%lld x %lld x %lld grid", (long long)r->nx, (long long)r->ny, (long long)r->nz);
    else if (r->nx > 0)
        fprintf(out, "%lld x %lld grid", (long long)r->nx, (long long)r->ny);
    else
        fprintf(out, "%lld elements", (long long)r->n);
    fprintf(out, ", %.4g M %ss per iteration", (double)r->units_per_iteration * 1e-6, r->unit);
}

/* "t0 cpu0/core0/node0, t1 cpu1/core1/node0", shortened for big runs; with ranks
 * "r1.t0 cpu0/core0/node0", and the host when there are several. */
static void print_threads(const struct ts_record *rec, FILE *out)
{
    const int shown = rec->n_threads <= 8 ? rec->n_threads : 6;
    const int hosts = rec->mpi && rec->mpi->n_hosts > 1;
    fprintf(out, "  ran on     ");
    for (int t = 0; t < shown; t++) {
        const struct ts_thread_rec *th = &rec->threads[t];
        fprintf(out, "%s", t ? ", " : "");
        if (rec->mpi)
            fprintf(out, "r%d.", th->rank);
        fprintf(out, "t%d %s%scpu%d/core%d/node%d", th->thread, hosts ? th->host : "", hosts ? "/" : "", th->cpu_start,
                th->core, th->node);
    }
    if (shown < rec->n_threads)
        fprintf(out, ", ... (all %d threads in /threads)", rec->n_threads);
    fprintf(out, "\n");
}

/* A transparent huge page: the audit's page when every block of every array was one. */
#define HUGE_PAGE_BYTES ((int64_t)2 << 20)

/* "pages local to their thread: 100.0% (parallel init, firsttouch; ...)"; huge pages say so,
 * since one of them counts for 512 base pages. */
static void print_placement(const struct ts_placement_rec *p, const char *init_mode, int n_ranks, FILE *out)
{
    int64_t pages = p->rows_later ? p->pages : 0;
    for (int t = 0; !p->rows_later && t < p->n_threads; t++)
        pages += p->thread_pages[t];
    fprintf(out,
            "  pages      local to their thread after %s: %.1f%% (%s init, %s policy; %lld pages%s, every %lld%s, %.3f "
            "s)\n",
            p->measured_after, 100.0 * p->local_fraction, init_mode, p->policy, (long long)pages,
            p->page_size == HUGE_PAGE_BYTES ? " of 2 MiB" : "", (long long)p->sample_stride,
            p->sample_stride == 1 ? "" : " sampled", p->time);
    if ((!p->thread_rank && !p->rows_later) || n_ranks < 2)
        return;
    /* Each rank's share: a rank whose pages went astray stands out from the total. */
    fprintf(out, "             by rank:");
    const int shown = n_ranks <= 8 ? n_ranks : 6;
    for (int r = 0; r < shown; r++) {
        int64_t owned = 0, local = 0;
        for (int t = 0; !p->rows_later && t < p->n_threads; t++)
            if (p->thread_rank[t] == r) {
                owned += p->thread_pages[t];
                local += p->thread_local_pages[t];
            }
        const double fraction = p->rows_later ? (r < p->n_ranks_head ? p->rank_local_fraction[r] : 0.0)
                                : owned > 0   ? (double)local / (double)owned
                                              : 0.0;
        fprintf(out, "%s r%d %.1f%%", r ? "," : "", r, 100.0 * fraction);
    }
    fprintf(out, "%s\n", shown < n_ranks ? ", ... (every thread in /placement)" : "");
}

/* The ranks: how many, where, how the problem was split, and which rank set the pace. */
static void print_ranks(const struct ts_record *rec, FILE *out)
{
    const struct ts_mpi_rec *m = rec->mpi;
    fprintf(out, "  ranks      %d x %d thread%s on %d host%s%s, %s %s, %s\n", m->size,
            m->size > 0 ? rec->n_threads / m->size : 0, rec->n_threads == m->size ? "" : "s", m->n_hosts,
            m->n_hosts == 1 ? "" : "s",
            m->shared_kernel ? " (one kernel under several host names: an emulated cluster)" : "",
            strcmp(m->decomposition, "slices") == 0 ? "split in" : "rank grid", m->decomposition, m->thread_level);
}

/* Which rank set the pace, and what the halo exchange and the reduction cost. */
static void print_rank_times(const struct ts_record *rec, FILE *out)
{
    const struct ts_mpi_rec *m = rec->mpi;
    if (m->size == 0 || m->n_iterations == 0)
        return;
    int slowest = 0;
    double sum = 0.0, halo = 0.0, time = 0.0, reduction = 0.0;
    for (int r = 0; r < m->size; r++) {
        const struct ts_rank_rec *rank = &m->ranks[r];
        if (rank->time_median > m->ranks[slowest].time_median)
            slowest = r;
        sum += rank->time_median;
        halo += rank->halo;
        for (int64_t i = 0; m->rank_iteration && i < m->n_iterations; i++)
            time += m->rank_iteration[(size_t)r * (size_t)m->n_iterations + (size_t)i];
        if (rank->reduction > reduction)
            reduction = rank->reduction;
    }
    if (!m->rank_iteration) /* each rank wrote its row: their sum came by a reduction */
        time = m->iteration_time;
    const double mean = sum / m->size, worst = m->ranks[slowest].time_median;
    fprintf(out,
            "  per rank   slowest rank %d (%s): median %.4g s per iteration, imbalance %.1f%% (slowest / mean - 1); "
            "halo exchange %.1f%% of the ranks' iteration time; reduction %.3g s\n",
            slowest, m->ranks[slowest].host, worst, mean > 0.0 ? 100.0 * (worst / mean - 1.0) : 0.0,
            time > 0.0 ? 100.0 * halo / time : 0.0, reduction);
}

/* Who took the init page faults, and whether threads were switched out or moved. */
static void print_counters(const struct ts_counters_rec *c, FILE *out)
{
    int64_t faults = c->sums.init_faults, switches = c->sums.involuntary, migrations = c->sums.migrations;
    if (!c->rows_later) {
        struct ts_counter_sums s;
        ts_counter_sums_of(c->init, c->kernel, c->n_threads, &s);
        faults = s.init_faults;
        switches = s.involuntary;
        migrations = s.migrations;
    }
    fprintf(out, "  counters   init page faults");
    const int shown = c->n_threads <= 8 ? c->n_threads : 6;
    for (int t = 0; t < shown; t++) {
        int64_t f = c->init[t].minor_faults + c->init[t].major_faults;
        fprintf(out, "%s t%d %.0f%%", t ? "," : "", t, faults ? 100.0 * (double)f / (double)faults : 0.0);
    }
    fprintf(out, "%s of %lld; kernel: %lld involuntary switches", shown < c->n_threads ? ", ..." : "",
            (long long)faults, (long long)switches);
    if (c->kernel[0].migrations >= 0)
        fprintf(out, ", %lld migrations", (long long)migrations);
    fprintf(out, "\n");
}

void ts_summary_disturb_facts(const struct ts_record *rec, struct ts_disturb_facts *f)
{
    const struct ts_counters_rec *c = rec->counters;
    const struct ts_machine_rec *m = c ? c->machine : NULL;
    double involuntary = NAN, wait = NAN;
    if (c && c->n_threads > 0) {
        struct ts_counter_sums s = c->sums;
        if (!c->rows_later)
            ts_counter_sums_of(c->init, c->kernel, c->n_threads, &s);
        involuntary = (double)s.involuntary;
        wait = s.wait;
    }
    ts_disturb_facts_of(rec->results->n_threads, rec->timings->kernel, involuntary, wait, m, f);
}

double ts_counters_wait(const struct ts_counter_row *rows, int n)
{
    double wait = n > 0 ? 0.0 : NAN;
    for (int t = 0; t < n; t++)
        wait += rows[t].wait_time; /* one NaN makes the sum NaN: not known */
    return wait;
}

void ts_disturb_facts_of(double n_threads, double kernel_time, double involuntary, double wait,
                         const struct ts_machine_rec *m, struct ts_disturb_facts *f)
{
    *f = (struct ts_disturb_facts){
        .n_threads = n_threads,
        .kernel_time = kernel_time,
        .involuntary = involuntary,
        .wait = wait,
        .n_cpus = m ? m->n_cpus : NAN,
        .online_cpus = m ? m->online_cpus : NAN,
        .elapsed = m ? m->elapsed : NAN,
        .others_cpu = m ? m->others_cpu : NAN,
        .steal = m ? m->steal : NAN,
        .clock_tick = m ? m->clock_tick : NAN,
        .load_start = m ? m->load_start : NAN,
        .load_end = m ? m->load_end : NAN,
    };
}

/* A count as the rule takes it: -1 (not in this kernel) is not known. */
static double count(int64_t v)
{
    return v < 0 ? NAN : (double)v;
}

void ts_init_facts_of(const struct ts_machine_rec *m, const struct ts_init_memory_rec *v, const char *init_mode,
                      int threads, struct ts_init_facts *f)
{
    *f = (struct ts_init_facts){
        .elapsed = v ? v->elapsed : NAN,
        .memory_stall = v && v->memory_stall >= 0 ? v->memory_stall : NAN,
        .compact_stall = v ? count(v->compact_stall) : NAN,
        .allocstall = v ? count(v->allocstall) : NAN,
        .thp_fault_fallback = v ? count(v->thp_fault_fallback) : NAN,
        .n_cpus = m ? m->n_cpus : NAN,
        .machine_elapsed = m ? m->elapsed : NAN,
        .steal = m ? m->steal : NAN,
        .others_cpu = m ? m->others_cpu : NAN,
        .clock_tick = m ? m->clock_tick : NAN,
        .touching = strcmp(init_mode, "serial") == 0 ? 1 : threads,
    };
}

void ts_counter_sums_of(const struct ts_counter_row *init, const struct ts_counter_row *kernel, int n_threads,
                        struct ts_counter_sums *s)
{
    memset(s, 0, sizeof *s);
    for (int t = 0; t < n_threads; t++) {
        s->init_faults += init[t].minor_faults + init[t].major_faults;
        s->involuntary += kernel[t].involuntary_switches;
        s->migrations += kernel[t].migrations > 0 ? kernel[t].migrations : 0;
    }
    s->wait = ts_counters_wait(kernel, n_threads);
}

void ts_init_touch_of(const struct ts_counter_row *init, int n_threads, const struct ts_rank_rec *ranks, int n_ranks,
                      const char *init_mode, double bytes, struct ts_init_facts *f)
{
    f->touch_system = f->touch_span = NAN;
    f->touch_bytes = bytes > 0 ? bytes : NAN;
    if (!init)
        return;
    const int serial = strcmp(init_mode, "serial") == 0;
    double system = 0, span = 0;
    for (int r = 0; r < (n_ranks > 0 ? n_ranks : 1); r++) {
        const int first = n_ranks > 0 ? ranks[r].first_thread : 0;
        const int count = n_ranks > 0 ? ranks[r].n_threads : n_threads;
        const int touching = serial ? 1 : count;
        /* Of their own CPU time, not of the init's wall time: threads that waited for a CPU
         * other processes held (the others' share judges that) still show where their own time
         * went. NaN (not recorded) makes the sums not known. */
        for (int t = first; t < first + touching && t < n_threads; t++) {
            system += init[t].system_time;
            span += init[t].user_time + init[t].system_time;
        }
    }
    f->touch_system = system;
    f->touch_span = span;
}

/* "parallel first touch, 0.229 s", and whose time it was when the machine took most of it. */
static void print_init(const struct ts_record *rec, FILE *out)
{
    const struct ts_counters_rec *c = rec->counters;
    struct ts_init_facts f;
    char why[600];
    ts_init_facts_of(c ? c->init_machine : NULL, c ? c->init_memory : NULL, rec->results->init_mode,
                     rec->mpi && rec->mpi->size > 0 ? rec->mpi->ranks[0].n_threads : rec->n_threads, &f);
    ts_init_touch_of(c && !c->rows_later ? c->init : NULL, c ? c->n_threads : 0, rec->mpi ? rec->mpi->ranks : NULL,
                     rec->mpi ? rec->mpi->size : 0, rec->results->init_mode, (double)rec->results->working_set_bytes,
                     &f);
    if (c && c->rows_later) { /* init holds the first rows only: the ranks summed theirs */
        f.touch_system = c->sums.touch_system;
        f.touch_span = c->sums.touch_span;
    }
    fprintf(out, "  init       %s first touch, %.3f s", rec->results->init_mode, rec->timings->init);
    if (ts_init_by_machine(&f, why, sizeof why) > 0)
        fprintf(out, ": %s", why);
    fprintf(out, "\n");
}

/* An interval this many clock ticks long gives shares worth a percentage. */
#define MACHINE_MIN_TICKS 50

/* What else ran on the run's CPUs, and whether that makes its times the machine's. */
static void print_machine(const struct ts_record *rec, FILE *out)
{
    const struct ts_machine_rec *m = rec->counters->machine;
    struct ts_disturb_facts f;
    struct ts_disturb_numbers n;
    char why[600];
    ts_summary_disturb_facts(rec, &f);
    ts_disturb_numbers(&f, &n);
    fprintf(out, "  machine    CPUs %s for %.3g s: ", m->cpus, m->elapsed);
    if (m->elapsed >= MACHINE_MIN_TICKS * m->clock_tick)
        fprintf(out, "other processes %.1f%%, steal %.1f%% of their time", 100 * n.others_share, 100 * n.steal_share);
    else
        fprintf(out, "too short for shares of /proc/stat's %.3g s ticks", m->clock_tick);
    if (!isnan(n.wait_share))
        fprintf(out, "; threads waited %.1f%% of theirs for a CPU", 100 * n.wait_share);
    fprintf(out, "; load %.2f -> %.2f\n", m->load_start, m->load_end);
    if (ts_disturbed(&f, why, sizeof why) > 0)
        fprintf(out, "  DISTURBED  %s: these times are the machine's as much as the configuration's\n", why);
}

/* Where the wall time went outside the work (allocation, init, warm-up, kernel, result pass,
 * combine, verification): "time 0.672 s from start to the file; outside the work 7.9%: start-up
 * 1.9%, ...". Phases under 0.05% are left out; "between phases" is what no phase holds. */
static void print_wall(const struct ts_timings_rec *t, int restarted, FILE *out)
{
    if (!(t->wall > 0.0))
        return;
    if (restarted) { /* the work before the restart ran in another process, its times the checkpoint's */
        fprintf(out, "  time       %.3f s from this process's start to the file (it continued a checkpoint)\n",
                t->wall);
        return;
    }
    double warmup = 0.0;
    for (int64_t i = 0; i < t->n_warmup; i++)
        warmup += t->warmup[i];
    const double work = t->allocation + t->init + warmup + t->kernel + t->result + t->combine + t->verify;
    const struct {
        const char *name;
        double seconds;
    } outside[] = {
        { "start-up", t->startup }, { "re-execution", t->reexec },    { "setup", t->setup },   { "plan", t->plan },
        { "audits", t->placement }, { "checkpoints", t->checkpoint }, { "finish", t->finish },
    };
    double named = 0.0;
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
        named += outside[i].seconds;
    fprintf(out, "  time       %.3f s from start to the file; outside the work %.1f%%:", t->wall,
            100.0 * (t->wall - work) / t->wall);
    const char *sep = " ";
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        if (100.0 * outside[i].seconds / t->wall < 0.05)
            continue;
        fprintf(out, "%s%s %.1f%%", sep, outside[i].name, 100.0 * outside[i].seconds / t->wall);
        sep = ", ";
    }
    double between = t->wall - work - named;
    fprintf(out, "%sbetween phases %.1f%%\n", sep, 100.0 * (between > 0.0 ? between : 0.0) / t->wall);
}

void ts_summary_print(const struct ts_record *rec, const char *output_path, FILE *out)
{
    const struct ts_results_rec *r = rec->results;
    const struct ts_timings_rec *t = rec->timings;
    const struct ts_verification_rec *v = rec->verification;

    fprintf(out, "touchstone %s: %s, ", rec->program_version, r->kernel);
    print_size(r, out);
    fprintf(out, "\n");
    fprintf(out, "  threads    %d, OMP_PLACES=%s (%s), OMP_PROC_BIND=%s (%s)\n", r->n_threads,
            binding_value(rec, "OMP_PLACES"), binding_value(rec, "OMP_PLACES_source"),
            binding_value(rec, "OMP_PROC_BIND"), binding_value(rec, "OMP_PROC_BIND_source"));
    if (rec->mpi)
        print_ranks(rec, out);
    print_threads(rec, out);
    print_init(rec, out);
    if (rec->placement)
        print_placement(rec->placement, r->init_mode, rec->mpi ? rec->mpi->size : 1, out);
    if (rec->placement_end)
        print_placement(rec->placement_end, r->init_mode, rec->mpi ? rec->mpi->size : 1, out);
    if (rec->counters && rec->counters->n_threads > 0)
        print_counters(rec->counters, out);
    if (rec->counters && rec->counters->machine)
        print_machine(rec, out);
    if (t->n_iterations == 0) {
        /* Stopped during the warm-up: no timed iteration, so no time, bandwidth or rate. */
        fprintf(out, "  kernel     0 iterations (+%lld warm-up): stopped before the first timed iteration\n",
                (long long)t->n_warmup);
        if (r->variant && r->variant[0])
            fprintf(out, "  variant    %s\n", r->variant);
    } else {
        fprintf(out,
                "  kernel     %lld iterations (+%lld warm-up), per iteration: min %.4g s, median %.4g s, max %.4g s\n",
                (long long)t->n_iterations, (long long)t->n_warmup, r->time_min, r->time_median, r->time_max);
        if (r->variant && r->variant[0])
            fprintf(out, "  variant    %s\n", r->variant);
        fprintf(out, "  bandwidth  %.2f GB/s median, %.2f GB/s best  [%s]%s\n", r->gbs_median, r->gbs_best,
                r->byte_model,
                r->llc_bytes > 0 && r->working_set_bytes <= r->llc_bytes
                    ? "  in cache: the arrays fit in the last-level caches"
                    : "");
        if (rec->mpi)
            print_rank_times(rec, out);
        if (!isnan(r->glups_median))
            fprintf(out, "  rate       %.3f GLUP/s median (%.3f best), %.2f GFLOP/s median (%.0f flops/update)\n",
                    r->glups_median, r->glups_best, r->gflops_median, r->flops_per_unit);
        else
            fprintf(out, "  rate       %.2f GFLOP/s median (%.0f flop/%s)\n", r->gflops_median, r->flops_per_unit,
                    r->unit);
    }
    if (rec->mpi)
        fprintf(out, "  result     %s = %.17g  (%d thread partials -> %d node partial%s -> %d rank partials -> 1)\n",
                r->result_name, r->global, r->n_threads, r->n_nodes, r->n_nodes == 1 ? "" : "s", rec->mpi->size);
    else
        fprintf(out, "  result     %s = %.17g  (%d thread partials -> %d node partial%s -> 1)\n", r->result_name,
                r->global, r->n_threads, r->n_nodes, r->n_nodes == 1 ? "" : "s");
    if (rec->job && rec->job->restarted)
        fprintf(out,
                "  restarted  from %s after %lld of %lld iterations: those ran before, their times are the "
                "checkpoint's\n",
                rec->job->restarted_from, (long long)rec->job->steps_before_restart, (long long)rec->steps_planned);
    if (!rec->complete)
        fprintf(out,
                "  verified   not verified: stopped after %lld of %lld iterations, the checkpoint holds the rest\n",
                (long long)rec->steps_done, (long long)rec->steps_planned);
    else
        fprintf(out, "  verified   %s: error %.3g, tolerance %.3g (%lld value%s checked)\n",
                v->passed ? "PASSED" : "FAILED", v->error, v->tolerance, (long long)v->checked,
                v->checked == 1 ? "" : "s");
    print_wall(t, rec->job && rec->job->restarted, out);
    if (rec->n_warnings > 0)
        fprintf(out, "  warnings   %d (see above and /warnings)\n", rec->n_warnings);
    fprintf(out, "  output     %s\n", output_path);
}

char *ts_summary_text(const struct ts_record *rec, const char *output_path)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    ts_summary_print(rec, output_path, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
