#include "ts_affinity.h"
#include "topology_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink {
    char (*lines)[512];
    int max, n;
};

static void __attribute__((format(printf, 2, 3))) warn(struct sink *s, const char *fmt, ...)
{
    if (s->n >= s->max)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->lines[s->n++], sizeof s->lines[0], fmt, ap);
    va_end(ap);
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

static int int_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorted, duplicates dropped, as a compressed list. */
static void list_of(int *v, int n, char *buf, size_t len)
{
    qsort(v, (size_t)n, sizeof *v, int_order);
    struct ts_list l;
    ts_list_init(&l, buf, len);
    for (int i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1])
            ts_list_add(&l, v[i]);
    ts_list_end(&l);
}

static int all_on_one_core(const struct ts_thread_rec *rows, int n)
{
    if (n < 2 || rows[0].core < 0)
        return 0;
    for (int i = 1; i < n; i++)
        if (rows[i].core != rows[0].core)
            return 0;
    return 1;
}

/* One line per core that holds several threads. Threads on one CPU take turns; threads on
 * different CPUs of one core (SMT siblings) split its execution units: both cost speed. */
static void shared_cores(struct sink *s, const struct ts_thread_rec *rows, int n)
{
    int *threads = malloc(2 * (size_t)n * sizeof *threads);
    if (!threads)
        return;
    int *cpus = threads + n;
    for (int i = 0; i < n; i++) {
        int core = rows[i].core, seen = 0, k = 0;
        for (int j = 0; j < i; j++)
            seen |= rows[j].core == core;
        if (core < 0 || seen)
            continue;
        for (int j = i; j < n; j++)
            if (rows[j].core == core) {
                threads[k] = rows[j].thread;
                cpus[k++] = rows[j].cpu_start;
            }
        if (k < 2)
            continue;
        char tlist[200], clist[200];
        list_of(threads, k, tlist, sizeof tlist);
        list_of(cpus, k, clist, sizeof clist);
        int one_cpu = strpbrk(clist, ",-") == NULL;
        warn(s, "threads %s share core %d (CPU%s %s): %s", tlist, core, one_cpu ? "" : "s", clist,
             one_cpu ? "they time-slice one core" : "they split one core's execution units (SMT siblings)");
    }
    free(threads);
}

/* A thread bound to a one-CPU place cannot move; only the other cases are worth a line. */
static int may_move(const struct ts_binding_facts *f, const struct ts_thread_rec *r)
{
    return !f->bound || r->place < 0 || strpbrk(r->place_cpus, ",-") != NULL;
}

/* How to keep threads next to their pages: bind them, or, when they are bound already, to places
 * of one CPU each (a fix never asks for the binding the threads already have). */
static void stay_put(const struct ts_binding_facts *f, char *buf, size_t len)
{
    if (f->bound)
        snprintf(buf, len,
                 "they are bound already (OMP_PROC_BIND=%s), each to a place of several CPUs%s%.100s%s: places of one "
                 "CPU each (openmp.places = threads) keep them put",
                 f->proc_bind[0] ? f->proc_bind : "on", f->places[0] ? " (OMP_PLACES=" : "", f->places,
                 f->places[0] ? ")" : "");
    else
        snprintf(buf, len, "bind threads (openmp.proc_bind = close or spread) so they stay next to their pages");
}

/* Migrations the kernel counted (perf) during the timed iterations, one line for all threads. */
static void migrations(struct sink *s, const struct ts_binding_facts *f, int n)
{
    if (!f->migrations)
        return;
    char list[400] = "";
    size_t used = 0;
    int moved = 0;
    for (int i = 0; i < n && used < sizeof list; i++)
        if (f->migrations[i] > 0) {
            used += (size_t)snprintf(list + used, sizeof list - used, "%sthread %d %lld time%s", moved ? ", " : "", i,
                                     (long long)f->migrations[i], f->migrations[i] == 1 ? "" : "s");
            moved++;
        }
    char fix[400];
    stay_put(f, fix, sizeof fix);
    if (moved)
        warn(s, "threads migrated between CPUs during the kernel (perf counter): %s; %s", list, fix);
}

