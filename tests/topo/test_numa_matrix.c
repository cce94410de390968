/* The NUMA matrix engine on this machine: one cell per (CPU node, memory node) hwloc shows, each
 * number measured on pages counted on its memory node, and a cell whose pages are not all
 * there marked. No timing threshold: the numbers are checked for sanity (finite, positive), and
 * the one comparison is a property of memory, allowing equality: a chase through a buffer past
 * the last-level cache is not faster than one inside L1. */
#include "topo_test.h"
#include "ts_chase.h"
#include "ts_kernel_probe.h"
#include "ts_numa_matrix.h"
#include "ts_stream_kernels.h"

#include <hwloc.h>
#include <math.h>
#include <numa.h>

/* As the survey hands them over (app/survey_matrix.c): kernels/ts_chase.h and the kernel
 * table's fast sum and triad. */
static struct ts_numa_probes probes(void)
{
    static struct ts_kernel_probe sum, triad;
    ts_kernel_probe_setup(&sum, TS_KERNEL_SUM);
    ts_kernel_probe_setup(&triad, TS_KERNEL_TRIAD);
    struct ts_numa_probes p = {
        .chase_line = TS_CHASE_LINE,
        .chase_build = ts_chase_build,
        .chase_run = ts_chase_run,
        .read = { "sum", 1, sum.kernel->bytes_per_unit, sum.kernel->byte_model, ts_kernel_probe_init,
                  ts_kernel_probe_step, &sum, NULL },
        .triad = { "triad", 3, triad.kernel->bytes_per_unit, triad.kernel->byte_model, ts_kernel_probe_init,
                   ts_kernel_probe_step, &triad, NULL },
    };
    return p;
}

static ts_topology *this_machine(void)
{
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "cannot load the topology: %s", err.message);
    return topo;
}

/* NUMA nodes hwloc shows holding CPUs, counted without the engine's code. */
static int nodes_with_cpus(void)
{
    hwloc_topology_t hw;
    REQUIRE(hwloc_topology_init(&hw) == 0 && hwloc_topology_load(hw) == 0, "hwloc cannot load this machine");
    int n = 0;
    for (int i = 0; i < hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE); i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, (unsigned)i);
        n += node->cpuset && !hwloc_bitmap_iszero(node->cpuset);
    }
    hwloc_topology_destroy(hw);
    return n;
}

static void check_placed(const struct ts_numa_placement *p, const char *what, const struct ts_numa_cell *c)
{
    if (numa_available() < 0) {
        CHECK(isnan(p->fraction) && !p->misplaced, "%s: no NUMA support, yet a placement was claimed", what);
        return;
    }
    CHECK(p->pages > 0 && p->pages_on_mem == p->pages && p->fraction == 1.0 && !p->misplaced,
          "cell (%d, %d) %s: %lld of %lld pages on memory node %d (fraction %g, misplaced %d)", c->cpu_node,
          c->mem_node, what, (long long)p->pages_on_mem, (long long)p->pages, c->mem_node, p->fraction, p->misplaced);
}

static void check_latency(const struct ts_numa_latency *l, const char *what, const struct ts_numa_cell *c)
{
    CHECK(l->measured, "cell (%d, %d) %s not measured: %s", c->cpu_node, c->mem_node, what, l->note);
    CHECK(isfinite(l->ns_best) && l->ns_best > 0 && isfinite(l->ns_median) && l->ns_median >= l->ns_best,
          "cell (%d, %d) %s: best %g ns, median %g ns", c->cpu_node, c->mem_node, what, l->ns_best, l->ns_median);
    check_placed(&l->placement, what, c);
    printf("cell (%d, %d) %s: %.1f ns best, %.1f ns median, %lld MiB, pages of %lld KiB%s%s\n", c->cpu_node,
           c->mem_node, what, l->ns_best, l->ns_median, (long long)(l->bytes >> 20),
           (long long)(l->placement.page_size >> 10), l->note[0] ? ": " : "", l->note);
}

