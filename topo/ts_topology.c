#include "ts_topology.h"
#include "topology_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ts_read.h"

/* On Linux, sysfs and /proc/cpuinfo tell hwloc everything we report (packages, cores, PUs,
 * caches, NUMA nodes, CPU model); its x86 backend would run cpuid on every PU, migrating this
 * thread to each in turn, a cost every run pays for nothing we use (bench/README.md, "Notes
 * behind the code"). Elsewhere the backend stays. */
static int skip_cpuid(hwloc_topology_t hw)
{
#if defined(__linux__) && HWLOC_API_VERSION >= 0x00020100
    return hwloc_topology_set_components(hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#else
    (void)hw;
    return 0;
#endif
}

/* hwloc XML exports of the largest nodes are a few MiB; past this a file is not one. */
#define MAX_XML_BYTES ((size_t)64 << 20)

/* The XML file's text, read through the same bounded reader as the config (a FIFO without a
 * writer or a pipe that never ends fails within TOUCHSTONE_CONFIG_TIMEOUT) and whole before
 * hwloc sees it: hwloc reports every failure to import as EINVAL, which would call a typo in the
 * path an invalid XML. */
static int read_xml(ts_topology *topo, const char *path, struct ts_error *err)
{
    const struct ts_read_limits limits = { .what = "topology", .max_bytes = MAX_XML_BYTES };
    size_t len;
    if (ts_read_file(path, &limits, &topo->xml, &len, err) != TS_OK) {
        ts_error_prefix(err, "--topology ");
        return err->status;
    }
    topo->xml_len = len + 1; /* hwloc counts the terminating NUL */
    return TS_OK;
}

/* Points hwloc at the source; for this machine, at the operating system (the default). */
static int set_source(ts_topology *topo, const struct ts_topology_source *src, struct ts_error *err)
{
    switch (src->kind) {
    case TS_TOPOLOGY_THIS_MACHINE:
        topo->this_machine = 1;
        snprintf(topo->label, sizeof topo->label, "this machine");
        return skip_cpuid(topo->hw) == 0 ? TS_OK
                                         : ts_fail_errno(err, TS_IO_ERROR, errno, "hwloc refused its components");
    case TS_TOPOLOGY_XML:
        snprintf(topo->label, sizeof topo->label, "%s", src->text);
        if (read_xml(topo, src->text, err) != TS_OK)
            return err->status;
        if (topo->xml_len > (size_t)INT_MAX
            || hwloc_topology_set_xmlbuffer(topo->hw, topo->xml, (int)topo->xml_len) != 0)
            return ts_fail_errno(err, TS_BAD_INPUT, errno,
                                 "--topology %s: not an hwloc XML topology hwloc %s can import", src->text,
                                 HWLOC_VERSION);
        return TS_OK;
    case TS_TOPOLOGY_SYNTHETIC:
        snprintf(topo->label, sizeof topo->label, "synthetic: %s", src->text);
        if (ts_synthetic_bound(src->text, err) != TS_OK)
            return err->status;
        if (hwloc_topology_set_synthetic(topo->hw, src->text) != 0)
            return ts_fail_errno(err, TS_BAD_INPUT, errno,
                                 "--synthetic '%s': hwloc cannot parse it (the form is \"package:2 numa:4 core:16 "
                                 "pu:2\": levels from the top down, each TYPE:COUNT)",
                                 src->text);
        return TS_OK;
    }
    return ts_fail(err, TS_INTERNAL_ERROR, "unknown topology source %d", (int)src->kind);
}

/* Whether this process has one thread: then nothing reads the environment while it changes
 * (setenv and getenv are not safe together; under a launcher MPI's progress threads call
 * getenv). */
static int single_threaded(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    int threads = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &threads) == 1)
            break;
    if (f)
        fclose(f);
    return threads == 1;
}

/* hwloc loads every plugin it finds when a topology is initialised: Debian's libhwloc-plugins
 * brings OpenGL (libX11 and the rest of X), OpenCL, PCI and libxml2 (with ICU), several
 * milliseconds of loading and relocating on every start for nothing touchstone reports (no I/O
 * devices; hwloc's own XML parser reads every hwloc export). They are left out unless the user
 * chose hwloc's components or plugins himself, or other threads may read the environment
 * meanwhile; libxml2 stays for --topology files, so that they import exactly as lstopo imports
 * them. hwloc reads the variable only in hwloc_topology_init. */
