#include "ts_numa_matrix.h"

#include <errno.h>
#include <math.h>
#include <numa.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "numa_internal.h"
#include "topology_internal.h"
#include "ts_affinity.h"
#include "ts_memory.h"
#include "ts_placement.h"
#include "ts_thp.h"
#include "ts_stats.h"

#define MIB ((int64_t)1 << 20)
/* Past the LLC with room to spare: a buffer 8x the cache leaves at most an eighth of it hit. */
#define LLC_MULTIPLE 8
#define MIN_BUFFER (64 * MIB)
#define MIN_STEPS ((int64_t)1 << 20)
#define MAX_STEPS ((int64_t)1 << 22)
#define DEFAULT_REPETITIONS 5
#define MAX_REPETITIONS 64
/* Stream chunks start on whole base pages. */
#define CHUNK_ELEMS 512

static volatile size_t chase_sink;

static int64_t round_up(int64_t v, int64_t unit)
{
    return (v + unit - 1) / unit * unit;
}

/* ---- CPUs and binding ---- */

/* One allowed PU per core of NUMA node os_index (all its allowed PUs when hwloc knows no
 * cores), into cpus (at most max); returns how many. */
int ts_numa_node_cpus(const ts_topology *topo, int os_index, int *cpus, int max)
{
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topo->hw, (unsigned)os_index);
    if (!node || !node->cpuset)
        return 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set)
        return 0;
    hwloc_bitmap_and(set, node->cpuset, hwloc_topology_get_allowed_cpuset(topo->hw));
    int n = 0;
    hwloc_obj_t core = NULL;
    while ((core = hwloc_get_next_obj_inside_cpuset_by_type(topo->hw, set, HWLOC_OBJ_CORE, core)) != NULL && n < max) {
        hwloc_bitmap_t pus = hwloc_bitmap_alloc();
        if (!pus)
            break;
        hwloc_bitmap_and(pus, core->cpuset, set);
        int first = hwloc_bitmap_first(pus);
        hwloc_bitmap_free(pus);
        if (first >= 0)
            cpus[n++] = first;
    }
    if (n == 0) {
        int cpu;
        hwloc_bitmap_foreach_begin(cpu, set)
        {
            if (n < max)
                cpus[n++] = cpu;
        }
        hwloc_bitmap_foreach_end();
    }
    hwloc_bitmap_free(set);
    return n;
}

/* Binds the calling thread to cpu alone; 0, or -1 with errno. */
static int bind_thread(const ts_topology *topo, int cpu, struct binding *b)
{
    b->saved = hwloc_bitmap_alloc();
    hwloc_bitmap_t one = hwloc_bitmap_alloc();
    if (!b->saved || !one) {
        hwloc_bitmap_free(one);
        hwloc_bitmap_free(b->saved);
        b->saved = NULL;
        errno = ENOMEM;
        return -1;
    }
    if (hwloc_get_cpubind(topo->hw, b->saved, HWLOC_CPUBIND_THREAD) != 0) {
        hwloc_bitmap_free(b->saved);
        b->saved = NULL;
    }
    hwloc_bitmap_only(one, (unsigned)cpu);
    int rc = hwloc_set_cpubind(topo->hw, one, HWLOC_CPUBIND_THREAD);
    int e = errno;
    hwloc_bitmap_free(one);
    errno = e;
    return rc;
}