static void check_bandwidth(const struct ts_numa_bandwidth *b, const char *what, const struct ts_numa_cell *c)
{
    CHECK(b->measured, "cell (%d, %d) %s not measured: %s", c->cpu_node, c->mem_node, what, b->note);
    CHECK(isfinite(b->gbs_best) && b->gbs_best > 0 && b->gbs_median <= b->gbs_best && b->threads == c->threads,
          "cell (%d, %d) %s: best %g GB/s, median %g GB/s, %d threads", c->cpu_node, c->mem_node, what, b->gbs_best,
          b->gbs_median, b->threads);
    check_placed(&b->placement, what, c);
    printf("cell (%d, %d) %s: %.2f GB/s best, %.2f median, %d thread(s) on CPUs %s, %lld MiB per array\n", c->cpu_node,
           c->mem_node, what, b->gbs_best, b->gbs_median, b->threads, c->cpus, (long long)(b->bytes_per_array >> 20));
}

/* Every cell of the machine (1 x 1 here, 2 x 2 in tests/numa_vm), each number on its node. */
static void every_cell(void)
{
    ts_topology *topo = this_machine();
    struct ts_numa_probes p = probes();
    /* The sizes the engine chooses: 8x the LLC, at least 64 MiB (this VM shows hwloc no cache). */
    struct ts_numa_options opt = { .repetitions = 3, .seed = 5 };
    struct ts_numa_matrix m;
    struct ts_error err = { 0 };
    REQUIRE(ts_numa_matrix_measure(topo, &p, &opt, &m, &err) == TS_OK, "the matrix failed: %s", err.message);
    const int cpu_nodes = nodes_with_cpus();
    CHECK(m.n_cpu_nodes == cpu_nodes, "%d CPU nodes in the matrix, hwloc shows %d", m.n_cpu_nodes, cpu_nodes);
    CHECK(m.n_mem_nodes >= 1 && m.n_mem_nodes <= numa_max_node() + 1, "%d memory nodes", m.n_mem_nodes);
    printf("matrix %d x %d, THP %s, LLC %lld bytes (0: unknown)\n", m.n_cpu_nodes, m.n_mem_nodes, m.thp_mode,
           (long long)m.llc_bytes);
    for (int i = 0; i < m.n_cpu_nodes * m.n_mem_nodes; i++) {
        const struct ts_numa_cell *c = &m.cell[i];
        CHECK(c->cpu_node == m.cpu_nodes[i / m.n_mem_nodes] && c->mem_node == m.mem_nodes[i % m.n_mem_nodes],
              "cell %d is (%d, %d), out of row order", i, c->cpu_node, c->mem_node);
        CHECK(c->threads >= 1 && c->cpus[0] != '\0', "cell %d: %d threads on CPUs \"%s\"", i, c->threads, c->cpus);
        check_latency(&c->latency_base, "latency, 4 KiB pages", c);
        const int64_t want = m.llc_bytes * 8 > 64 << 20 ? m.llc_bytes * 8 : 64 << 20;
        CHECK(c->latency_base.bytes == (want < m.memory_cap ? want : m.memory_cap / 64 * 64),
              "a chase buffer of %lld bytes, LLC %lld, memory cap %lld", (long long)c->latency_base.bytes,
              (long long)m.llc_bytes, (long long)m.memory_cap);
        CHECK(c->latency_base.requested_page_size == 4096 && c->latency_base.placement.page_size == 4096,
              "4 KiB latency asked %lld, audited %lld", (long long)c->latency_base.requested_page_size,
              (long long)c->latency_base.placement.page_size);
        check_latency(&c->latency_huge, "latency, 2 MiB pages", c);
        /* Granted or not, it says which: the audit's page size and the flag agree. */
        CHECK(c->latency_huge.huge_granted == (c->latency_huge.placement.page_size == 2 << 20),
              "huge pages granted %d but audited in pages of %lld bytes", c->latency_huge.huge_granted,
              (long long)c->latency_huge.placement.page_size);
        CHECK(c->latency_huge.huge_granted || c->latency_huge.note[0], "huge pages not granted, and no note says so");
        check_bandwidth(&c->read, "read", c);
        check_bandwidth(&c->triad, "triad", c);
        if (c->threads > 1)
            check_latency(&c->latency_loaded, "loaded latency", c);
        else
            CHECK(!c->latency_loaded.measured && c->latency_loaded.note[0], "one thread, yet a loaded latency");
        CHECK(!c->misplaced, "cell (%d, %d) marked misplaced", c->cpu_node, c->mem_node);
    }
    CHECK(m.misplaced_cells == 0, "%d cells misplaced", m.misplaced_cells);
    ts_numa_matrix_free(&m);
    ts_topology_destroy(topo);
}

static int median_index(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n / 2;
}

