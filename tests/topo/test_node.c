/* The node description the binding model and planner work on, from hwloc: a synthetic node
 * of known shape, and this machine checked against its own topology. */
#include "topo_test.h"
#include "ts_node.h"

#include <stdlib.h>

static void load_node(struct ts_node *node)
{
    ts_topology *topo;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    REQUIRE(ts_node_from_topology(topo, node, &err) == TS_OK, "no node description: %s", err.message);
    ts_topology_destroy(topo);
}

/* 2 packages x 2 NUMA nodes x 4 cores x 2 PUs, an L3 per NUMA node. */
static void synthetic_shape(void)
{
    setenv("HWLOC_SYNTHETIC", "package:2 numa:2 l3:1 core:4 pu:2", 1);
    struct ts_node node;
    load_node(&node);
    CHECK(node.n_pus == 32 && node.n_cores == 16 && node.n_packages == 2 && node.n_numa == 4 && node.n_llc == 4
              && node.smt == 2,
          "shape: %d PUs, %d cores, %d packages, %d NUMA nodes, %d LLCs, SMT %d", node.n_pus, node.n_cores,
          node.n_packages, node.n_numa, node.n_llc, node.smt);
    for (int i = 0; i < node.n_pus; i++) {
        const struct ts_node_pu *p = &node.pus[i];
        CHECK(p->core == i / 2 && p->numa == i / 8 && p->package == i / 16 && p->llc == i / 8 && p->allowed,
              "PU %d: core %d, NUMA %d, package %d, LLC %d, allowed %d", i, p->core, p->numa, p->package, p->llc,
              p->allowed);
    }
    ts_node_free(&node);
    CHECK(node.pus == NULL && node.n_pus == 0, "ts_node_free left the PUs");
}

/* Every PU of this machine with its core and NUMA node as ts_topology says. */
static void this_machine(void)
{
    struct ts_node node;
    load_node(&node);
    ts_topology *topo;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    CHECK(node.n_pus >= 1 && node.smt >= 1 && node.n_cores >= 1, "%d PUs, SMT %d", node.n_pus, node.smt);
    for (int i = 0; i < node.n_pus; i++) {
        int cpu = node.pus[i].os_index;
        CHECK(node.pus[i].core == ts_topology_core_of_cpu(topo, cpu), "CPU %d: core %d, ts_topology says %d", cpu,
              node.pus[i].core, ts_topology_core_of_cpu(topo, cpu));
    }
    ts_topology_destroy(topo);
    ts_node_free(&node);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "synthetic", synthetic_shape },
        { "this_machine", this_machine },
    };
    return TS_RUN_CASES(cases);
}