static void unbind_thread(const ts_topology *topo, struct binding *b)
{
    if (b->saved)
        hwloc_set_cpubind(topo->hw, b->saved, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(b->saved);
    b->saved = NULL;
}

/* ---- buffers on a node ---- */

static void buffers_free(struct node_buffers *b)
{
    for (int i = 0; i < b->count; i++)
        ts_memory_unmap(b->ptr[i], b->mapped);
    memset(b, 0, sizeof *b);
}

static int buffers_map(struct node_buffers *b, int count, size_t bytes, int mem_node, int huge, struct ts_error *err)
{
    memset(b, 0, sizeof *b);
    b->bytes = bytes;
    b->mapped = (size_t)round_up((int64_t)bytes, (int64_t)TS_THP_HUGE_PAGE);
    b->huge = huge;
    b->advised = 1;
    for (int i = 0; i < count; i++) {
        int status = ts_memory_map(&b->ptr[i], b->mapped, TS_THP_HUGE_PAGE, err);
        if (status != TS_OK) {
            buffers_free(b);
            return status;
        }
        b->count++;
        /* BIND, not PREFERRED: a page that cannot go to mem_node must not land elsewhere
         * unseen. The sizes leave room (memory_cap). */
        if (numa_available() >= 0)
            status = ts_memory_set_policy(b->ptr[i], b->mapped, TS_POLICY_BIND, mem_node, err);
        int applied = 0;
        if (status == TS_OK)
            status = ts_memory_advise_pages(b->ptr[i], b->mapped, huge ? TS_PAGES_HUGE : TS_PAGES_BASE, &applied, err);
        b->advised &= applied;
        if (status != TS_OK) {
            buffers_free(b);
            ts_error_prefix(err, "NUMA matrix, memory node %d", mem_node);
            return status;
        }
    }
    return TS_OK;
}

/* Counts where the pages of b are and adds them to p. */
static int buffers_audit(const struct node_buffers *b, int mem_node, struct ts_numa_placement *p, struct ts_error *err)
{
    if (numa_available() < 0) {
        /* No NUMA in this kernel: one memory node, nothing move_pages could tell apart. */
        p->fraction = NAN;
        p->page_size = (int64_t)ts_memory_page_size();
        return TS_OK;
    }
    int32_t thread_node = mem_node;
    int64_t begin = 0, end = (int64_t)b->bytes;
    size_t mapped[4];
    for (int i = 0; i < b->count; i++)
        mapped[i] = b->mapped;
    struct ts_placement_input in = {
        .n_arrays = b->count,
        .arrays = (void *const *)b->ptr,
        .array_bytes = b->bytes,
        .mappings = (void *const *)b->ptr,
        .mapped_bytes = mapped,
        .smaps = b->huge ? TS_THP_SMAPS : NULL,
        .n_threads = 1,
        .chunk_begin = &begin,
        .chunk_end = &end,
        .thread_node = &thread_node,
        .sample_stride = 1,
    };
    struct ts_placement audit;
    int status = ts_placement_audit(&in, &audit, err);
    if (status != TS_OK) {
        ts_error_prefix(err, "NUMA matrix, memory node %d", mem_node);
        return status;
    }
    int column = -1;
    for (int c = 0; c < audit.rec.n_nodes; c++)
        if (audit.node_ids[c] == mem_node)
            column = c;
    for (int a = 0; a < b->count; a++) {
        p->pages += audit.array_absent_pages[a] + audit.array_error_pages[a];
        for (int c = 0; c < audit.rec.n_nodes; c++) {
            int64_t pages = audit.array_node_pages[(size_t)a * (size_t)audit.rec.n_nodes + (size_t)c];
            p->pages += pages;
            if (c == column)
                p->pages_on_mem += pages;
        }
    }
    /* Several buffers in one cell: the coarsest claim is the one every buffer earned. */
    if (p->page_size == 0 || audit.rec.page_size < p->page_size)
        p->page_size = audit.rec.page_size;
    ts_placement_free(&audit);
    p->fraction = p->pages ? (double)p->pages_on_mem / (double)p->pages : NAN;
    p->misplaced = p->pages_on_mem != p->pages;
    return TS_OK;
}

/* ---- sizes ---- */

/* What one measurement's buffers may take on mem_node: half the node's free memory and of the
 * least room any memory limit leaves, so the run never pushes the node into reclaim. */
static int64_t memory_cap(int mem_node)
{
    int64_t cap = INT64_MAX;
    if (numa_available() >= 0) {
        long long free_bytes = 0;
        if (numa_node_size64(mem_node, &free_bytes) > 0 && free_bytes > 0)
            cap = free_bytes;
    } else {
        long pages = sysconf(_SC_AVPHYS_PAGES);
        if (pages > 0)
            cap = (int64_t)pages * (int64_t)ts_memory_page_size();
    }
    struct ts_memory_limit limits[16];
    int n = ts_memory_limits(limits, 16);
    for (int i = 0; i < n; i++)
        if (limits[i].bytes > 0 && limits[i].bytes < (uint64_t)cap)
            cap = (int64_t)limits[i].bytes;
    return cap / 2;
}

static int64_t steps_for(int64_t lines, int64_t asked)
{
    if (asked > 0)
        return asked;
    return lines < MIN_STEPS ? MIN_STEPS : lines > MAX_STEPS ? MAX_STEPS : lines;
}

static int repetitions_for(int asked)
{
    return asked <= 0 ? DEFAULT_REPETITIONS : asked > MAX_REPETITIONS ? MAX_REPETITIONS : asked;
}

/* ---- idle latency ---- */

static void huge_note(struct ts_numa_latency *out, const struct node_buffers *b)
{
    char mode[32];
    ts_thp_mode(TS_THP_ENABLED, mode, sizeof mode);
    out->huge_granted = out->placement.page_size == (int64_t)TS_THP_HUGE_PAGE;
    if (!out->huge_granted)
        snprintf(out->note, sizeof out->note, "2 MiB pages asked, not granted (%s; THP mode %s): base pages measured",
                 b->advised ? "MADV_HUGEPAGE taken" : "MADV_HUGEPAGE refused", mode);
}

static int latency_on_cpu(const ts_topology *topo, const struct ts_numa_probes *probes, int cpu, int mem_node,
                          int64_t bytes, int huge, int64_t steps, int repetitions, uint64_t seed,
                          struct ts_numa_latency *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    const int64_t line = (int64_t)probes->chase_line;
    const int64_t lines = bytes / line;
    out->bytes = lines * line;
    out->requested_page_size = huge ? (int64_t)TS_THP_HUGE_PAGE : (int64_t)ts_memory_page_size();
    out->ns_best = out->ns_median = NAN;
    out->placement.fraction = NAN;
    if (lines < 1) {
        snprintf(out->note, sizeof out->note, "no room for one chase line");
        return TS_OK;
    }
    steps = steps_for(lines, steps);
    repetitions = repetitions_for(repetitions);
    out->steps = steps;

    struct node_buffers b;
    int status = buffers_map(&b, 1, (size_t)out->bytes, mem_node, huge, err);
    if (status != TS_OK)
        return status;
    struct binding bound;
    if (bind_thread(topo, cpu, &bound) != 0) {
        buffers_free(&b);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "NUMA matrix: cannot bind a thread to CPU %d", cpu);
    }
    /* Built (first touched) from the measuring CPU, as a program would; the policy decides. */
    probes->chase_build(b.ptr[0], (size_t)lines, seed);
    status = buffers_audit(&b, mem_node, &out->placement, err);
    double times[MAX_REPETITIONS];
    if (status == TS_OK) {
        size_t at = probes->chase_run(b.ptr[0], 0, (uint64_t)(lines < steps ? lines : steps)); /* warm-up lap */
        for (int r = 0; r < repetitions; r++) {
            double t0 = ts_seconds_now();
            at = probes->chase_run(b.ptr[0], at, (uint64_t)steps);
            times[r] = (ts_seconds_now() - t0) * 1e9 / (double)steps;
        }
        chase_sink = at;
        ts_best_and_median(times, repetitions, &out->ns_best, &out->ns_median);
        out->measured = 1;
        if (huge)
            huge_note(out, &b);
    }
    unbind_thread(topo, &bound);
    buffers_free(&b);
    return status;
}

