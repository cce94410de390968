#include "topo_test.h"
#include "ts_topology.h"

#include <dirent.h>
#include <malloc.h>
#include <unistd.h>

static ts_topology *load(void)
{
    ts_topology *topo;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    return topo;
}

/* The online CPUs from sysfs, not from hwloc, so hwloc is checked against the kernel. */
static void online_cpus(char *buf, size_t len)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    REQUIRE(f && fgets(buf, (int)len, f), "cannot read /sys/devices/system/cpu/online");
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

static void every_cpu_has_core_and_node(void)
{
    ts_topology *topo = load();
    char online[1024];
    online_cpus(online, sizeof online);
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    for (int cpu = 0; cpu < conf; cpu++) {
        if (!ts_list_has(online, cpu))
            continue;
        REQUIRE(ts_topology_core_of_cpu(topo, cpu) >= 0, "online CPU %d has no core", cpu);
        REQUIRE(ts_topology_node_of_cpu(topo, cpu) >= 0, "online CPU %d has no NUMA node", cpu);
    }
    REQUIRE(ts_topology_core_of_cpu(topo, -1) == -1, "CPU -1 should have core -1");
    REQUIRE(ts_topology_node_of_cpu(topo, 1 << 30) == -1, "a CPU that does not exist has a node");
    REQUIRE(ts_topology_numa_count(topo) >= 1, "no NUMA node at all");
    REQUIRE(ts_topology_numa_os_index(topo, 0) >= 0, "NUMA node 0 (logical) has no OS index");
    ts_topology_destroy(topo);
}

static void cache_line_is_sane(void)
{
    ts_topology *topo = load();
    const char *source = NULL;
    size_t line = ts_topology_cache_line(topo, &source);
    REQUIRE(line >= 16 && (line & (line - 1)) == 0, "cache line %zu is not a power of two >= 16", line);
    REQUIRE(source && *source, "cache line has no source");
    printf("cache line %zu bytes from %s\n", line, source);
    ts_topology_destroy(topo);
}

static int sysfs_node_count(void)
{
    DIR *d = opendir("/sys/devices/system/node");
    if (!d)
        return 1; /* a kernel without NUMA support is one node */
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9';
    closedir(d);
    return n;
}

static void record_matches_the_kernel(void)
{
    ts_topology *topo = load();
    struct ts_topology_rec rec;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_record(topo, &rec, &err) == TS_OK, "record failed: %s", err.message);
    REQUIRE(rec.n_pus == sysconf(_SC_NPROCESSORS_ONLN), "record has %d PUs, sysconf says %ld", rec.n_pus,
            sysconf(_SC_NPROCESSORS_ONLN));
    REQUIRE(rec.n_numa == sysfs_node_count(), "record has %d NUMA nodes, sysfs has %d", rec.n_numa, sysfs_node_count());
    REQUIRE(rec.n_packages >= 1 && rec.n_cores >= rec.n_packages && rec.n_pus >= rec.n_cores,
            "packages %d, cores %d, PUs %d do not nest", rec.n_packages, rec.n_cores, rec.n_pus);
    for (int i = 0; i < rec.n_numa; i++) {
        int32_t diag = rec.distances[i * rec.n_numa + i];
        REQUIRE(diag > 0, "distance of node %d to itself is %d", rec.numa[i].os_index, diag);
        for (int j = 0; j < rec.n_numa; j++) {
            int32_t d = rec.distances[i * rec.n_numa + j];
            REQUIRE(d == -1 || d >= diag, "distance row %d: entry %d (%d) is below the diagonal (%d)", i, j, d, diag);
        }
        REQUIRE(rec.numa[i].memory_bytes > 0, "node %d has no local memory", rec.numa[i].os_index);
    }
    REQUIRE(rec.n_cores_rec == rec.n_cores, "%d core rows for %d cores", rec.n_cores_rec, rec.n_cores);
    for (int i = 0; i < rec.n_cores_rec; i++)
        REQUIRE(rec.cores[i].index == i && rec.cores[i].cpus[0] != '\0', "core row %d: index %d, cpus \"%s\"", i,
                rec.cores[i].index, rec.cores[i].cpus);
    for (int i = 0; i < rec.n_caches; i++)
        REQUIRE(rec.caches[i].level >= 1 && rec.caches[i].count >= 1 && rec.caches[i].size_bytes > 0,
                "cache row %d: L%d %s, %llu bytes x %d", i, rec.caches[i].level, rec.caches[i].type,
                (unsigned long long)rec.caches[i].size_bytes, rec.caches[i].count);
    REQUIRE(rec.cache_line_bytes >= 16 && rec.cache_line_source[0], "cache line %u from \"%s\"", rec.cache_line_bytes,
            rec.cache_line_source);
    REQUIRE(strncmp(rec.hwloc_version, "2.", 2) == 0, "hwloc version \"%s\"", rec.hwloc_version);
    ts_topology_record_free(&rec);
    REQUIRE(!rec.numa && !rec.distances && !rec.cores && !rec.caches, "record_free left pointers behind");
    ts_topology_record_free(&rec); /* a second free must be harmless */
    ts_topology_destroy(topo);
}

/* A warm-up pair first, so hwloc's lazily built state is not counted as our leak. */
static void record_free_releases_everything(void)
{
    const char *tunables = getenv("GLIBC_TUNABLES");
    REQUIRE(tunables && strstr(tunables, "glibc.malloc.tcache_count=0"),
            "run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0: mallinfo2 counts cached chunks "
            "as in use");
    ts_topology *topo = load();
    struct ts_topology_rec rec;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_record(topo, &rec, &err) == TS_OK, "record failed: %s", err.message);
    ts_topology_record_free(&rec);
    size_t before = mallinfo2().uordblks;
    for (int i = 0; i < 10; i++) {
        REQUIRE(ts_topology_record(topo, &rec, &err) == TS_OK, "record failed: %s", err.message);
        ts_topology_record_free(&rec);
    }
    size_t after = mallinfo2().uordblks;
    REQUIRE(after == before, "10 record/free pairs leaked %zd bytes", (ssize_t)(after - before));
    ts_topology_destroy(topo);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "cpus", every_cpu_has_core_and_node },
        { "cache_line", cache_line_is_sane },
        { "record", record_matches_the_kernel },
        { "record_free", record_free_releases_everything },
    };
    return TS_RUN_CASES(cases);
}