/* The places give the threads fewer CPUs or cores than the process may use: OMP_PLACES, not
 * the mask, is what to change. */
static int places_narrower(const struct ts_binding_facts *f)
{
    return f->bound && f->mask_cpus > 0 && f->available_cpus > 0
           && (f->available_cpus < f->mask_cpus || f->available_cores < f->mask_cores);
}

static const char *places_text(const struct ts_binding_facts *f, char *buf, size_t len)
{
    snprintf(buf, len, f->places[0] ? "OMP_PLACES=%s" : "OMP_PLACES", f->places);
    return buf;
}

/* How to give the process more CPUs, for the lines that blame its mask. Under mpirun (in a
 * Slurm allocation too) the mask is mpirun's binding: one core a rank for 1 or 2 ranks. */
static const char *mask_advice(const struct ts_binding_facts *f)
{
    static _Thread_local char mpirun[200];
    if (f->under_mpirun) {
        snprintf(mpirun, sizeof mpirun,
                 "the mask is mpirun's binding (a core a rank when it starts 1 or 2): give each rank cores of its own, "
                 "mpirun --map-by slot:PE=%d --bind-to core",
                 f->n_threads > 0 ? f->n_threads : 1);
        return mpirun;
    }
    return f->under_slurm
               ? "srun -c $SLURM_CPUS_PER_TASK, or export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK before srun "
                 "(srun does not inherit --cpus-per-task)"
               : "the mask comes from taskset, numactl or a cpuset cgroup (under Slurm: srun -c $SLURM_CPUS_PER_TASK, "
                 "or export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK)";
}

/* The mask holds every CPU of the machine: nothing but the machine limits the threads. */
static int whole_machine(const struct ts_binding_facts *f)
{
    return f->machine_cpus > 0 && f->mask_cpus >= f->machine_cpus;
}

/* The process's mask as a list, or the CPUs available when the mask is unknown. */
static const char *mask_list(const struct ts_binding_facts *f)
{
    return f->mask_list[0] ? f->mask_list : f->available_list;
}

static void too_few_cpus(struct sink *s, const struct ts_binding_facts *f)
{
    const int n = f->n_threads, cpus = f->available_cpus;
    char places[300];
    if (places_narrower(f) && cpus < f->mask_cpus) {
        char tail[200];
        if (n <= f->mask_cpus)
            snprintf(tail, sizeof tail,
                     "list more places, or openmp.places = cores (a place per core the process may use)");
        else
            snprintf(tail, sizeof tail,
                     "the mask itself has fewer CPUs than threads too: use at most %d thread%s, or widen both",
                     f->mask_cpus, plural(f->mask_cpus));
        warn(s,
             "%d threads but %s gives them only %d CPU%s (%s) of the %d this process may use (%s): threads "
             "time-slice and every timing stretches; %s",
             n, places_text(f, places, sizeof places), cpus, plural(cpus), f->available_list, f->mask_cpus,
             f->mask_list, tail);
        return;
    }
    if (whole_machine(f))
        warn(s,
             "%d threads but only %d CPU%s available (the whole machine: %s): threads time-slice and every timing "
             "stretches; use at most %d thread%s",
             n, cpus, plural(cpus), mask_list(f), cpus, plural(cpus));
    else
        warn(s,
             "%d threads but only %d CPU%s available (the process's affinity mask: %s): threads time-slice and "
             "every timing stretches; use at most %d thread%s or give the process more CPUs: %s",
             n, cpus, plural(cpus), mask_list(f), cpus, plural(cpus), mask_advice(f));
}

static void too_few_cores(struct sink *s, const struct ts_binding_facts *f)
{
    const int n = f->n_threads, cores = f->available_cores;
    char places[300];
    if (places_narrower(f) && cores < f->mask_cores)
        warn(s,
             "%d threads but %s covers only %d core%s (CPUs %s) of the %d this process may use (CPUs %s): threads "
             "share cores; use openmp.places = cores (a place per core)",
             n, places_text(f, places, sizeof places), cores, plural(cores), f->available_list, f->mask_cores,
             f->mask_list);
    else if (whole_machine(f))
        warn(s,
             "%d threads but the machine has only %d core%s (CPUs %s): threads share cores; use at most %d "
             "thread%s for one per core",
             n, cores, plural(cores), mask_list(f), cores, plural(cores));
    else
        warn(s, "%d threads but the process may use only %d core%s (CPUs %s): threads share cores; %s", n, cores,
             plural(cores), mask_list(f), mask_advice(f));
}