int ts_numa_latency_measure(const ts_topology *topo, const struct ts_numa_probes *probes, int cpu_node, int mem_node,
                            int64_t bytes, int huge, int64_t steps, int repetitions, uint64_t seed,
                            struct ts_numa_latency *out, struct ts_error *err)
{
    if (!ts_topology_is_this_machine(topo))
        return ts_fail(err, TS_BAD_INPUT, "NUMA matrix: %s is not this machine, nothing of it can be measured",
                       ts_topology_label(topo));
    int cpu;
    if (ts_numa_node_cpus(topo, cpu_node, &cpu, 1) != 1)
        return ts_fail(err, TS_BAD_INPUT, "NUMA matrix: node %d has no CPU this process may use", cpu_node);
    return latency_on_cpu(topo, probes, cpu, mem_node, bytes, huge, steps, repetitions, seed, out, err);
}

/* ---- bandwidth and loaded latency: the threads of the CPU node ---- */

/* Thread t of n's share of elems elements, on whole base pages. */
static void chunk_of(int64_t elems, int t, int n, int64_t *begin, int64_t *end)
{
    int64_t chunks = (elems + CHUNK_ELEMS - 1) / CHUNK_ELEMS;
    int64_t b = chunks * t / n * CHUNK_ELEMS, e = chunks * (t + 1) / n * CHUNK_ELEMS;
    *begin = b < elems ? b : elems;
    *end = e < elems ? e : elems;
}

