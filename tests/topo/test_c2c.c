/* The core-to-core engine's CPUs and their domains (topo/ts_c2c.h) on a described machine whose
 * shape is known: every PU listed once in hwloc's order, SMT siblings sharing a core, a core
 * complex's cores an L3, and nodes and packages where the description puts them; and a
 * described machine refused for measurement, as the loaded-latency engine refuses it. */
#include "topo_test.h"
#include "ts_c2c.h"
#include "ts_loaded_latency.h"

#include <string.h>

/* 2 packages x 2 nodes x 2 L3 x 2 cores x 2 PUs: 32 PUs. */
#define SHAPE "package:2 numa:2 l3:2 core:2 pu:2"

static ts_topology *described(void)
{
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    struct ts_topology_source src = { TS_TOPOLOGY_SYNTHETIC, SHAPE };
    REQUIRE(ts_topology_load(&topo, &src, &err) == TS_OK, "synthetic topology: %s", err.message);
    return topo;
}

static void domains(void)
{
    ts_topology *topo = described();
    struct ts_c2c c;
    struct ts_error err = { 0 };
    REQUIRE(ts_c2c_cpus(topo, &c, &err) == TS_OK, "%s", err.message);
    CHECK(c.n == 32 && c.pairs == 32 * 31 / 2, "%d CPUs, %lld pairs", c.n, (long long)c.pairs);
    CHECK(c.llc_level == 3, "the LLC is L%d, not L3", c.llc_level);
    CHECK(c.ns == NULL, "ts_c2c_cpus measured something");
    for (int i = 0; i < c.n; i++) {
        const struct ts_c2c_cpu *p = &c.cpus[i];
        /* In hwloc's logical order PU i sits in core i/2, L3 i/4, node i/8, package i/16. */
        CHECK(p->core == i / 2 && p->llc == i / 4 && p->package == i / 16, "PU %d (CPU %d): core %d, L3 %d, package %d",
              i, p->cpu, p->core, p->llc, p->package);
        CHECK(p->node >= 0 && (i == 0 || (p->node == c.cpus[i - 1].node) == (i % 8 != 0)), "PU %d: node %d after %d", i,
              p->node, i ? c.cpus[i - 1].node : -1);
        for (int j = 0; j < i; j++)
            CHECK(c.cpus[j].cpu != p->cpu, "CPU %d listed twice", p->cpu);
    }
    ts_c2c_free(&c);
    ts_topology_destroy(topo);
}

static void described_refused(void)
{
    ts_topology *topo = described();
    struct ts_error err = { 0 };
    const struct ts_c2c_probes probes = { 0 };
    const struct ts_c2c_options opt = { 0 };
    struct ts_c2c c;
    CHECK(ts_c2c_measure(topo, &probes, &opt, &c, &err) == TS_BAD_INPUT && strstr(err.message, "not this machine"),
          "a synthetic topology's pairs were measured: %s", err.message);
    const struct ts_loaded_probes lp = { 0 };
    const struct ts_loaded_options lo = { 0 };
    struct ts_loaded_curve curve;
    CHECK(ts_loaded_latency_measure(topo, &lp, 0, 0, &lo, &curve, &err) == TS_BAD_INPUT
              && strstr(err.message, "not this machine"),
          "a synthetic topology's loaded latency was measured: %s", err.message);
    ts_topology_destroy(topo);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "domains", domains },
        { "described_refused", described_refused },
    };
    return TS_RUN_CASES(cases);
}