static int init_without_plugins(hwloc_topology_t *hw, enum ts_topology_kind kind)
{
    const char *unused = kind == TS_TOPOLOGY_XML ? "hwloc_gl,hwloc_opencl,hwloc_pci"
                                                 : "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml";
    int ours = !getenv("HWLOC_PLUGINS_BLACKLIST") && !getenv("HWLOC_COMPONENTS") && single_threaded()
               && setenv("HWLOC_PLUGINS_BLACKLIST", unused, 1) == 0;
    int rc = hwloc_topology_init(hw), e = errno;
    if (ours) /* not inherited by children nor recorded as the user's */
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    errno = e;
    return rc;
}

int ts_topology_load(ts_topology **out, const struct ts_topology_source *src, struct ts_error *err)
{
    *out = NULL;
    if (src->kind != TS_TOPOLOGY_THIS_MACHINE && (!src->text || !src->text[0]))
        return ts_fail(err, TS_BAD_INPUT, "%s needs a value",
                       src->kind == TS_TOPOLOGY_XML ? "--topology" : "--synthetic");
    ts_topology *topo = calloc(1, sizeof *topo);
    if (!topo)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot allocate the topology");
    if (init_without_plugins(&topo->hw, src->kind) != 0) {
        int e = errno;
        free(topo);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, e, "hwloc_topology_init failed");
    }
    /* Inside a Slurm allocation or a taskset the restricted view would hide the rest of the
     * machine, and the report must say what the job got compared with what exists; an XML
     * export keeps the allowed set of the job that wrote it. */
    int status = hwloc_topology_set_flags(topo->hw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) == 0
                     ? set_source(topo, src, err)
                     : ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "hwloc refused its flags");
    if (status == TS_OK && hwloc_topology_load(topo->hw) != 0) {
        int e = errno;
        if (src->kind == TS_TOPOLOGY_XML)
            status =
                ts_fail_errno(err, e == ENOMEM ? TS_RESOURCE_ERROR : TS_BAD_INPUT, e,
                              "--topology %s: not an hwloc XML topology hwloc %s can import", src->text, HWLOC_VERSION);
        else if (src->kind == TS_TOPOLOGY_SYNTHETIC)
            status = ts_fail_errno(err, e == ENOMEM ? TS_RESOURCE_ERROR : TS_BAD_INPUT, e,
                                   "--synthetic '%s': hwloc cannot build it", src->text);
        else /* hwloc reads /sys and /proc: what fails there is a read, or memory. */
            status = ts_fail_errno(err, e == ENOMEM ? TS_RESOURCE_ERROR : TS_IO_ERROR, e,
                                   "hwloc could not load this machine's topology");
    }
    free(topo->xml); /* hwloc parsed it in hwloc_topology_load */
    topo->xml = NULL;
    if (status != TS_OK) {
        hwloc_topology_destroy(topo->hw);
        free(topo);
        return status;
    }
    *out = topo;
    return TS_OK;
}

int ts_topology_create(ts_topology **out, struct ts_error *err)
{
    const struct ts_topology_source here = { .kind = TS_TOPOLOGY_THIS_MACHINE };
    return ts_topology_load(out, &here, err);
}

static ts_topology *shared_machine;

static void release_shared(void)
{
    ts_topology_destroy(shared_machine);
    shared_machine = NULL;
}

int ts_topology_shared(const ts_topology **out, struct ts_error *err)
{
    *out = NULL;
    if (!shared_machine) {
        ts_topology *topo = NULL;
        int status = ts_topology_create(&topo, err);
        if (status != TS_OK)
            return status;
        shared_machine = topo;
        atexit(release_shared);
    }
    *out = shared_machine;
    return TS_OK;
}

int ts_topology_is_this_machine(const ts_topology *topo)
{
    return topo->this_machine;
}

const char *ts_topology_label(const ts_topology *topo)
{
    return topo->label;
}

/* The weight of set, or -1 for an infinite one. */
static int weight(hwloc_const_bitmap_t set)
{
    return set ? hwloc_bitmap_weight(set) : -1;
}