static int team_check(const struct team *tm, struct ts_error *err)
{
    if (tm->size != tm->n)
        return ts_fail(err, TS_RESOURCE_ERROR,
                       "NUMA matrix: the OpenMP runtime started %d threads instead of %d (check OMP_DYNAMIC and "
                       "OMP_THREAD_LIMIT)",
                       tm->size, tm->n);
    if (tm->failed_cpu >= 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, tm->failed_errno, "NUMA matrix: cannot bind a thread to CPU %d",
                             tm->failed_cpu);
    return TS_OK;
}

/* Inside the team's parallel region: binds thread t; 0 when bound. */
static int team_bind(struct team *tm, struct binding *b)
{
    int t = omp_get_thread_num();
#pragma omp single
    tm->size = omp_get_num_threads();
    int ok = t < tm->n && bind_thread(tm->topo, tm->cpus[t], b) == 0;
    if (!ok && t < tm->n) {
#pragma omp critical(ts_numa_team)
        if (tm->failed_cpu < 0) {
            tm->failed_cpu = tm->cpus[t];
            tm->failed_errno = errno;
        }
    }
    return ok ? 0 : -1;
}

int ts_numa_bandwidth_measure(const ts_topology *topo, const struct ts_numa_stream *k, const int *cpus, int n,
                              int mem_node, int64_t bytes, int repetitions, struct ts_numa_bandwidth *out,
                              struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    out->gbs_best = out->gbs_median = NAN;
    out->placement.fraction = NAN;
    out->byte_model = k->byte_model;
    out->threads = n;
    const int64_t elems = bytes / (int64_t)sizeof(double);
    out->bytes_per_array = elems * (int64_t)sizeof(double);
    if (elems < CHUNK_ELEMS || k->n_arrays < 1 || k->n_arrays > 4) {
        snprintf(out->note, sizeof out->note, "no room for %s's arrays", k->name);
        return TS_OK;
    }
    repetitions = repetitions_for(repetitions);
    struct node_buffers b;
    int status = buffers_map(&b, k->n_arrays, (size_t)out->bytes_per_array, mem_node, 1, err);
    if (status != TS_OK)
        return status;
    double *arrays[4] = { b.ptr[0], b.ptr[1], b.ptr[2], b.ptr[3] };
    double times[MAX_REPETITIONS];
    struct team tm = { .topo = topo, .cpus = cpus, .n = n, .failed_cpu = -1 };
#pragma omp parallel num_threads(n)
    {
        struct binding bound = { 0 };
        int ok = team_bind(&tm, &bound) == 0;
#pragma omp barrier
        int go = tm.size == n && tm.failed_cpu < 0;
        int64_t begin, end;
        chunk_of(elems, omp_get_thread_num(), n, &begin, &end);
        double touch0 = 0.0;
#pragma omp master
        touch0 = ts_seconds_now();
        if (go && ok)
            k->init(k->ctx, arrays, begin, end);
#pragma omp barrier
#pragma omp master
        out->seconds_touch = ts_seconds_now() - touch0;
        for (int r = 0; go && r <= repetitions; r++) { /* r = 0: the warm-up */
            double t0 = 0.0;
#pragma omp barrier
#pragma omp master
            t0 = ts_seconds_now();
            k->step(k->ctx, arrays, begin, end);
#pragma omp barrier
#pragma omp master
            if (r > 0)
                times[r - 1] = ts_seconds_now() - t0;
        }
        if (go && k->check) {
            int64_t off = k->check(k->ctx, arrays, begin, end);
#pragma omp atomic
            out->check_failures += off;
        }
        if (ok)
            unbind_thread(topo, &bound);
    }
    status = team_check(&tm, err);
    if (status == TS_OK)
        status = buffers_audit(&b, mem_node, &out->placement, err);
    if (status == TS_OK) {
        double sum = 0.0, max = 0.0;
        for (int r = 0; r < repetitions; r++) {
            sum += times[r];
            max = times[r] > max ? times[r] : max;
        }
        double best, median;
        ts_best_and_median(times, repetitions, &best, &median);
        const double moved = k->bytes_per_elem * (double)elems;
        out->gbs_best = moved / best * 1e-9;
        out->gbs_median = moved / median * 1e-9;
        out->repetitions = repetitions;
        out->seconds_min = best;
        out->seconds_avg = sum / repetitions;
        out->seconds_max = max;
        out->checked = k->check != NULL;
        out->measured = 1;
    }
    buffers_free(&b);
    return status;
}