/* The medians of several measurements of a 16 KiB chase (inside every L1 data cache) and of a
 * 64 MiB one (past the LLC of this VM's host, whose size hwloc does not see). */
static void dram_not_faster_than_l1(void)
{
    ts_topology *topo = this_machine();
    struct ts_numa_probes p = probes();
    struct ts_numa_options opt = { .skip_huge = 1, .skip_bandwidth = 1, .skip_loaded = 1 };
    struct ts_numa_matrix m;
    struct ts_error err = { 0 };
    /* Only for the node numbers: the first CPU node and the first memory node. */
    opt.chase_bytes = 1 << 20;
    REQUIRE(ts_numa_matrix_measure(topo, &p, &opt, &m, &err) == TS_OK, "the matrix failed: %s", err.message);
    const int cpu_node = m.cpu_nodes[0], mem_node = m.mem_nodes[0];
    ts_numa_matrix_free(&m);
    enum { RUNS = 3 };
    double l1[RUNS], dram[RUNS];
    for (int r = 0; r < RUNS; r++) {
        struct ts_numa_latency small, large;
        REQUIRE(ts_numa_latency_measure(topo, &p, cpu_node, mem_node, 16 << 10, 0, 0, 5, 9, &small, &err) == TS_OK,
                "L1 chase: %s", err.message);
        REQUIRE(ts_numa_latency_measure(topo, &p, cpu_node, mem_node, 64 << 20, 0, 0, 5, 9, &large, &err) == TS_OK,
                "DRAM chase: %s", err.message);
        REQUIRE(small.measured && large.measured, "not measured: %s / %s", small.note, large.note);
        CHECK(small.bytes == 16 << 10 && large.bytes == 64 << 20, "buffers of %lld and %lld bytes",
              (long long)small.bytes, (long long)large.bytes);
        l1[r] = small.ns_median;
        dram[r] = large.ns_median;
    }
    double l1_median = l1[median_index(l1, RUNS)], dram_median = dram[median_index(dram, RUNS)];
    printf("chase latency, medians of %d runs: 16 KiB %.2f ns, 64 MiB %.1f ns\n", RUNS, l1_median, dram_median);
    CHECK(isfinite(l1_median) && l1_median > 0, "L1 latency %g ns", l1_median);
    CHECK(dram_median >= l1_median, "a chase past the LLC (%g ns) is faster than one inside L1 (%g ns)", dram_median,
          l1_median);
    ts_topology_destroy(topo);
}

/* A build that leaves half the buffer untouched: its pages are on no node, and every number of
 * the cell must carry the mark rather than pass for memory of the node. */
static void half_build(void *buf, size_t n, uint64_t seed)
{
    ts_chase_build(buf, n / 2, seed);
}

static void misplaced_is_marked(void)
{
    if (numa_available() < 0) {
        printf("no NUMA support in this kernel: no placement to get wrong\n");
        return;
    }
    ts_topology *topo = this_machine();
    struct ts_numa_probes p = probes();
    p.chase_build = half_build;
    struct ts_numa_options opt = {
        .chase_bytes = 8 << 20, .chase_steps = 1 << 16, .repetitions = 1, .skip_huge = 1, .skip_bandwidth = 1
    };
    struct ts_numa_matrix m;
    struct ts_error err = { 0 };
    REQUIRE(ts_numa_matrix_measure(topo, &p, &opt, &m, &err) == TS_OK, "the matrix failed: %s", err.message);
    for (int i = 0; i < m.n_cpu_nodes * m.n_mem_nodes; i++) {
        const struct ts_numa_cell *c = &m.cell[i];
        const struct ts_numa_placement *pl = &c->latency_base.placement;
        CHECK(c->latency_base.measured && pl->misplaced && pl->fraction < 0.6 && pl->fraction > 0.4,
              "cell (%d, %d): half the pages never touched, yet fraction %g misplaced %d", c->cpu_node, c->mem_node,
              pl->fraction, pl->misplaced);
        CHECK(c->misplaced, "cell (%d, %d) not marked", c->cpu_node, c->mem_node);
    }
    CHECK(m.misplaced_cells == m.n_cpu_nodes * m.n_mem_nodes, "%d of %d cells marked", m.misplaced_cells,
          m.n_cpu_nodes * m.n_mem_nodes);
    ts_numa_matrix_free(&m);
    ts_topology_destroy(topo);
}

