#include "run_exec.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "startup.h"
#include "ts_affinity.h"
#include "ts_counters.h"
#include "ts_machine.h"
#include "ts_memory.h"
#include "ts_thp.h"
#include "ts_vmstat.h"

/* Mappings start on a huge-page boundary: with chunk boundaries on multiples of 2 MiB, each
 * huge page then belongs to one thread's chunk (up to the stagger below). */
#define HUGE_PAGE TS_THP_HUGE_PAGE
#define ARRAY_ALIGNMENT HUGE_PAGE
/* With huge pages a chunk boundary must sit on a huge page, but not at any price: below this
 * many huge pages per thread, load balance matters more than the few straddling pages. */
#define MIN_HUGE_PAGES_PER_THREAD 4
/* Arrays that all start on a huge page compete for the same L2 sets, and a whole number of
 * 4 KiB apart a load of u waits for the store to u' with the same low 12 address bits (4K
 * aliasing), so array a starts a * ARRAY_STAGGER into its mapping: 0, 1 and 2 KiB apart modulo
 * 4 KiB (bench/README.md, "Notes behind the code"). The first huge page of each chunk then
 * also holds that many bytes of the previous chunk's end. */
#define ARRAY_STAGGER ((size_t)4096 + 1024)
_Static_assert(ARRAY_STAGGER % 4096 != 0 && (2 * ARRAY_STAGGER) % 4096 != 0 && ARRAY_STAGGER % 64 == 0,
               "arrays apart by a cache-line multiple, never by a whole number of 4 KiB");

/* Stack the main thread may need below ts_run_exec_prepare (our code, HDF5, hwloc), grown once. */
#define STACK_RESERVE ((size_t)1 << 20)

static __attribute__((noinline)) int grow_stack(size_t bytes, struct ts_error *err)
{
    /* Never past the limit: what is left under it, less a margin for this frame and its calls. */
    size_t left = ts_startup_stack_room(), spare = 16 << 10;
    if (bytes > left)
        bytes = left > spare ? left - spare : 0;
    if (bytes == 0)
        return TS_OK;
    /* A stack that cannot grow is a SIGSEGV: make sure the address space is there first. */
    void *probe = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (probe == MAP_FAILED)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "cannot reserve %zu KiB of stack", bytes >> 10);
    munmap(probe, bytes);
    /* alloca moved the stack pointer to the bottom: one write there grows the stack's mapping
     * over the whole range. The pages in between are left for the code that uses them to touch
     * (one page fault each, ~10 us on a VM: writing all 256 cost a short run 3 ms). */
    volatile char *room = __builtin_alloca(bytes);
    room[0] = 0;
    return TS_OK;
}

static struct ts_xsum *slot(const struct ts_run_exec *ex, int thread)
{
    return (struct ts_xsum *)(ex->own.slots + (size_t)thread * ex->own.slot_stride);
}

/* What the arrays ask of transparent huge pages. Huge pages when the kernel may give them (THP
 * "always", or "madvise" with init.huge_pages) and every thread's chunk spans at least
 * MIN_HUGE_PAGES_PER_THREAD of them. init.huge_pages = false under "always" refuses them, so
 * that false means base pages in every mode. Otherwise no advice: what the mode gives. */
static enum ts_mem_pages array_pages(const struct ts_run_exec *ex)
{
    int big = ex->in.rp->array_bytes / HUGE_PAGE >= (size_t)ex->in.n_threads * MIN_HUGE_PAGES_PER_THREAD;
    if (ex->in.thp_always && !ex->in.huge_pages)
        return TS_PAGES_BASE;
    if ((ex->in.thp_always || ex->in.thp_madvise) && ex->in.huge_pages && big)
        return TS_PAGES_HUGE;
    return TS_PAGES_KERNEL_DEFAULT;
}

/* The page the arrays' mappings and partition are built on. */
static size_t page_for(enum ts_mem_pages pages)
{
    return pages == TS_PAGES_HUGE ? HUGE_PAGE : ts_memory_page_size();
}