/* The chase on the first CPU while the others read their shares of a buffer of their own. */
static int loaded_latency(const ts_topology *topo, const struct ts_numa_probes *probes, const int *cpus, int n,
                          int mem_node, int64_t chase_bytes, int64_t stream_bytes, const struct ts_numa_options *opt,
                          struct ts_numa_latency *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    out->ns_best = out->ns_median = NAN;
    out->placement.fraction = NAN;
    out->requested_page_size = (int64_t)ts_memory_page_size();
    if (n < 2) {
        snprintf(out->note, sizeof out->note, "one core on the node: nothing to load it with");
        return TS_OK;
    }
    const int64_t line = (int64_t)probes->chase_line;
    const int64_t lines = chase_bytes / line;
    const int64_t elems = stream_bytes / (int64_t)sizeof(double);
    const struct ts_numa_stream *k = &probes->read;
    if (lines < 1 || elems < CHUNK_ELEMS || k->n_arrays != 1) {
        snprintf(out->note, sizeof out->note, "no room for the chase and the streams");
        return TS_OK;
    }
    out->bytes = lines * line;
    const int64_t steps = steps_for(lines, opt->chase_steps);
    const int repetitions = repetitions_for(opt->repetitions);
    out->steps = steps;
    struct node_buffers chase, stream;
    int status = buffers_map(&chase, 1, (size_t)out->bytes, mem_node, 0, err);
    if (status != TS_OK)
        return status;
    status = buffers_map(&stream, 1, (size_t)(elems * (int64_t)sizeof(double)), mem_node, 1, err);
    if (status != TS_OK) {
        buffers_free(&chase);
        return status;
    }
    double *arrays[1] = { stream.ptr[0] };
    double times[MAX_REPETITIONS];
    atomic_int stop = 0;
    struct team tm = { .topo = topo, .cpus = cpus, .n = n, .failed_cpu = -1 };
#pragma omp parallel num_threads(n)
    {
        struct binding bound = { 0 };
        int ok = team_bind(&tm, &bound) == 0;
#pragma omp barrier
        const int t = omp_get_thread_num();
        int go = tm.size == n && tm.failed_cpu < 0;
        int64_t begin = 0, end = 0;
        if (t > 0)
            chunk_of(elems, t - 1, n - 1, &begin, &end);
        if (go && t == 0)
            probes->chase_build(chase.ptr[0], (size_t)lines, opt->seed);
        else if (go)
            k->init(k->ctx, arrays, begin, end);
#pragma omp barrier
        if (go && t == 0) {
            size_t at = probes->chase_run(chase.ptr[0], 0, (uint64_t)(lines < steps ? lines : steps));
            for (int r = 0; r < repetitions; r++) {
                double t0 = ts_seconds_now();
                at = probes->chase_run(chase.ptr[0], at, (uint64_t)steps);
                times[r] = (ts_seconds_now() - t0) * 1e9 / (double)steps;
            }
            chase_sink = at;
            atomic_store(&stop, 1);
        } else if (go) {
            while (!atomic_load(&stop))
                k->step(k->ctx, arrays, begin, end);
        }
        if (ok)
            unbind_thread(topo, &bound);
    }
    status = team_check(&tm, err);
    if (status == TS_OK)
        status = buffers_audit(&chase, mem_node, &out->placement, err);
    if (status == TS_OK)
        status = buffers_audit(&stream, mem_node, &out->placement, err);
    if (status == TS_OK) {
        ts_best_and_median(times, repetitions, &out->ns_best, &out->ns_median);
        out->measured = 1;
        snprintf(out->note, sizeof out->note, "%d thread(s) reading %s's buffer on node %d meanwhile", n - 1, k->name,
                 mem_node);
    }
    buffers_free(&stream);
    buffers_free(&chase);
    return status;
}

/* ---- the matrix ---- */

void ts_numa_matrix_free(struct ts_numa_matrix *m)
{
    free(m->cpu_nodes);
    free(m->mem_nodes);
    free(m->cell);
    memset(m, 0, sizeof *m);
}

