/* The kernel's memory-management counters over an interval (topo/ts_vmstat.h): /proc/vmstat and
 * /proc/pressure/memory read from fake trees (a current kernel, an old one without some lines
 * and without PSI, garbage), the increase between two readings, and this machine's. */
#include "fake_tree.h"
#include "topo_test.h"
#include "ts_vmstat.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static void make_fake(void)
{
    snprintf(fake, sizeof fake, "/tmp/ts_topo_vmstat_XXXXXX");
    REQUIRE(mkdtemp(fake), "mkdtemp: %s", strerror(errno));
}

#define EXPECT_COUNT(v, k, want)                                                                                       \
    REQUIRE((v).count[k] == (want), #k " is %lld, want %lld", (long long)(v).count[k], (long long)(want))

/* Lines as Linux 6 prints them, the counters kept among others. */
static const char vmstat_now[] = "nr_free_pages 5910000\n"
                                 "pgfault 464439267\n"
                                 "pgmajfault 39462\n"
                                 "allocstall_dma 0\n"
                                 "allocstall_dma32 1\n"
                                 "allocstall_normal 20\n"
                                 "allocstall_movable 300\n"
                                 "compact_stall 7\n"
                                 "compact_fail 5\n"
                                 "compact_success 2\n"
                                 "thp_fault_alloc 82908\n"
                                 "thp_fault_fallback 11\n"
                                 "thp_fault_fallback_charge 3\n"
                                 "thp_collapse_alloc 0\n";

static void present(void)
{
    make_fake();
    fake_file("proc/vmstat", vmstat_now);
    fake_file("proc/pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=2500000\n"
                                      "full avg10=0.00 avg60=0.00 avg300=0.00 total=1000000\n");
    struct ts_vmstat v;
    REQUIRE(ts_vmstat_read(fake, &v) == 0, "a vmstat with every counter is not read");
    fake_tree_remove();
    EXPECT_COUNT(v, TS_VM_PGFAULT, 464439267);
    EXPECT_COUNT(v, TS_VM_PGMAJFAULT, 39462);
    EXPECT_COUNT(v, TS_VM_ALLOCSTALL, 321); /* every zone's line together */
    EXPECT_COUNT(v, TS_VM_COMPACT_STALL, 7);
    EXPECT_COUNT(v, TS_VM_COMPACT_FAIL, 5);
    EXPECT_COUNT(v, TS_VM_COMPACT_SUCCESS, 2);
    EXPECT_COUNT(v, TS_VM_THP_FAULT_ALLOC, 82908);
    EXPECT_COUNT(v, TS_VM_THP_FAULT_FALLBACK, 11);
    EXPECT_COUNT(v, TS_VM_THP_FAULT_FALLBACK_CHARGE, 3);
    REQUIRE(v.memory_stall == 2.5, "memory_stall %g s, want the \"some\" total 2.5 s", v.memory_stall);
}

/* Linux 4.9: one allocstall line, no fallback_charge, no PSI. */
static void old_kernel(void)
{
    make_fake();
    fake_file("proc/vmstat", "pgfault 100\npgmajfault 1\nallocstall 9\ncompact_stall 0\ncompact_fail 0\n"
                             "compact_success 0\nthp_fault_alloc 4\nthp_fault_fallback 0\n");
    struct ts_vmstat v;
    REQUIRE(ts_vmstat_read(fake, &v) == 0, "an old kernel's vmstat is not read");
    fake_tree_remove();
    EXPECT_COUNT(v, TS_VM_ALLOCSTALL, 9);
    EXPECT_COUNT(v, TS_VM_THP_FAULT_FALLBACK_CHARGE, -1);
    REQUIRE(v.memory_stall == -1, "memory_stall %g without /proc/pressure/memory, want -1", v.memory_stall);
}

/* Not a vmstat, a line cut short, names too long, negative numbers: never an error or a wrong count. */
static void garbage(void)
{
    make_fake();
    struct ts_vmstat v;
    REQUIRE(ts_vmstat_read(fake, &v) == -1, "a tree without /proc/vmstat is read");
    fake_file("proc/vmstat", "hello world\n");
    REQUIRE(ts_vmstat_read(fake, &v) == -1, "a vmstat without pgfault is taken for one");
    char text[512];
    snprintf(text, sizeof text,
             "compact_stall\npgfault 5\n%0100d 7\ncompact_fail -3\nthp_fault_alloc 12 extra\n"
             "thp_fault_fallback x\ncompact_success 4",
             0);
    fake_file("proc/vmstat", text);
    fake_file("proc/pressure/memory", "some avg10=0.00 total=abc\n");
    REQUIRE(ts_vmstat_read(fake, &v) == 0, "a vmstat with some garbage lines is not read");
    fake_tree_remove();
    EXPECT_COUNT(v, TS_VM_PGFAULT, 5);
    EXPECT_COUNT(v, TS_VM_COMPACT_FAIL, -1);
    EXPECT_COUNT(v, TS_VM_COMPACT_SUCCESS, 4); /* the last line, without a newline */
    EXPECT_COUNT(v, TS_VM_THP_FAULT_FALLBACK, -1);
    EXPECT_COUNT(v, TS_VM_THP_FAULT_ALLOC, -1); /* more than a number after the name */
    REQUIRE(v.memory_stall == -1, "a pressure total that is no number read as %g", v.memory_stall);
}

/* The increase between two readings; what either lacks is -1, a counter that went back 0. */
static void delta(void)
{
    struct ts_vmstat a, b;
    for (int k = 0; k < TS_VM_COUNTERS; k++) {
        a.count[k] = 100;
        b.count[k] = 100 + k;
    }
    a.count[TS_VM_THP_FAULT_FALLBACK_CHARGE] = -1;
    b.count[TS_VM_COMPACT_FAIL] = 50;
    a.memory_stall = 1.25;
    b.memory_stall = 3.75;
    a.wall = 10.0;
    b.wall = 13.5;
    struct ts_init_memory_rec m;
    ts_vmstat_delta(&a, &b, &m);
    REQUIRE(m.elapsed == 3.5 && m.memory_stall == 2.5, "elapsed %g, memory_stall %g: want 3.5 and 2.5", m.elapsed,
            m.memory_stall);
    REQUIRE(m.thp_fault_alloc == TS_VM_THP_FAULT_ALLOC && m.thp_fault_fallback == TS_VM_THP_FAULT_FALLBACK
                && m.compact_stall == TS_VM_COMPACT_STALL && m.compact_success == TS_VM_COMPACT_SUCCESS
                && m.allocstall == TS_VM_ALLOCSTALL && m.pgfault == TS_VM_PGFAULT && m.pgmajfault == TS_VM_PGMAJFAULT,
            "the increases are not each counter's");
    REQUIRE(m.thp_fault_fallback_charge == -1, "a counter missing before is %lld, want -1",
            (long long)m.thp_fault_fallback_charge);
    REQUIRE(m.compact_fail == 0, "a counter that went back is %lld, want 0", (long long)m.compact_fail);
    b.memory_stall = -1;
    ts_vmstat_delta(&a, &b, &m);
    REQUIRE(m.memory_stall == -1, "a stall without PSI at the end is %g, want -1", m.memory_stall);
}

/* This machine: every counter Linux has had since 4.10 is there, and touching fresh memory
 * counts page faults (machine-wide counters: at least ours). */
static void this_machine(void)
{
    struct ts_vmstat a, b;
    REQUIRE(ts_vmstat_read(NULL, &a) == 0, "cannot read this machine's /proc/vmstat");
    const size_t bytes = (size_t)64 << 20;
    volatile char *p = malloc(bytes);
    REQUIRE(p, "out of memory");
    for (size_t i = 0; i < bytes; i += 4096)
        p[i] = 1;
    REQUIRE(ts_vmstat_read("/", &b) == 0, "cannot read this machine's /proc/vmstat again");
    free((void *)p);
    struct ts_init_memory_rec m;
    ts_vmstat_delta(&a, &b, &m);
    printf("pgfault %lld, thp_fault_alloc %lld, compact_stall %lld, memory_stall %g s over %g s\n",
           (long long)m.pgfault, (long long)m.thp_fault_alloc, (long long)m.compact_stall, m.memory_stall, m.elapsed);
    REQUIRE(m.pgfault >= 1 && m.compact_stall >= 0 && m.thp_fault_alloc >= 0 && m.allocstall >= 0 && m.elapsed > 0,
            "touching 64 MiB counted no page fault, or a counter is missing");
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "present", present }, { "old_kernel", old_kernel },     { "garbage", garbage },
        { "delta", delta },     { "this_machine", this_machine },
    };
    return TS_RUN_CASES(cases);
}