/* Items per partition granule: enough items to fill whole pages (huge pages when the arrays
 * ask for them, so that no huge page is shared by two threads), and a multiple of what the
 * kernel needs for its reproducible block sums. */
static int64_t partition_granule(const struct ts_plan *plan, size_t page)
{
    int64_t page_elems = (int64_t)(page / sizeof(double));
    int64_t granule = (page_elems + plan->elems_per_item - 1) / plan->elems_per_item;
    if (granule < 1)
        granule = 1;
    int64_t m = plan->granule_multiple;
    return (granule + m - 1) / m * m;
}

/* Maps array a untouched, with its NUMA policy and huge-page advice, before anything touches
 * it: first touch then decides where each page (2 MiB or base) lands. */
static int map_array(struct ts_run_exec *ex, int a, int *advised, struct ts_error *err)
{
    const size_t page = page_for(ex->own.pages);
    ex->own.array_offset[a] = ex->own.pages == TS_PAGES_HUGE ? (size_t)a * ARRAY_STAGGER : 0;
    /* Whole huge pages only: a last, partial one would be base pages, and audited as such. */
    ex->own.mapped_bytes[a] = (ex->own.array_offset[a] + ex->in.rp->array_bytes + page - 1) / page * page;
    void *mem;
    if (ts_memory_map(&mem, ex->own.mapped_bytes[a], ARRAY_ALIGNMENT, err) != TS_OK) {
        ts_error_prefix(err, "array %d of %s: ", a, ex->in.rp->kernel->name);
        return err->status;
    }
    ex->own.mappings[a] = mem;
    ex->own.arrays[a] = (double *)(void *)((char *)mem + ex->own.array_offset[a]);
    if (ts_memory_set_policy(mem, ex->own.mapped_bytes[a], ex->in.policy, ex->in.policy_node, err) != TS_OK)
        return err->status;
    if (ts_memory_advise_pages(mem, ex->own.mapped_bytes[a], ex->own.pages, advised, err) != TS_OK) {
        ts_error_prefix(err, "array %d of %s: ", a, ex->in.rp->kernel->name);
        return err->status;
    }
    return TS_OK;
}

/* What the arrays got, for the record and the audit. EINVAL from madvise means a kernel
 * without transparent huge pages: base pages, as recorded. */
static void record_pages(struct ts_run_exec *ex, int advised)
{
    const size_t base = ts_memory_page_size();
    ex->own.page_bytes_asked = (int64_t)(ex->own.pages == TS_PAGES_HUGE && advised ? HUGE_PAGE : base);
    ex->own.huge_refused = ex->own.pages == TS_PAGES_HUGE && !advised;
    switch (ex->own.pages) {
    case TS_PAGES_HUGE:
        ex->own.madvise = advised ? "MADV_HUGEPAGE"
                                  : "none (MADV_HUGEPAGE failed with EINVAL: this kernel has no "
                                    "transparent huge pages, the arrays have base pages)";
        break;
    case TS_PAGES_BASE:
        ex->own.madvise = advised ? "MADV_NOHUGEPAGE"
                                  : "none (MADV_NOHUGEPAGE failed with EINVAL: this kernel has "
                                    "no transparent huge pages)";
        break;
    case TS_PAGES_KERNEL_DEFAULT: ex->own.madvise = "none"; break;
    }
    /* Without advice under "always" the kernel may still back whole aligned blocks. */
    ex->own.huge_possible =
        (ex->own.pages == TS_PAGES_HUGE && advised) || (ex->own.pages == TS_PAGES_KERNEL_DEFAULT && ex->in.thp_always);
}