/* The NUMA nodes with allowed CPUs, and those with memory this process may use. */
int ts_numa_list_nodes(const ts_topology *topo, int *cpu_nodes, int *n_cpu_nodes, int *mem_nodes, int *n_mem_nodes,
                       int max)
{
    int count = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
    hwloc_const_cpuset_t cpus = hwloc_topology_get_allowed_cpuset(topo->hw);
    hwloc_const_nodeset_t mems = hwloc_topology_get_allowed_nodeset(topo->hw);
    *n_cpu_nodes = *n_mem_nodes = 0;
    for (int i = 0; i < count; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (node->cpuset && hwloc_bitmap_intersects(node->cpuset, cpus) && *n_cpu_nodes < max)
            cpu_nodes[(*n_cpu_nodes)++] = (int)node->os_index;
        /* A node hwloc reports no memory size for still counts: some VMs leave it out. */
        if (hwloc_bitmap_isset(mems, node->os_index)
            && (node->attr->numanode.local_memory > 0 || node->total_memory == 0) && *n_mem_nodes < max)
            mem_nodes[(*n_mem_nodes)++] = (int)node->os_index;
    }
    return count;
}

static int list_nodes(const ts_topology *topo, struct ts_numa_matrix *m)
{
    int count = hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
    m->cpu_nodes = calloc(count > 0 ? (size_t)count : 1, sizeof *m->cpu_nodes);
    m->mem_nodes = calloc(count > 0 ? (size_t)count : 1, sizeof *m->mem_nodes);
    if (!m->cpu_nodes || !m->mem_nodes)
        return -1;
    ts_numa_list_nodes(topo, m->cpu_nodes, &m->n_cpu_nodes, m->mem_nodes, &m->n_mem_nodes, count > 0 ? count : 1);
    return 0;
}

/* VMs often show no cache at all: the floor is then a guess, and a host with a larger LLC
 * (hundreds of MiB on some EPYC) keeps such a buffer in it. */
#define UNKNOWN_LLC "LLC size unknown (hwloc shows no cache): the buffer may not be past it"

static void append_note(char *note, size_t len, const char *text)
{
    size_t used = strlen(note);
    snprintf(note + used, len - used, "%s%s", used ? "; " : "", text);
}

static int64_t at_least(int64_t v, int64_t floor)
{
    return v < floor ? floor : v;
}

static int measure_cell(const ts_topology *topo, const struct ts_numa_probes *probes, const struct ts_numa_options *opt,
                        int64_t llc, struct ts_numa_cell *cell, struct ts_error *err)
{
    int cpus[1024];
    int n = ts_numa_node_cpus(topo, cell->cpu_node, cpus, 1024);
    if (n < 1)
        return ts_fail(err, TS_INTERNAL_ERROR, "NUMA matrix: node %d lost its CPUs", cell->cpu_node);
    cell->threads = n;
    struct ts_list list;
    ts_list_init(&list, cell->cpus, sizeof cell->cpus);
    for (int i = 0; i < n; i++)
        ts_list_add(&list, cpus[i]);
    ts_list_end(&list);

    const int64_t cap = memory_cap(cell->mem_node);
    int64_t chase = opt->chase_bytes > 0 ? opt->chase_bytes : at_least(LLC_MULTIPLE * llc, MIN_BUFFER);
    int64_t stream = opt->stream_bytes > 0 ? opt->stream_bytes : chase;
    if (chase > cap)
        chase = cap;
    /* Triad holds three arrays; the loaded latency one stream array and the chase. */
    if (stream > cap / 3)
        stream = cap / 3;

    int status = latency_on_cpu(topo, probes, cpus[0], cell->mem_node, chase, 0, opt->chase_steps, opt->repetitions,
                                opt->seed, &cell->latency_base, err);
    if (status == TS_OK && !opt->skip_huge)
        status = latency_on_cpu(topo, probes, cpus[0], cell->mem_node, chase, 1, opt->chase_steps, opt->repetitions,
                                opt->seed, &cell->latency_huge, err);
    if (status == TS_OK && !opt->skip_bandwidth)
        status = ts_numa_bandwidth_measure(topo, &probes->read, cpus, n, cell->mem_node, stream, opt->repetitions,
                                           &cell->read, err);
    if (status == TS_OK && !opt->skip_bandwidth)
        status = ts_numa_bandwidth_measure(topo, &probes->triad, cpus, n, cell->mem_node, stream, opt->repetitions,
                                           &cell->triad, err);
    if (status == TS_OK && !opt->skip_loaded)
        status = loaded_latency(topo, probes, cpus, n, cell->mem_node, chase,
                                cap - chase < stream ? cap - chase : stream, opt, &cell->latency_loaded, err);
    if (status == TS_OK && llc == 0 && opt->chase_bytes <= 0) {
        append_note(cell->latency_base.note, sizeof cell->latency_base.note, UNKNOWN_LLC);
        append_note(cell->latency_huge.note, sizeof cell->latency_huge.note, UNKNOWN_LLC);
    }
    if (status == TS_OK && llc == 0 && opt->stream_bytes <= 0) {
        append_note(cell->read.note, sizeof cell->read.note, UNKNOWN_LLC);
        append_note(cell->triad.note, sizeof cell->triad.note, UNKNOWN_LLC);
    }
    cell->misplaced = cell->latency_base.placement.misplaced || cell->latency_huge.placement.misplaced
                      || cell->read.placement.misplaced || cell->triad.placement.misplaced
                      || cell->latency_loaded.placement.misplaced;
    return status;
}