void ts_topology_allowed(const ts_topology *topo, struct ts_topology_allowed *out)
{
    memset(out, 0, sizeof *out);
    hwloc_obj_t root = hwloc_get_root_obj(topo->hw);
    hwloc_const_cpuset_t cpus = hwloc_topology_get_allowed_cpuset(topo->hw);
    hwloc_const_nodeset_t nodes = hwloc_topology_get_allowed_nodeset(topo->hw);
    ts_bitmap_format(cpus, out->cpus, sizeof out->cpus);
    ts_bitmap_format(root->cpuset, out->all_cpus, sizeof out->all_cpus);
    ts_bitmap_format(nodes, out->nodes, sizeof out->nodes);
    ts_bitmap_format(root->nodeset, out->all_nodes, sizeof out->all_nodes);
    out->n_cpus = weight(cpus);
    out->n_all_cpus = weight(root->cpuset);
    out->n_nodes = weight(nodes);
    out->n_all_nodes = weight(root->nodeset);
}

void ts_topology_destroy(ts_topology *topo)
{
    if (!topo)
        return;
    hwloc_topology_destroy(topo->hw);
    free(topo);
}

static hwloc_obj_t pu_of_cpu(const ts_topology *topo, int cpu)
{
    if (cpu < 0)
        return NULL;
    return hwloc_get_pu_obj_by_os_index(topo->hw, (unsigned)cpu);
}

int ts_topology_core_of_cpu(const ts_topology *topo, int cpu)
{
    hwloc_obj_t pu = pu_of_cpu(topo, cpu);
    hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo->hw, HWLOC_OBJ_CORE, pu) : NULL;
    return core ? (int)core->logical_index : -1;
}

hwloc_obj_t ts_topology_node_of_cpuset(const ts_topology *topo, hwloc_const_cpuset_t set)
{
    /* With HBM, NVDIMM or CXL memory several nodes cover the same CPUs; the kernel's
     * default (first-touch) node is the ordinary DRAM one, which hwloc leaves without a
     * subtype (or, in newer versions, marks "DRAM"). */
    hwloc_obj_t first = NULL;
    hwloc_obj_t node = NULL;
    while ((node = hwloc_get_next_obj_covering_cpuset_by_type(topo->hw, set, HWLOC_OBJ_NUMANODE, node))) {
        if (!node->subtype || strcmp(node->subtype, "DRAM") == 0)
            return node;
        if (!first)
            first = node;
    }
    return first;
}

int ts_topology_node_of_cpu(const ts_topology *topo, int cpu)
{
    hwloc_obj_t pu = pu_of_cpu(topo, cpu);
    hwloc_obj_t node = pu ? ts_topology_node_of_cpuset(topo, pu->cpuset) : NULL;
    return node ? (int)node->os_index : -1;
}

int ts_topology_numa_count(const ts_topology *topo)
{
    return hwloc_get_nbobjs_by_type(topo->hw, HWLOC_OBJ_NUMANODE);
}

int ts_topology_numa_os_index(const ts_topology *topo, int logical)
{
    if (logical < 0)
        return -1;
    hwloc_obj_t node = hwloc_get_obj_by_type(topo->hw, HWLOC_OBJ_NUMANODE, (unsigned)logical);
    return node ? (int)node->os_index : -1;
}

size_t ts_topology_cache_line(const ts_topology *topo, const char **source)
{
    const char *unused;
    if (!source)
        source = &unused;
    for (hwloc_obj_t c = hwloc_get_next_obj_by_type(topo->hw, HWLOC_OBJ_L1CACHE, NULL); c;
         c = hwloc_get_next_obj_by_type(topo->hw, HWLOC_OBJ_L1CACHE, c)) {
        if (c->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION && c->attr->cache.linesize > 0) {
            *source = "hwloc L1d";
            return c->attr->cache.linesize;
        }
    }
    /* sysconf answers for this machine, not for a described one. */
    long line = topo->this_machine ? sysconf(_SC_LEVEL1_DCACHE_LINESIZE) : -1;
    if (line > 0) {
        *source = "sysconf(_SC_LEVEL1_DCACHE_LINESIZE)";
        return (size_t)line;
    }
    /* 128 covers adjacent-line prefetch on x86 and the 128-byte lines of POWER and Apple M. */
    *source = "default (unknown, 128 is safe)";
    return 128;
}
