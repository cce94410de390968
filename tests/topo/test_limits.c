#include "memory_internal.h"
#include "fake_tree.h"
#include "topo_test.h"
#include "ts_memory.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static struct ts_memory_limit limits[32];

/* Every limit is printed, so a failing run shows what the machine reported. */
static int show(int n)
{
    for (int i = 0; i < n; i++)
        printf("limit: %llu bytes, %s\n", (unsigned long long)limits[i].bytes, limits[i].source);
    return n;
}

static int collect(void)
{
    return show(ts_memory_limits(limits, 32));
}

static const struct ts_memory_limit *find_limit(int n, const char *source)
{
    for (int i = 0; i < n; i++)
        if (strstr(limits[i].source, source))
            return &limits[i];
    return NULL;
}

static void limits_have_memavailable(void)
{
    int n = collect();
    const struct ts_memory_limit *l = find_limit(n, "MemAvailable in /proc/meminfo");
    REQUIRE(n >= 1 && l && l->bytes > 0, "no MemAvailable among %d limits", n);
    REQUIRE(ts_memory_limits(limits, 0) == 0, "max 0 must give 0 limits");
}

static void limits_have_rlimit_as(void)
{
    struct rlimit rl;
    REQUIRE(getrlimit(RLIMIT_AS, &rl) == 0, "getrlimit: %s", strerror(errno));
    rl.rlim_cur = (rlim_t)64 << 30;
    REQUIRE(setrlimit(RLIMIT_AS, &rl) == 0, "cannot lower RLIMIT_AS: %s", strerror(errno));
    const struct ts_memory_limit *l = find_limit(collect(), "RLIMIT_AS");
    REQUIRE(l && l->bytes == (uint64_t)64 << 30, "RLIMIT_AS of 64 GiB missing or wrong (%llu)",
            l ? (unsigned long long)l->bytes : 0ULL);
}

static void limits_have_slurm(void)
{
    setenv("SLURM_MEM_PER_NODE", "4000", 1);
    setenv("SLURM_MEM_PER_CPU", "1500", 1);
    setenv("SLURM_CPUS_ON_NODE", "4", 1);
    int n = collect();
    const struct ts_memory_limit *node = find_limit(n, "SLURM_MEM_PER_NODE=4000 MB");
    const struct ts_memory_limit *cpu = find_limit(n, "SLURM_MEM_PER_CPU=1500 MB x SLURM_CPUS_ON_NODE=4");
    REQUIRE(node && node->bytes == 4000ULL << 20, "SLURM_MEM_PER_NODE=4000 not read as 4000 MiB");
    REQUIRE(cpu && cpu->bytes == 6000ULL << 20, "SLURM_MEM_PER_CPU=1500 x 4 CPUs not read as 6000 MiB");
    setenv("SLURM_MEM_PER_NODE", "4G", 1);
    REQUIRE(!find_limit(collect(), "SLURM_MEM_PER_NODE"),
            "SLURM_MEM_PER_NODE=4G is not a number of MB but was taken as one");
}

/* The limits read from a fake /proc/self/cgroup and cgroup tree (fake_tree.h), then removed. */
static int fake_limits(void)
{
    char proc[128], root[128];
    snprintf(proc, sizeof proc, "%s/proc_self_cgroup", fake);
    snprintf(root, sizeof root, "%s/sys", fake);
    int n = show(ts_memory_cgroup_limits(proc, root, limits, 32));
    fake_tree_remove();
    return n;
}

static void make_fake(void)
{
    snprintf(fake, sizeof fake, "/tmp/ts_topo_cgroup_XXXXXX");
    REQUIRE(mkdtemp(fake), "mkdtemp: %s", strerror(errno));
}

/* Slurm on cgroup v1 limits the job; the step below it and the root say "no limit". */
static void cgroup_v1_parent_limit(void)
{
    make_fake();
    fake_file("proc_self_cgroup", "5:cpuset:/slurm/job_1/step_0\n4:memory:/slurm/job_1/step_0\n0::/\n");
    fake_file("sys/memory/memory.limit_in_bytes", "9223372036854771712\n");
    fake_file("sys/memory/slurm/job_1/memory.limit_in_bytes", "1073741824\n");
    fake_file("sys/memory/slurm/job_1/memory.usage_in_bytes", "100\n");
    fake_file("sys/memory/slurm/job_1/step_0/memory.limit_in_bytes", "9223372036854771712\n");
    int n = fake_limits();
    const struct ts_memory_limit *l = find_limit(n, "memory.limit_in_bytes - memory.usage_in_bytes");
    REQUIRE(n == 1 && l, "want one cgroup v1 limit, got %d", n);
    REQUIRE(l->bytes == 1073741824 - 100, "v1 room %llu, want 1 GiB - 100", (unsigned long long)l->bytes);
    REQUIRE(strstr(l->source, "/sys/memory/slurm/job_1") && !strstr(l->source, "step_0"),
            "source \"%s\" does not name the job's cgroup", l->source);
}

static void cgroup_v2_max(void)
{
    make_fake();
    fake_file("proc_self_cgroup", "0::/user.slice/job\n");
    fake_file("sys/user.slice/job/memory.max", "max\n");
    fake_file("sys/user.slice/job/memory.current", "5\n");
    fake_file("sys/user.slice/memory.max", "2147483648\n");
    int n = fake_limits();
    const struct ts_memory_limit *l = find_limit(n, "cgroup memory.max in");
    REQUIRE(n == 1 && l, "want one cgroup v2 limit without usage, got %d", n);
    REQUIRE(l->bytes == 2147483648ULL, "v2 limit %llu, want 2 GiB", (unsigned long long)l->bytes);

    make_fake();
    fake_file("proc_self_cgroup", "0::/\n");
    fake_file("sys/memory.max", "1000\n");
    fake_file("sys/memory.current", "1500\n");
    n = fake_limits();
    l = find_limit(n, "memory.max - memory.current");
    REQUIRE(n == 1 && l && l->bytes == 0, "usage above memory.max must leave 0 bytes of room");
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "meminfo", limits_have_memavailable }, { "rlimit_as", limits_have_rlimit_as }, { "slurm", limits_have_slurm },
        { "cgroup_v1", cgroup_v1_parent_limit }, { "cgroup_v2", cgroup_v2_max },
    };
    return TS_RUN_CASES(cases);
}