int ts_run_exec_prepare(struct ts_run_exec *ex, struct ts_error *err)
{
    const struct ts_plan *plan = &ex->in.rp->plan;
    int n = ex->in.n_threads;

    ex->own.pages = array_pages(ex);
    int64_t granule = partition_granule(plan, page_for(ex->own.pages));
    int rc = ts_partition_create(&ex->own.part, plan->items, n, granule);
    if (rc != 0)
        return ts_fail_errno(err, rc == ENOMEM ? TS_RESOURCE_ERROR : TS_INTERNAL_ERROR, rc,
                             "cannot partition %lld items among %d threads", (long long)plan->items, n);
    ex->own.granule_bytes = granule * plan->elems_per_item * (int64_t)sizeof(double);

    /* The threads start and the main thread's stack grows before the arrays take the address
     * space: under a tight ulimit -v, the arrays' mmap then fails with a message, rather than
     * libgomp creating a thread (it ends the process itself, see the exit hook in startup.c) or the
     * stack growing later (SIGSEGV). */
    int started = 0; /* the region must do something, or the compiler drops it */
#pragma omp parallel num_threads(n)
#pragma omp atomic
    started++;
    (void)started;
    if (grow_stack(STACK_RESERVE, err) != TS_OK)
        return err->status;

    double t0 = omp_get_wtime();
    ex->out.mapping_started = t0;
    int advised = 1;
    for (int a = 0; a < plan->n_arrays; a++) {
        int this_one = 0;
        if (map_array(ex, a, &this_one, err) != TS_OK)
            return err->status;
        advised &= this_one;
    }
    record_pages(ex, advised);
    ex->out.t_allocation = omp_get_wtime() - t0;

    ex->own.cache_line = ts_topology_cache_line(ex->in.topo, &ex->own.cache_line_source);
    ex->own.slot_stride = (sizeof(struct ts_xsum) + ex->own.cache_line - 1) / ex->own.cache_line * ex->own.cache_line;
    ex->own.slots = aligned_alloc(ex->own.cache_line, ex->own.slot_stride * (size_t)n);
    struct ts_run_outputs *out = &ex->out;
    out->threads = calloc((size_t)n, sizeof *out->threads);
    out->init_node = calloc((size_t)n, sizeof *out->init_node);
    out->init_counters = calloc((size_t)n, sizeof *out->init_counters);
    out->kernel_counters = calloc((size_t)n, sizeof *out->kernel_counters);
    out->step_times = calloc((size_t)(ex->in.warmup + ex->in.iterations), sizeof *out->step_times);
    out->halo_times = calloc((size_t)(ex->in.warmup + ex->in.iterations), sizeof *out->halo_times);
    out->thread_times = calloc((size_t)n * (size_t)ex->in.iterations, sizeof *out->thread_times);
    out->thread_partials = calloc((size_t)n, sizeof *out->thread_partials);
    out->node_ids = calloc((size_t)n, sizeof *out->node_ids);
    out->node_partials = calloc((size_t)n, sizeof *out->node_partials);
    if (!ex->own.slots || !out->threads || !out->init_node || !out->init_counters || !out->kernel_counters
        || !out->step_times || !out->halo_times || !out->thread_times || !out->thread_partials || !out->node_ids
        || !out->node_partials)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate per-thread bookkeeping for %d threads",
                             n);
    return TS_OK;
}