static void no_step(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    (void)ctx;
    (void)arrays;
    (void)begin;
    (void)end;
}

/* One bandwidth measurement with a kernel's check (the survey's stream section): STREAM's times
 * (min <= avg <= max, the best rate from the min), the check summed over the threads' shares:
 * none off after Triad's sweeps, every output element off when the step writes nothing. */
static void bandwidth_times_and_check(void)
{
    ts_topology *topo = this_machine();
    int cpu_nodes[64], mem_nodes[64], n_cpu, n_mem;
    ts_numa_list_nodes(topo, cpu_nodes, &n_cpu, mem_nodes, &n_mem, 64);
    REQUIRE(n_cpu > 0 && n_mem > 0, "no NUMA node with CPUs (%d) or memory (%d)", n_cpu, n_mem);
    CHECK(ts_numa_memory_cap(mem_nodes[0]) > 0, "no memory to measure with on node %d", mem_nodes[0]);
    int cpus[64];
    int n = ts_numa_node_cpus(topo, cpu_nodes[0], cpus, 2);
    const struct ts_stream_kernel *k = ts_stream_kernel(TS_STREAM_TRIAD);
    struct ts_numa_stream triad = { "Triad",        3, k->bytes_per_elem, k->byte_model, ts_stream_init,
                                    ts_stream_step, k, ts_stream_check };
    struct ts_numa_bandwidth b;
    struct ts_error err = { 0 };
    const int64_t bytes = (4 << 20) + 8 * 1000; /* not a whole number of chunks */
    REQUIRE(ts_numa_bandwidth_measure(topo, &triad, cpus, n, mem_nodes[0], bytes, 3, &b, &err) == TS_OK, "Triad: %s",
            err.message);
    CHECK(b.measured && b.checked && b.check_failures == 0 && b.repetitions == 3,
          "Triad: measured %d, checked %d, %lld elements off, %d sweeps", b.measured, b.checked,
          (long long)b.check_failures, b.repetitions);
    CHECK(b.seconds_min > 0 && b.seconds_min <= b.seconds_avg && b.seconds_avg <= b.seconds_max,
          "times min %g avg %g max %g", b.seconds_min, b.seconds_avg, b.seconds_max);
    const double best = 24.0 * (double)(bytes / 8) / b.seconds_min * 1e-9;
    CHECK(fabs(b.gbs_best - best) <= 1e-9 * best, "best %g GB/s, the min time makes %g", b.gbs_best, best);
    triad.step = no_step;
    REQUIRE(ts_numa_bandwidth_measure(topo, &triad, cpus, n, mem_nodes[0], bytes, 1, &b, &err) == TS_OK,
            "Triad without a step: %s", err.message);
    CHECK(b.checked && b.check_failures == bytes / 8, "a step that writes nothing: %lld of %lld elements off",
          (long long)b.check_failures, (long long)(bytes / 8));
    triad.check = NULL;
    REQUIRE(ts_numa_bandwidth_measure(topo, &triad, cpus, n, mem_nodes[0], bytes, 1, &b, &err) == TS_OK,
            "Triad without a check: %s", err.message);
    CHECK(!b.checked && b.check_failures == 0, "no check, yet checked %d with %lld off", b.checked,
          (long long)b.check_failures);
    ts_topology_destroy(topo);
}

/* A described machine has no CPU to bind to: refused, not measured here and filed as there. */
static void described_refused(void)
{
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    struct ts_topology_source src = { TS_TOPOLOGY_SYNTHETIC, "package:2 numa:2 core:2 pu:1" };
    REQUIRE(ts_topology_load(&topo, &src, &err) == TS_OK, "synthetic topology: %s", err.message);
    struct ts_numa_probes p = probes();
    struct ts_numa_options opt = { 0 };
    struct ts_numa_matrix m;
    CHECK(ts_numa_matrix_measure(topo, &p, &opt, &m, &err) == TS_BAD_INPUT && strstr(err.message, "not this machine"),
          "a synthetic topology was measured: %s", err.message);
    ts_topology_destroy(topo);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "every_cell", every_cell },
        { "dram_not_faster_than_l1", dram_not_faster_than_l1 },
        { "misplaced_is_marked", misplaced_is_marked },
        { "described_refused", described_refused },
        { "bandwidth_times_and_check", bandwidth_times_and_check },
    };
    return TS_RUN_CASES(cases);
}
