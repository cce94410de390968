#include "ts_c2c.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numa_internal.h"
#include "topology_internal.h"
#include "ts_memory.h"
#include "ts_stats.h"

#define MAX_SAMPLES 255
/* Round trips of the warm-up batch that also tells how long one takes. */
#define WARM_ROUNDS 16
/* Round trips between two looks at the clock: at 50-100 ns a transfer, 25-50 us, so that the
 * looks (a vDSO call each) cost well under 1% of a sample. */
#define CHUNK_ROUNDS 256

void ts_c2c_free(struct ts_c2c *c)
{
    free(c->cpus);
    free(c->ns);
    memset(c, 0, sizeof *c);
}

static int logical_of(hwloc_topology_t hw, hwloc_obj_type_t type, hwloc_obj_t pu)
{
    hwloc_obj_t o = hwloc_get_ancestor_obj_by_type(hw, type, pu);
    return o ? (int)o->logical_index : -1;
}

int ts_c2c_cpus(const ts_topology *topo, struct ts_c2c *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    hwloc_topology_t hw = topo->hw;
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(hw);
    const int total = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
    out->cpus = calloc(total > 0 ? (size_t)total : 1, sizeof *out->cpus);
    if (!out->cpus)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "core-to-core latency: %d CPUs", total);
    int any_l3 = 0, any_l2 = 0;
    for (int i = 0; i < total; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, (unsigned)i);
        any_l3 |= hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_L3CACHE, pu) != NULL;
        any_l2 |= hwloc_get_ancestor_obj_by_type(hw, HWLOC_OBJ_L2CACHE, pu) != NULL;
    }
    out->llc_level = any_l3 ? 3 : any_l2 ? 2 : 0;
    for (int i = 0; i < total; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, (unsigned)i);
        if (!hwloc_bitmap_isset(allowed, pu->os_index))
            continue;
        struct ts_c2c_cpu *c = &out->cpus[out->n++];
        c->cpu = (int)pu->os_index;
        c->core = logical_of(hw, HWLOC_OBJ_CORE, pu);
        c->llc = out->llc_level == 3   ? logical_of(hw, HWLOC_OBJ_L3CACHE, pu)
                 : out->llc_level == 2 ? logical_of(hw, HWLOC_OBJ_L2CACHE, pu)
                                       : -1;
        c->package = logical_of(hw, HWLOC_OBJ_PACKAGE, pu);
        c->node = ts_topology_node_of_cpu(topo, c->cpu);
    }
    out->pairs = (int64_t)out->n * (out->n - 1) / 2;
    return TS_OK;
}

/* What the two threads share. */
struct duel {
    const ts_topology *topo;
    const struct ts_c2c_probes *probes;
    const struct ts_c2c_options *opt;
    void *line;
    int a, b;          /* the pair's CPUs */
    atomic_int failed; /* a CPU could not be bound to: its OS index + 1 */
    int failed_errno;
    int size; /* threads the runtime started */
    double samples[MAX_SAMPLES];
};

/* The initiator's side of one pair: a timed warm-up batch, then samples; the median one-way ns. */
static double initiate(struct duel *d)
{
    const struct ts_c2c_probes *pr = d->probes;
    const struct ts_c2c_options *opt = d->opt;
    const double begin = ts_seconds_now();
    pr->ping(d->line, WARM_ROUNDS);
    const double per_round = (ts_seconds_now() - begin) / WARM_ROUNDS;
    uint64_t rounds = opt->rounds > 0 ? opt->rounds : 1;
    if (per_round > 0 && opt->sample_seconds / per_round < (double)rounds)
        rounds = opt->sample_seconds / per_round < 1.0 ? 1 : (uint64_t)(opt->sample_seconds / per_round);
    const int most = opt->samples < 1 ? 1 : opt->samples > MAX_SAMPLES ? MAX_SAMPLES : opt->samples;
    int n = 0, over = 0;
    while (n < most && !over) {
        /* In chunks, the pair's bound looked at between them: on a loaded node a round trip
         * waits until both threads run at once, and one sample could otherwise take seconds. A
         * sample cut short counts for the round trips it made. */
        double seconds = 0.0;
        uint64_t done = 0;
        while (done < rounds && !over) {
            const uint64_t c = rounds - done < CHUNK_ROUNDS ? rounds - done : CHUNK_ROUNDS;
            double t0 = ts_seconds_now();
            pr->ping(d->line, c);
            double t1 = ts_seconds_now();
            seconds += t1 - t0;
            done += c;
            over = t1 - begin > opt->seconds_per_pair;
        }
        d->samples[n++] = seconds * 1e9 / (2.0 * (double)done);
    }
    pr->stop(d->line);
    qsort(d->samples, (size_t)n, sizeof d->samples[0], ts_compare_doubles);
    return n % 2 ? d->samples[n / 2] : 0.5 * (d->samples[n / 2 - 1] + d->samples[n / 2]);
}