static void first_touch(struct ts_run_exec *ex)
{
    const struct ts_kernel *k = ex->in.rp->kernel;
    const struct ts_problem *pb = &ex->in.rp->problem;
    double *const *arrays = ex->own.arrays;
    const int n = ex->in.n_threads;
    double started = 0.0;

#pragma omp parallel num_threads(n)
    {
        const int t = omp_get_thread_num();
        struct ts_counters counters;
        struct ts_counter_row before, after;
        struct ts_thread_rec where;
        ts_counters_open(&counters);
        ts_affinity_sample_start(ex->in.topo, &where);
        ex->out.init_node[t] = where.node;
        ts_counters_read(&counters, &before);
#pragma omp barrier
#pragma omp master
        started = omp_get_wtime();
        if (ex->in.serial_init) {
            /* The classic mistake, kept on purpose: every page lands on the master's node. */
#pragma omp master
            for (int c = 0; c < n; c++)
                k->init(pb, arrays, ts_partition_range(ex->own.part, c));
        } else {
            /* Chunk c goes to thread c, exactly as in the compute loops below. */
#pragma omp for schedule(static) nowait
            for (int c = 0; c < n; c++)
                k->init(pb, arrays, ts_partition_range(ex->own.part, c));
        }
        ts_counters_read(&counters, &after);
#pragma omp barrier
#pragma omp master
        {
            ex->out.t_init = omp_get_wtime() - started;
            ts_counters_source(&counters, ex->out.counters_source, sizeof ex->out.counters_source);
        }
        ts_counters_delta(&before, &after, &ex->out.init_counters[t]);
        ts_counters_close(&counters);
    }
}

/* The first touch, watched from just before to just after: what else ran on the threads' CPUs
 * (steal, other processes) and what the kernel's memory management did (/proc/vmstat and
 * /proc/pressure/memory under root, the conditions' tree), so that the summary and compare can
 * tell an init the machine slowed from one placement slowed. The watches nest: the vmstat
 * interval is the inner one. */
static void watched_first_touch(struct ts_run_exec *ex, const char *root)
{
    struct ts_machine_watch machine;
    struct ts_vmstat before, after;
    const int watching = ts_machine_watch_start(&machine) == 0;
    int counting = ts_vmstat_read(root, &before) == 0;
    first_touch(ex);
    counting = counting && ts_vmstat_read(root, &after) == 0;
    ex->out.have_init_machine = watching && ts_machine_watch_stop(&machine, &ex->out.init_machine) == 0;
    ts_machine_watch_free(&machine);
    if (counting)
        ts_vmstat_delta(&before, &after, &ex->out.init_memory);
    ex->out.have_init_memory = counting;
}

/* Where the progress report stands, kept by the master thread. */
struct progress {
    double started;   /* when this process's timed loop began */
    double last_line; /* when the last line was printed (started before the first) */
    int last_tenth;   /* tenths of the run complete at the last line */
    int tty;          /* stderr is a terminal: one line rewritten in place */
};

/* Seconds as a person reads them in a log: "45 s", "12 min", "3.5 h". */
static void duration_text(double s, char *buf, size_t len)
{
    if (s < 120.0)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 7200.0)
        snprintf(buf, len, "%.0f min", s / 60.0);
    else
        snprintf(buf, len, "%.1f h", s / 3600.0);
}

/* After progress_delay seconds: on a terminal, one line rewritten every half second; in a
 * batch log (stderr not a terminal), a plain line each time another tenth of the iterations is
 * done or a minute has passed since the last line, whichever comes first, and none for the
 * last iteration (the summary follows). Rates count only this process's iterations, so a
 * restarted run does not take the checkpoint's for its own. */
static void show_progress(const struct ts_run_exec *ex, struct progress *pr, int64_t step)
{
    const double now = omp_get_wtime();
    const int64_t total = ex->in.warmup + ex->in.iterations, done = step + 1;
    const double per_step = (now - pr->started) / (double)(done - ex->in.first_step);
    const double left = per_step * (double)(total - done);
    if (now - pr->started < ex->in.progress_delay)
        return;
    if (pr->tty) {
        if (now - pr->last_line < 0.5 && done < total)
            return;
        pr->last_line = now;
        fprintf(stderr, "\r  iteration %lld/%lld, %.1f s elapsed, ~%.1f s left   ", (long long)done, (long long)total,
                now - pr->started, left);
        if (done == total)
            fprintf(stderr, "\r%70s\r", "");
        return;
    }
    const int tenth = (int)(done * 10 / total);
    if (done == total || (tenth <= pr->last_tenth && now - pr->last_line < 60.0))
        return;
    pr->last_line = now;
    pr->last_tenth = tenth;
    char elapsed[32], remaining[32];
    duration_text(now - pr->started, elapsed, sizeof elapsed);
    duration_text(left, remaining, sizeof remaining);
    fprintf(stderr, "touchstone: progress: %d%% (%lld of %lld iterations), %s elapsed, about %s left\n",
            (int)(done * 100 / total), (long long)done, (long long)total, elapsed, remaining);
    fflush(stderr);
}

