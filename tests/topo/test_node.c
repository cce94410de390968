/* The node description the binding model and planner work on, from hwloc: a synthetic node
 * of known shape, this machine checked against its own topology, and real nodes' XML exports
 * of tests/topologies (TS_TOPOLOGIES, the folder, from CMake). */
#include "topo_test.h"
#include "ts_node.h"

#include <stdlib.h>
#include <string.h>

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

/* The node of a stored XML export (or a synthetic description), labelled with its source. */
static void load_described(struct ts_node *node, enum ts_topology_kind kind, const char *text)
{
    ts_topology *topo;
    struct ts_error err = { 0 };
    const struct ts_topology_source src = { .kind = kind, .text = text };
    REQUIRE(ts_topology_load(&topo, &src, &err) == TS_OK, "%s did not load: %s", text, err.message);
    REQUIRE(!ts_topology_is_this_machine(topo), "%s: loaded as this machine", text);
    REQUIRE(ts_node_from_topology(topo, node, &err) == TS_OK, "no node description: %s", err.message);
    ts_topology_destroy(topo);
}

static int allowed_pus(const struct ts_node *node)
{
    int n = 0;
    for (int i = 0; i < node->n_pus; i++)
        n += node->pus[i].allowed;
    return n;
}

/* Dell PowerEdge R740, 2 x Xeon Gold 6230 in SNC2: 4 NUMA nodes, 40 cores, 2 PUs each
 * (lstopo-no-graphics --input FILE: 2 Package, 4 NUMANode, 40 Core, 80 PU). */
static void xml_xeon_snc(void)
{
    const char *path = TS_TOPOLOGIES "/xeon-6230-2s-snc2.xml";
    struct ts_node node;
    load_described(&node, TS_TOPOLOGY_XML, path);
    CHECK(node.n_pus == 80 && node.n_cores == 40 && node.n_packages == 2 && node.n_numa == 4 && node.smt == 2,
          "shape: %d PUs, %d cores, %d packages, %d NUMA nodes, SMT %d", node.n_pus, node.n_cores, node.n_packages,
          node.n_numa, node.smt);
    CHECK(allowed_pus(&node) == 80, "%d of 80 PUs allowed, want all", allowed_pus(&node));
    /* The kernel numbers the hyperthread siblings 40 apart: core 0 holds CPUs 0 and 40. */
    CHECK(node.pus[0].os_index == 0 && node.pus[1].os_index == 40 && node.pus[1].core == 0,
          "core 0 holds CPUs %d and %d (core %d), want 0 and 40", node.pus[0].os_index, node.pus[1].os_index,
          node.pus[1].core);
    CHECK(strcmp(node.source, path) == 0, "source '%s', want the file", node.source);
    ts_node_free(&node);
}

/* A 4-socket Opteron 6134 node (8 NUMA nodes, 32 cores) seen from a cgroup of 6 CPUs: the
 * disallowed PUs are there, marked so. */
static void xml_cgroup(void)
{
    struct ts_node node;
    load_described(&node, TS_TOPOLOGY_XML, TS_TOPOLOGIES "/opteron-4s-cgroup6.xml");
    CHECK(node.n_pus == 32 && node.n_cores == 32 && node.n_packages == 4 && node.n_numa == 8 && node.smt == 1,
          "shape: %d PUs, %d cores, %d packages, %d NUMA nodes, SMT %d", node.n_pus, node.n_cores, node.n_packages,
          node.n_numa, node.smt);
    CHECK(allowed_pus(&node) == 6, "%d PUs allowed, want the cgroup's 6", allowed_pus(&node));
    for (int i = 0; i < node.n_pus; i++)
        CHECK(node.pus[i].allowed == (node.pus[i].os_index < 6), "CPU %d: allowed %d, the cgroup holds 0-5",
              node.pus[i].os_index, node.pus[i].allowed);
    ts_node_free(&node);
}

/* A synthetic description through ts_topology_load, not the environment, labelled as such. */
static void synthetic_source(void)
{
    struct ts_node node;
    load_described(&node, TS_TOPOLOGY_SYNTHETIC, "package:2 numa:4 core:16 pu:2");
    CHECK(node.n_pus == 256 && node.n_cores == 128 && node.n_numa == 8 && node.smt == 2,
          "shape: %d PUs, %d cores, %d NUMA nodes, SMT %d", node.n_pus, node.n_cores, node.n_numa, node.smt);
    CHECK(strcmp(node.source, "synthetic: package:2 numa:4 core:16 pu:2") == 0, "source '%s'", node.source);
    ts_node_free(&node);
}

/* What cannot be loaded is refused as bad input, saying why. */
static void load_refuses(void)
{
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    const struct ts_topology_source missing = { .kind = TS_TOPOLOGY_XML, .text = TS_TOPOLOGIES "/no-such.xml" };
    CHECK(ts_topology_load(&topo, &missing, &err) == TS_BAD_INPUT && topo == NULL
              && strstr(err.message, "No such file or directory"),
          "missing file: status %d, '%s'", err.status, err.message);
    err = (struct ts_error){ 0 };
    const struct ts_topology_source not_xml = { .kind = TS_TOPOLOGY_XML, .text = TS_TOPOLOGIES "/README.md" };
    CHECK(ts_topology_load(&topo, &not_xml, &err) == TS_BAD_INPUT && topo == NULL
              && strstr(err.message, "not an hwloc XML topology"),
          "README.md as XML: status %d, '%s'", err.status, err.message);
    err = (struct ts_error){ 0 };
    const struct ts_topology_source bad = { .kind = TS_TOPOLOGY_SYNTHETIC, .text = "package:two core:2" };
    CHECK(ts_topology_load(&topo, &bad, &err) == TS_BAD_INPUT && topo == NULL && strstr(err.message, "package:two"),
          "bad synthetic: status %d, '%s'", err.status, err.message);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "synthetic", synthetic_shape }, { "this_machine", this_machine },         { "xml_xeon_snc", xml_xeon_snc },
        { "xml_cgroup", xml_cgroup },     { "synthetic_source", synthetic_source }, { "load_refuses", load_refuses },
    };
    return TS_RUN_CASES(cases);
}