/* Binds the calling thread to cpu, keeping the first binding it had in kept. */
static void rebind(struct duel *d, int cpu, struct binding *kept)
{
    struct binding b = { 0 };
    int rc = ts_numa_bind_thread(d->topo, cpu, kept->saved ? &b : kept);
    int e = errno;
    if (b.saved)
        hwloc_bitmap_free(b.saved);
    if (rc != 0) {
        int none = 0;
        if (atomic_compare_exchange_strong(&d->failed, &none, cpu + 1))
            d->failed_errno = e;
    }
}

static int wanted(const struct ts_c2c_options *o, const struct ts_c2c *c, int i, int j, int64_t k, int64_t stride)
{
    if (o->pair_a != o->pair_b)
        return (c->cpus[i].cpu == o->pair_a && c->cpus[j].cpu == o->pair_b)
               || (c->cpus[i].cpu == o->pair_b && c->cpus[j].cpu == o->pair_a);
    return k % stride == 0;
}

static void run_pairs(struct duel *d, struct ts_c2c *out)
{
    const int64_t stride = d->opt->stride > 1 ? d->opt->stride : 1;
#pragma omp parallel num_threads(2)
    {
        const int t = omp_get_thread_num();
#pragma omp single
        d->size = omp_get_num_threads();
        struct binding kept = { 0 };
        int64_t k = 0;
        for (int i = 0; i < out->n && d->size == 2; i++) {
            for (int j = i + 1; j < out->n; j++, k++) {
                if (!wanted(d->opt, out, i, j, k, stride))
                    continue;
                rebind(d, out->cpus[t == 0 ? i : j].cpu, &kept);
                if (t == 0)
                    d->probes->reset(d->line);
#pragma omp barrier
                if (atomic_load(&d->failed))
                    break;
                if (t == 1) {
                    d->probes->answer(d->line);
                } else {
                    double ns = initiate(d);
                    out->ns[(size_t)i * (size_t)out->n + (size_t)j] = ns;
                    out->ns[(size_t)j * (size_t)out->n + (size_t)i] = ns;
                    out->pairs_measured++;
                }
#pragma omp barrier
            }
            if (atomic_load(&d->failed))
                break;
        }
        if (kept.saved)
            ts_numa_unbind_thread(d->topo, &kept);
    }
}

int ts_c2c_measure(const ts_topology *topo, const struct ts_c2c_probes *probes, const struct ts_c2c_options *opt,
                   struct ts_c2c *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ts_topology_is_this_machine(topo))
        return ts_fail(err, TS_BAD_INPUT, "core-to-core latency: %s is not this machine, nothing of it can be measured",
                       ts_topology_label(topo));
    int status = ts_c2c_cpus(topo, out, err);
    if (status != TS_OK)
        return status;
    const size_t cells = (size_t)out->n * (size_t)out->n;
    out->ns = malloc((cells ? cells : 1) * sizeof *out->ns);
    /* The line alone on its page: with only its own 128 bytes, whatever the allocator put next
     * to it doubled the one-way latency on the Zen 5 VM (42 against 87 ns, bench/README.md). */
    size_t page = ts_memory_page_size(), line_bytes = (probes->line_bytes + page - 1) / page * page;
    void *line = aligned_alloc(page, line_bytes ? line_bytes : page);
    if (!out->ns || !line) {
        free(line);
        ts_c2c_free(out);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "core-to-core latency: its %zu cells", cells);
    }
    for (size_t i = 0; i < cells; i++)
        out->ns[i] = NAN;
    if (out->n < 2) {
        free(line);
        return TS_OK;
    }
    struct duel d = { .topo = topo, .probes = probes, .opt = opt, .line = line };
    atomic_init(&d.failed, 0);
    run_pairs(&d, out);
    free(line);
    if (d.size != 2)
        status = ts_fail(err, TS_RESOURCE_ERROR,
                         "core-to-core latency: the OpenMP runtime started %d threads instead of 2 (check OMP_DYNAMIC "
                         "and OMP_THREAD_LIMIT)",
                         d.size);
    else if (atomic_load(&d.failed))
        status = ts_fail_errno(err, TS_RESOURCE_ERROR, d.failed_errno,
                               "core-to-core latency: cannot bind a thread to CPU %d", atomic_load(&d.failed) - 1);
    if (status != TS_OK)
        ts_c2c_free(out);
    return status;
}