int ts_numa_matrix_measure(const ts_topology *topo, const struct ts_numa_probes *probes,
                           const struct ts_numa_options *opt, struct ts_numa_matrix *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ts_topology_is_this_machine(topo))
        return ts_fail(err, TS_BAD_INPUT, "NUMA matrix: %s is not this machine, nothing of it can be measured",
                       ts_topology_label(topo));
    if (list_nodes(topo, out) != 0) {
        ts_numa_matrix_free(out);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "NUMA matrix: cannot list the nodes");
    }
    if (out->n_cpu_nodes == 0 || out->n_mem_nodes == 0) {
        ts_numa_matrix_free(out);
        return ts_fail(err, TS_BAD_INPUT, "NUMA matrix: hwloc shows no NUMA node with CPUs or memory we may use");
    }
    out->cell = calloc((size_t)out->n_cpu_nodes * (size_t)out->n_mem_nodes, sizeof *out->cell);
    if (!out->cell) {
        ts_numa_matrix_free(out);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "NUMA matrix: cannot allocate its cells");
    }
    ts_thp_mode(TS_THP_ENABLED, out->thp_mode, sizeof out->thp_mode);
    int status = TS_OK;
    for (int c = 0; c < out->n_cpu_nodes && status == TS_OK; c++) {
        int cpus[1024];
        int n = ts_numa_node_cpus(topo, out->cpu_nodes[c], cpus, 1024);
        struct ts_llc llc;
        ts_affinity_llc(topo, cpus, n, &llc);
        if (llc.bytes > out->llc_bytes)
            out->llc_bytes = llc.bytes;
        for (int m = 0; m < out->n_mem_nodes && status == TS_OK; m++) {
            struct ts_numa_cell *cell = &out->cell[(size_t)c * (size_t)out->n_mem_nodes + (size_t)m];
            cell->cpu_node = out->cpu_nodes[c];
            cell->mem_node = out->mem_nodes[m];
            status = measure_cell(topo, probes, opt, llc.bytes, cell, err);
            out->misplaced_cells += cell->misplaced;
            int64_t cap = memory_cap(cell->mem_node);
            if (out->memory_cap == 0 || cap < out->memory_cap)
                out->memory_cap = cap;
        }
    }
    if (status != TS_OK)
        ts_numa_matrix_free(out);
    return status;
}

/* ---- for the survey's engines beside this one (numa_internal.h) ---- */

int ts_numa_bind_thread(const ts_topology *topo, int cpu, struct binding *b)
{
    return bind_thread(topo, cpu, b);
}

void ts_numa_unbind_thread(const ts_topology *topo, struct binding *b)
{
    unbind_thread(topo, b);
}

int ts_numa_buffers_map(struct node_buffers *b, int count, size_t bytes, int mem_node, int huge, struct ts_error *err)
{
    return buffers_map(b, count, bytes, mem_node, huge, err);
}

void ts_numa_buffers_free(struct node_buffers *b)
{
    buffers_free(b);
}

int ts_numa_buffers_audit(const struct node_buffers *b, int mem_node, struct ts_numa_placement *p, struct ts_error *err)
{
    return buffers_audit(b, mem_node, p, err);
}

int64_t ts_numa_memory_cap(int mem_node)
{
    return memory_cap(mem_node);
}

int ts_numa_team_bind(struct team *tm, struct binding *b)
{
    return team_bind(tm, b);
}

int ts_numa_team_check(const struct team *tm, struct ts_error *err)
{
    return team_check(tm, err);
}