static int primary_binding(const struct ts_binding_facts *f)
{
    return f->bound && (strcmp(f->proc_bind, "primary") == 0 || strcmp(f->proc_bind, "master") == 0);
}

static void one_core(struct sink *s, const struct ts_binding_facts *f, const struct ts_thread_rec *rows, int n)
{
    char cause[1200], places[300];
    if (places_narrower(f) && f->available_cores == 1)
        snprintf(cause, sizeof cause, "%s gives them only CPU%s %s of the process's %s",
                 places_text(f, places, sizeof places), strpbrk(f->available_list, ",-") ? "s" : "", f->available_list,
                 f->mask_list);
    else if (primary_binding(f) && f->available_cores > 1)
        snprintf(cause, sizeof cause,
                 "OMP_PROC_BIND=%s keeps every thread in the primary thread's place; use close "
                 "or spread",
                 f->proc_bind);
    else if (f->mask_cores == 1)
        snprintf(cause, sizeof cause, "the process may use only CPU%s %s (its affinity mask): %s",
                 strpbrk(f->mask_list, ",-") ? "s" : "", f->mask_list, mask_advice(f));
    else if (!f->bound)
        snprintf(cause, sizeof cause,
                 "binding is off and the scheduler put them there: bind them "
                 "(openmp.proc_bind = close)");
    else
        snprintf(cause, sizeof cause, "check OMP_PLACES, taskset, or srun -c / --cpus-per-task");
    warn(s, "ALL %d THREADS ARE ON ONE CORE (core %d): expect ~1/%d of the speed of %d separate cores; %s", n,
         rows[0].core, n, n, cause);
}

int ts_affinity_warnings(const struct ts_binding_facts *facts, const struct ts_thread_rec *rows, int n_rows,
                         char (*warnings)[512], int max)
{
    struct sink s = { warnings, max, 0 };
    if (!facts->bound)
        warn(&s, "binding is off (OMP_PROC_BIND=false or unset): threads may migrate between "
                 "CPUs and away from their first-touched pages");
    if (facts->available_cpus > 0 && facts->n_threads > facts->available_cpus)
        too_few_cpus(&s, facts);
    if (facts->available_cores > 0 && facts->n_threads > facts->available_cores
        && facts->n_threads <= facts->available_cpus)
        too_few_cores(&s, facts);
    if (facts->places_outside[0])
        warn(&s,
             "OMP_PLACES names CPU%s %s that this process may not use (it may use %s): the runtime "
             "drops those places; list only allowed CPUs, or use an abstract name such as cores",
             strpbrk(facts->places_outside, ",-") ? "s" : "", facts->places_outside, mask_list(facts));
    if (all_on_one_core(rows, n_rows))
        one_core(&s, facts, rows, n_rows);
    else
        shared_cores(&s, rows, n_rows);
    for (int i = 0; i < n_rows; i++) {
        const struct ts_thread_rec *r = &rows[i];
        if (r->cpu_start >= 0 && r->cpu_end >= 0 && r->cpu_end != r->cpu_start && may_move(facts, r))
            warn(&s, "thread %d moved from CPU %d to CPU %d during the run", r->thread, r->cpu_start, r->cpu_end);
        if (facts->init_node && facts->init_node[i] >= 0 && r->node >= 0 && facts->init_node[i] != r->node) {
            char fix[400];
            stay_put(facts, fix, sizeof fix);
            warn(&s, "thread %d first-touched its pages on node %d but computed on node %d: its pages are remote; %s",
                 r->thread, facts->init_node[i], r->node, fix);
        }
    }
    migrations(&s, facts, n_rows);
    return s.n;
}
