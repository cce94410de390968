/* The machine conditions that distort results (topo/ts_conditions.h), read from fake /proc and
 * /sys trees (present, absent, garbage) and from this machine's; and what the placement audits
 * count as moved between them (ts_placement_moved). */
#include "fake_tree.h"
#include "topo_test.h"
#include "ts_conditions.h"
#include "ts_placement.h"

#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static struct ts_conditions c;

static void make_fake(void)
{
    snprintf(fake, sizeof fake, "/tmp/ts_topo_conditions_XXXXXX");
    REQUIRE(mkdtemp(fake), "mkdtemp: %s", strerror(errno));
}

/* Reads the fake tree, prints what it found (a failing run shows it), removes the tree. */
static void read_fake(const char *cpus)
{
    ts_conditions_read(fake, cpus, &c);
    struct ts_attr attrs[TS_N_CONDITIONS];
    ts_conditions_attrs(&c, NULL, attrs);
    for (int i = 0; i < TS_N_CONDITIONS; i++)
        printf("%s = %s\n", attrs[i].name, attrs[i].value);
    fake_tree_remove();
}

#define EXPECT(field, want) REQUIRE(strcmp(c.field, want) == 0, #field " is \"%s\", want \"%s\"", c.field, want)

/* A two-node machine with four CPUs, everything the kernel can say. */
static void fake_machine(void)
{
    fake_file("proc/sys/kernel/numa_balancing", "1\n");
    fake_file("proc/sys/vm/zone_reclaim_mode", "0\n");
    fake_file("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
    fake_file("sys/kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n");
    fake_file("sys/devices/system/cpu/smt/control", "on\n");
    fake_file("sys/devices/system/cpu/smt/active", "1\n");
    fake_file("sys/devices/system/cpu/online", "0-3\n");
    for (int cpu = 0; cpu < 4; cpu++) {
        char rel[128];
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
        fake_file(rel, cpu == 3 ? "powersave\n" : "performance\n");
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
        fake_file(rel, cpu == 0 ? "1200000\n" : "3400000\n");
    }
    fake_file("proc/loadavg", "2.50 1.00 0.50 3/300 12345\n");
    fake_file("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 8388608 kB\nNode 0 MemFree: 2097152 kB\n");
    fake_file("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 8388608 kB\nNode 1 MemFree: 1048576 kB\n");
    fake_file("sys/devices/system/node/possible", "0-1\n");
    fake_file("proc/self/cgroup", "0::/job\n");
    fake_file("sys/fs/cgroup/job/cpuset.cpus.effective", "0-2\n");
    fake_file("sys/fs/cgroup/job/memory.max", "1073741824\n");
    fake_file("sys/fs/cgroup/job/memory.current", "0\n");
}

static void present(void)
{
    make_fake();
    fake_machine();
    read_fake(NULL);
    EXPECT(numa_balancing, "1");
    REQUIRE(ts_conditions_balancing(&c) == 1, "numa_balancing 1 must read as on");
    EXPECT(zone_reclaim_mode, "0");
    EXPECT(thp_enabled, "always");
    EXPECT(thp_defrag, "madvise");
    EXPECT(smt, "on");
    EXPECT(smt_active, "1");
    EXPECT(load_average, "2.50");
    EXPECT(cpuset, "0-2");
    EXPECT(memory_limit_mib, "1024");
    EXPECT(numa_free_mib, "0:2048 1:1024");
    /* No CPUs given: the cpuset's, so CPU 3 (powersave) is not among them. */
    EXPECT(cpus, "0-2");
    EXPECT(governor, "performance");
    EXPECT(cpu_mhz, "1200-3400");
    char lines[4][512];
    REQUIRE(ts_conditions_warnings(&c, lines, 4) == 0, "performance and no zone reclaim: nothing to warn about");
}

/* The CPUs given win over the cpuset; the governors are listed once each. */
static void given_cpus(void)
{
    make_fake();
    fake_machine();
    read_fake("1-3");
    EXPECT(cpus, "1-3");
    EXPECT(governor, "performance,powersave");
    EXPECT(cpu_mhz, "3400");
    char lines[4][512];
    int n = ts_conditions_warnings(&c, lines, 4);
    REQUIRE(n == 1 && strstr(lines[0], "governor") && strstr(lines[0], "performance,powersave")
                && strstr(lines[0], "cpupower frequency-set -g performance"),
            "a powersave CPU: want one governor warning with its fix, got %d (%s)", n, n ? lines[0] : "");
}

/* Nothing there (a VM, a container without /sys): "unknown", never an error. */
static void absent(void)
{
    make_fake();
    read_fake(NULL);
    const char *unknown[] = { c.numa_balancing, c.thp_enabled, c.thp_defrag,   c.zone_reclaim_mode,
                              c.governor,       c.cpu_mhz,     c.smt,          c.smt_active,
                              c.load_average,   c.cpuset,      c.numa_free_mib };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        REQUIRE(strcmp(unknown[i], "unknown") == 0, "condition %zu is \"%s\" in an empty tree", i, unknown[i]);
    EXPECT(memory_limit_mib, "none");
    EXPECT(cpus, "");
    REQUIRE(ts_conditions_balancing(&c) == 0, "unknown numa_balancing must not read as on");
    char lines[4][512];
    REQUIRE(ts_conditions_warnings(&c, lines, 4) == 0, "nothing known: nothing to warn about");
}

/* Files that hold something else than the kernel writes. */
static void garbage(void)
{
    make_fake();
    fake_file("proc/sys/kernel/numa_balancing", "yes please\n");
    fake_file("proc/sys/vm/zone_reclaim_mode", "\n");
    fake_file("sys/kernel/mm/transparent_hugepage/enabled", "always madvise never\n");
    fake_file("sys/devices/system/cpu/smt/control", "on; rm -rf /\n");
    fake_file("sys/devices/system/cpu/smt/active", "-1\n");
    fake_file("sys/devices/system/cpu/online", "zero to three\n");
    fake_file("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "Perf Ormance\n");
    fake_file("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "fast\n");
    fake_file("proc/loadavg", "high\n");
    fake_file("sys/devices/system/node/node0/meminfo", "Node 1 MemFree: 5 kB\n");
    fake_file("sys/devices/system/node/nodeX/meminfo", "Node 0 MemFree: 5 kB\n");
    fake_file("proc/self/cgroup", "garbage\n0::/job\n");
    fake_file("sys/fs/cgroup/job/cpuset.cpus.effective", "all of them\n");
    read_fake("0");
    const char *unknown[] = { c.numa_balancing, c.thp_enabled,  c.zone_reclaim_mode, c.governor,
                              c.cpu_mhz,        c.smt,          c.smt_active,        c.load_average,
                              c.cpuset,         c.numa_free_mib };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        REQUIRE(strcmp(unknown[i], "unknown") == 0, "condition %zu is \"%s\" from garbage", i, unknown[i]);
}

/* cgroup v1 (Slurm's usual): the cpuset hierarchy's effective_cpus, found above the step. */
static void cpuset_v1(void)
{
    make_fake();
    fake_file("proc/self/cgroup", "5:cpuset:/slurm/job_1/step_0\n4:memory:/slurm/job_1/step_0\n0::/\n");
    fake_file("sys/fs/cgroup/cpuset/slurm/job_1/cpuset.effective_cpus", "4-7,12\n");
    fake_file("sys/fs/cgroup/cpuset.cpus.effective", "0-15\n");
    read_fake(NULL);
    EXPECT(cpuset, "4-7,12");
    EXPECT(cpus, "4-7,12");
}

static void zone_reclaim(void)
{
    make_fake();
    fake_file("proc/sys/vm/zone_reclaim_mode", "1\n");
    fake_file("proc/sys/kernel/numa_balancing", "0\n");
    read_fake(NULL);
    REQUIRE(ts_conditions_balancing(&c) == 0, "numa_balancing 0 must read as off");
    char lines[4][512];
    int n = ts_conditions_warnings(&c, lines, 4);
    REQUIRE(n == 1 && strstr(lines[0], "zone_reclaim_mode is 1")
                && strstr(lines[0], "echo 0 > /proc/sys/vm/zone_reclaim_mode"),
            "zone reclaim on: want one warning with its fix, got %d (%s)", n, n ? lines[0] : "");
}

/* The attributes carry TS_CONDITION_NAMES in order; others_busy is the caller's. */
static void attrs(void)
{
    make_fake();
    fake_machine();
    read_fake(NULL);
    static const char *const names[TS_N_CONDITIONS] = TS_CONDITION_NAMES;
    struct ts_attr a[TS_N_CONDITIONS];
    REQUIRE(ts_conditions_attrs(&c, "7", a) == TS_N_CONDITIONS, "want %d attributes", TS_N_CONDITIONS);
    for (int i = 0; i < TS_N_CONDITIONS; i++)
        REQUIRE(strcmp(a[i].name, names[i]) == 0, "attribute %d is %s, want %s", i, a[i].name, names[i]);
    REQUIRE(strcmp(a[0].value, "1") == 0, "numa_balancing value %s", a[0].value);
    REQUIRE(strcmp(a[9].value, "7") == 0, "others_busy_percent value %s", a[9].value);
}

/* This machine: whatever it says is plausible, and reading it never fails. */
static void this_machine(void)
{
    ts_conditions_read(NULL, NULL, &c);
    struct ts_attr a[TS_N_CONDITIONS];
    ts_conditions_attrs(&c, NULL, a);
    for (int i = 0; i < TS_N_CONDITIONS; i++) {
        printf("%s = %s\n", a[i].name, a[i].value);
        REQUIRE(a[i].value[0] != '\0', "%s is empty", a[i].name);
    }
    REQUIRE(strcmp(c.numa_balancing, "unknown") == 0 || strspn(c.numa_balancing, "0123456789") > 0,
            "numa_balancing \"%s\"", c.numa_balancing);
    FILE *f = fopen("/proc/sys/kernel/numa_balancing", "r");
    char want[16] = "unknown";
    if (f) {
        if (fscanf(f, "%15s", want) != 1)
            snprintf(want, sizeof want, "unknown");
        fclose(f);
    }
    EXPECT(numa_balancing, want);
    REQUIRE(strcmp(c.load_average, "unknown") != 0 && atof(c.load_average) >= 0, "load average \"%s\"", c.load_average);
    if (access("/sys/devices/system/node/node0/meminfo", R_OK) == 0)
        REQUIRE(strncmp(c.numa_free_mib, "0:", 2) == 0 && atol(c.numa_free_mib + 2) > 0,
                "node 0 has free memory, not \"%s\"", c.numa_free_mib);
    if (access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", R_OK) != 0)
        EXPECT(cpu_mhz, "unknown"); /* a VM: the kernel does not say */
    else
        REQUIRE(atol(c.cpu_mhz) > 0 && atol(c.cpu_mhz) < 100000, "cpu_mhz \"%s\"", c.cpu_mhz);
}

/* Two audits of the same pages: what the later one counts beyond the earlier, per chunk and node. */
static void pages_moved(void)
{
    int32_t ids[2] = { 0, 1 };
    int64_t before_pages[4] = { 10, 0, 0, 10 }, after_pages[4] = { 7, 3, 1, 9 };
    struct ts_placement_rec before = { .page_size = 4096,
                                       .sample_stride = 1,
                                       .n_threads = 2,
                                       .n_nodes = 2,
                                       .node_ids = ids,
                                       .thread_node_pages = before_pages };
    struct ts_placement_rec after = before;
    after.thread_node_pages = after_pages;
    int64_t moved = ts_placement_moved(&before, &after);
    REQUIRE(moved == 4, "3 pages of thread 0 and 1 of thread 1 moved to the other node: got %lld", (long long)moved);
    REQUIRE(ts_placement_moved(&before, &before) == 0, "an audit compared with itself moved pages");
    after.page_size = 2 << 20;
    REQUIRE(ts_placement_moved(&before, &after) == -1, "audits in different page sizes cannot be compared");
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "present", present }, { "given_cpus", given_cpus },     { "absent", absent },
        { "garbage", garbage }, { "cpuset_v1", cpuset_v1 },       { "zone_reclaim", zone_reclaim },
        { "attrs", attrs },     { "this_machine", this_machine }, { "pages_moved", pages_moved },
    };
    return TS_RUN_CASES(cases);
}