/* Between two iterations, on the master thread, outside the timed region: a signal asked to
 * stop (the batch system's time limit), or a periodic checkpoint is due. */
static void between_steps(struct ts_run_exec *ex, int64_t done)
{
    const int64_t total = ex->in.warmup + ex->in.iterations;
    int stop = ex->in.stop_signal ? *ex->in.stop_signal : 0; /* the signal's number */
    if (ex->in.agree_stop) { /* every rank stops after the same iteration, or halos would wait forever */
        stop = ex->in.agree_stop(ex, stop, done < total, ex->in.ranks_ctx);
        if (done >= total) /* the vote still open is closed; the run is complete */
            return;
        /* A rank the signal did not reach names the one the others got (the largest number). */
        if (stop && ex->in.stop_signal && !*ex->in.stop_signal)
            *ex->in.stop_signal = stop;
    }
    if (done >= total)
        return;
    if (stop) {
        ex->out.stopped = 1;
        return;
    }
    if (ex->in.checkpoint_every > 0 && done % ex->in.checkpoint_every == 0 && ex->in.checkpoint
        && ex->in.checkpoint(ex, ex->in.checkpoint_ctx) != TS_OK)
        ex->out.checkpoint_failures++;
}

/* One step of a rank, by every thread of the team: the halo exchange, then the sweep; with
 * overlap_halo the points that read no halo while the faces travel and the rim once they
 * landed, the threads taking the same items in both halves as in k->step. Returns the
 * exchange's status, the same on every thread. */
static int exchanged_step(struct ts_run_exec *ex, int64_t step, double t0, int n, struct ts_xsum *partial)
{
    const struct ts_kernel *k = ex->in.rp->kernel;
    const struct ts_problem *pb = &ex->in.rp->problem;
    double *const *arrays = ex->own.arrays;
    const int overlap = ex->in.overlap_halo;
    ex->in.halo_post(ex, step, ex->in.ranks_ctx, &ex->out.hook_err);
    const double posted = omp_get_wtime();
    if (overlap) {
#pragma omp for schedule(static) nowait
        for (int c = 0; c < n; c++)
            k->step_split(pb, arrays, ts_partition_range(ex->own.part, c), step, 0);
    }
    const double waiting = omp_get_wtime();
    const int hook = ex->in.halo_wait(ex, step, ex->in.ranks_ctx, &ex->out.hook_err);
#pragma omp master
    {
        ex->out.hook_failed = hook != TS_OK;
        ex->out.halo_times[step] = (posted - t0) + (omp_get_wtime() - waiting);
    }
    if (hook != TS_OK)
        return hook;
#pragma omp for schedule(static) nowait
    for (int c = 0; c < n; c++) {
        if (overlap)
            k->step_split(pb, arrays, ts_partition_range(ex->own.part, c), step, 1);
        else
            k->step(pb, arrays, ts_partition_range(ex->own.part, c), step, partial);
    }
    return TS_OK;
}

static void timed_steps(struct ts_run_exec *ex)
{
    const struct ts_kernel *k = ex->in.rp->kernel;
    const struct ts_problem *pb = &ex->in.rp->problem;
    double *const *arrays = ex->own.arrays;
    const int n = ex->in.n_threads;
    const int64_t total = ex->in.warmup + ex->in.iterations;
    struct progress progress = { .started = omp_get_wtime(), .tty = isatty(STDERR_FILENO) };
    progress.last_line = progress.started;
    progress.last_tenth = (int)(ex->in.first_step * 10 / (total > 0 ? total : 1));
    struct ts_machine_watch machine;
    int watching = ts_machine_watch_start(&machine) == 0;

#pragma omp parallel num_threads(n)
    {
        const int t = omp_get_thread_num();
        struct ts_xsum partial;
        struct ts_counters counters;
        struct ts_counter_row before, after;
        ts_xsum_init(&partial);
        ts_counters_open(&counters);
        ts_affinity_sample_start(ex->in.topo, &ex->out.threads[t]);
        ts_counters_read(&counters, &before);

        for (int64_t step = ex->in.first_step; step < total; step++) {
#pragma omp barrier
            if (ex->out.stopped) /* written by the master before the barrier: every thread agrees */
                break;
            const double t0 = omp_get_wtime();
            ts_xsum_init(&partial);
            if (ex->in.halo_post) {
                if (exchanged_step(ex, step, t0, n, &partial) != TS_OK)
                    break;
            } else {
#pragma omp for schedule(static) nowait
                for (int c = 0; c < n; c++)
                    k->step(pb, arrays, ts_partition_range(ex->own.part, c), step, &partial);
            }
            const double t1 = omp_get_wtime();
            if (step >= ex->in.warmup)
                ex->out.thread_times[(size_t)t * (size_t)ex->in.iterations + (size_t)(step - ex->in.warmup)] = t1 - t0;
#pragma omp barrier
#pragma omp master
            {
                ex->out.step_times[step] = omp_get_wtime() - t0;
                ex->out.steps_done = step + 1;
                if (ex->in.show_progress)
                    show_progress(ex, &progress, step);
                between_steps(ex, step + 1);
            }
        }

        /* The master writes steps_done after the last iteration's barrier: wait for it. */
#pragma omp barrier
        /* Registers to the thread's own padded slot: no false sharing, no atomics. */
        *slot(ex, t) = partial;
        if (k->result) {
            double r0 = omp_get_wtime();
            ts_xsum_init(slot(ex, t));
#pragma omp for schedule(static)
            for (int c = 0; c < n; c++)
                k->result(pb, arrays, ts_partition_range(ex->own.part, c), ex->out.steps_done, slot(ex, t));
#pragma omp master
            ex->out.t_result = omp_get_wtime() - r0; /* after the for's barrier: the slowest thread's */
        }
        ts_counters_read(&counters, &after);
        ts_counters_delta(&before, &after, &ex->out.kernel_counters[t]);
        ts_counters_close(&counters);
        ts_affinity_sample_end(&ex->out.threads[t]);
    }
    ex->out.have_machine = watching && ts_machine_watch_stop(&machine, &ex->out.machine) == 0;
    ts_machine_watch_free(&machine);

    for (int64_t s = ex->in.warmup; s < ex->out.steps_done; s++)
        ex->out.t_kernel += ex->out.step_times[s];
}

/* Groups threads by the NUMA node they ran on; node_ids ascending. */
static void group_by_node(struct ts_run_exec *ex, int *group_of_thread)
{
    ex->out.n_nodes = 0;
    for (int t = 0; t < ex->in.n_threads; t++) {
        int32_t node = ex->out.threads[t].node;
        int g = 0;
        while (g < ex->out.n_nodes && ex->out.node_ids[g] < node)
            g++;
        if (g == ex->out.n_nodes || ex->out.node_ids[g] != node) {
            memmove(&ex->out.node_ids[g + 1], &ex->out.node_ids[g],
                    (size_t)(ex->out.n_nodes - g) * sizeof ex->out.node_ids[0]);
            ex->out.node_ids[g] = node;
            ex->out.n_nodes++;
        }
    }
    for (int t = 0; t < ex->in.n_threads; t++) {
        int g = 0;
        while (ex->out.node_ids[g] != ex->out.threads[t].node)
            g++;
        group_of_thread[t] = g;
        ex->out.threads[t].counted_for_node = ex->out.node_ids[g];
    }
}

static int combine(struct ts_run_exec *ex, struct ts_error *err)
{
    const int n = ex->in.n_threads;
    int *group_of_thread = calloc((size_t)n, sizeof *group_of_thread);
    struct ts_xsum **node_acc = calloc((size_t)n, sizeof *node_acc);
    if (!group_of_thread || !node_acc) {
        free(group_of_thread);
        free(node_acc);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the combine tables");
    }
    group_by_node(ex, group_of_thread);

    for (int t = 0; t < n; t++) {
        struct ts_xsum copy = *slot(ex, t);
        ex->out.thread_partials[t] = ts_xsum_round(&copy);
    }

    int status = TS_OK;
    for (int g = 0; g < ex->out.n_nodes && status == TS_OK; g++) {
        int32_t node = ex->out.node_ids[g];
        node_acc[g] = ts_memory_alloc_on_node(sizeof(struct ts_xsum), node < 0 ? 0 : node);
        if (!node_acc[g])
            status = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the partial of NUMA node %d",
                                   ex->out.node_ids[g]);
    }

    if (status == TS_OK) {
        double t0 = omp_get_wtime();
        /* One thread per node (its lowest-numbered) gathers that node's slots in thread order
         * into the node's own memory; then the node partials are combined in node order. */
#pragma omp parallel num_threads(n)
        {
            const int t = omp_get_thread_num();
            const int g = group_of_thread[t];
            int leader = 0;
            while (group_of_thread[leader] != g)
                leader++;
            if (leader == t) {
                ts_xsum_init(node_acc[g]);
                for (int u = t; u < n; u++)
                    if (group_of_thread[u] == g)
                        ts_xsum_merge(node_acc[g], slot(ex, u));
            }
        }
        struct ts_xsum global;
        ts_xsum_init(&global);
        for (int g = 0; g < ex->out.n_nodes; g++)
            ts_xsum_merge(&global, node_acc[g]);
        ex->out.process_sum = global;
        ex->out.global = ts_xsum_round(&global);
        ex->out.t_combine = omp_get_wtime() - t0;
        for (int g = 0; g < ex->out.n_nodes; g++)
            ex->out.node_partials[g] = ts_xsum_round(node_acc[g]);
    }

    for (int g = 0; g < ex->out.n_nodes; g++)
        if (node_acc[g])
            ts_memory_free_on_node(node_acc[g], sizeof(struct ts_xsum));
    free(node_acc);
    free(group_of_thread);
    return status;
}

/* Where the pages are, against where each thread touched them from. */
static int audit_placement(struct ts_run_exec *ex, struct ts_placement *out, struct ts_error *err)
{
    const int n = ex->in.n_threads;
    int64_t *bounds = calloc(2 * (size_t)n, sizeof *bounds);
    if (!bounds)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "placement audit: cannot allocate chunk bounds");
    const int64_t item_bytes = ex->in.rp->plan.elems_per_item * (int64_t)sizeof(double);
    for (int t = 0; t < n; t++) {
        struct ts_range r = ts_partition_range(ex->own.part, t);
        bounds[t] = r.begin * item_bytes;
        bounds[n + t] = r.end * item_bytes;
    }
    struct ts_placement_input in = {
        .n_arrays = ex->in.rp->plan.n_arrays,
        .arrays = (void *const *)ex->own.arrays,
        .array_bytes = ex->in.rp->array_bytes,
        .mappings = ex->own.mappings,
        .mapped_bytes = ex->own.mapped_bytes,
        .smaps = ex->own.huge_possible ? TS_THP_SMAPS : NULL,
        .n_threads = n,
        .chunk_begin = bounds,
        .chunk_end = bounds + n,
        .thread_node = ex->out.init_node,
        .sample_stride = ex->in.sample_stride,
    };
    int status = ts_placement_audit(&in, out, err);
    free(bounds);
    if (status == TS_OK) {
        out->rec.granule_bytes = ex->own.granule_bytes;
        out->rec.requested_page_size = ex->own.page_bytes_asked;
        out->rec.madvise = ex->own.madvise;
        ex->out.t_placement += out->rec.time;
    }
    return status;
}

int ts_run_exec_init(struct ts_run_exec *ex, struct ts_error *err)
{
    int team = 0;
#pragma omp parallel num_threads(ex->in.n_threads)
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    if (team != ex->in.n_threads)
        return ts_fail(err, TS_RESOURCE_ERROR,
                       "the OpenMP runtime started %d threads instead of %d (check OMP_DYNAMIC and OMP_THREAD_LIMIT)",
                       team, ex->in.n_threads);

    const char *root = getenv("TOUCHSTONE_CONDITIONS_ROOT");
    ts_conditions_read(root, NULL, &ex->out.conditions);
    watched_first_touch(ex, root);
    if (ex->in.audit) {
        if (audit_placement(ex, &ex->out.placement, err) != TS_OK)
            return err->status;
        ex->out.have_placement = 1;
    }
    return TS_OK;
}

int ts_run_exec_compute(struct ts_run_exec *ex, struct ts_error *err)
{
    ex->out.steps_done = ex->in.first_step;
    timed_steps(ex);
    if (ex->out.hook_failed) {
        *err = ex->out.hook_err;
        return err->status;
    }
    /* NUMA balancing moves pages behind the first audit's back: the second one counts them.
     * Ranks gather /placement/end only when the config asks for it (balancing is each host's
     * own, the config every rank's): otherwise the audit is counted and dropped. */
    ex->out.pages_moved = -1;
    ex->out.pages_compared = 0;
    if (ex->in.audit && (ex->in.audit_at_end || ts_conditions_balancing(&ex->out.conditions))) {
        const int keep = ex->in.audit_at_end || !ex->in.ranks_ctx;
        struct ts_placement scratch, *end = keep ? &ex->out.placement_end : &scratch;
        if (audit_placement(ex, end, err) != TS_OK)
            return err->status;
        if (ex->out.have_placement)
            ex->out.pages_moved = ts_placement_moved(&ex->out.placement.rec, &end->rec);
        for (int t = 0; ex->out.have_placement && t < ex->in.n_threads; t++)
            ex->out.pages_compared += ex->out.placement.thread_pages[t];
        if (keep)
            ex->out.have_placement_end = 1;
        else
            ts_placement_free(&scratch);
    }
    for (int t = 0; t < ex->in.n_threads; t++) {
        struct ts_range r = ts_partition_range(ex->own.part, t);
        ex->out.threads[t].item_begin = r.begin;
        ex->out.threads[t].item_end = r.end;
    }
    return combine(ex, err);
}

void ts_run_exec_release(struct ts_run_exec *ex)
{
    for (int a = 0; a < 3; a++)
        if (ex->own.mappings[a])
            ts_memory_unmap(ex->own.mappings[a], ex->own.mapped_bytes[a]);
    ts_partition_destroy(ex->own.part);
    free(ex->own.slots);
    free(ex->out.threads);
    free(ex->out.init_node);
    free(ex->out.init_counters);
    free(ex->out.kernel_counters);
    if (ex->out.have_placement)
        ts_placement_free(&ex->out.placement);
    if (ex->out.have_placement_end)
        ts_placement_free(&ex->out.placement_end);
    ex->out.have_placement = ex->out.have_placement_end = 0;
    free(ex->out.step_times);
    free(ex->out.halo_times);
    free(ex->out.thread_times);
    free(ex->out.thread_partials);
    free(ex->out.node_ids);
    free(ex->out.node_partials);
    memset(ex->own.arrays, 0, sizeof ex->own.arrays);
    memset(ex->own.mappings, 0, sizeof ex->own.mappings);
    ex->own.part = NULL;
    ex->own.slots = NULL;
    ex->out.threads = NULL;
}
