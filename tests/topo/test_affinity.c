#include "topo_test.h"
#include "ts_affinity.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

static ts_topology *topo;
static struct ts_thread_rec rows[2];

/* Samples two threads the way the solver does: start, (work), end. */
static int sample_two(void)
{
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    memset(rows, 0, sizeof rows);
    int team = 0;
    omp_set_num_threads(2);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp single
        team = omp_get_num_threads();
        if (t < 2) {
            ts_affinity_sample_start(topo, &rows[t]);
            ts_affinity_sample_end(&rows[t]);
        }
    }
    REQUIRE(team == 2, "asked for 2 threads, got %d", team);
    return team;
}

static void two_threads(void)
{
    sample_two();
    for (int t = 0; t < 2; t++) {
        struct ts_thread_rec *r = &rows[t];
        printf("thread %d: place %d {%s} mask %s cpu %d->%d core %d node %d\n", r->thread, r->place, r->place_cpus,
               r->affinity, r->cpu_start, r->cpu_end, r->core, r->node);
        REQUIRE(r->thread == t, "row %d says thread %d", t, r->thread);
        REQUIRE(r->affinity[0] && ts_list_has(r->affinity, r->cpu_start),
                "thread %d ran on CPU %d, outside its affinity mask \"%s\"", t, r->cpu_start, r->affinity);
        REQUIRE(r->core >= 0 && r->node >= 0, "thread %d on CPU %d: core %d, node %d", t, r->cpu_start, r->core,
                r->node);
        REQUIRE(r->cpu_end >= 0, "thread %d: no cpu_end", t);
        REQUIRE((r->place < 0) == (r->place_cpus[0] == '\0'), "thread %d: place %d but place CPUs \"%s\"", t, r->place,
                r->place_cpus);
    }
    REQUIRE(ts_affinity_mask_cpus() >= 1, "the main thread's mask has no CPU");
    char cpus[256];
    const char *source = NULL;
    int n = ts_affinity_available_cpus(cpus, sizeof cpus, &source);
    printf("available: %s (%d CPUs, %s)\n", cpus, n, source);
    REQUIRE(n >= 1 && source, "no CPU available to OpenMP (%d, \"%s\")", n, cpus);
    for (int t = 0; t < 2; t++)
        REQUIRE(ts_list_has(cpus, rows[t].cpu_start), "thread %d ran on CPU %d, outside the available CPUs \"%s\"", t,
                rows[t].cpu_start, cpus);
    ts_topology_destroy(topo);
}

/* Run by CTest with OMP_PLACES={0} OMP_PROC_BIND=close OMP_NUM_THREADS=2. */
static void one_place(void)
{
    sample_two();
    for (int t = 0; t < 2; t++) {
        REQUIRE(rows[t].place == 0, "thread %d: place %d, want 0 (is OMP_PLACES={0} set?)", t, rows[t].place);
        REQUIRE(strcmp(rows[t].place_cpus, "0") == 0, "thread %d: place CPUs \"%s\", want \"0\"", t,
                rows[t].place_cpus);
        REQUIRE(rows[t].cpu_start == 0, "thread %d bound to {0} ran on CPU %d", t, rows[t].cpu_start);
    }
    REQUIRE(rows[0].core == rows[1].core, "both threads on CPU 0 but cores %d and %d", rows[0].core, rows[1].core);
    struct ts_binding_facts facts = { .bound = omp_get_proc_bind() != omp_proc_bind_false,
                                      .n_threads = 2,
                                      .available_cpus = ts_affinity_mask_cpus() };
    char lines[8][512];
    int n = ts_affinity_warnings(&facts, rows, 2, lines, 8);
    int loud = 0;
    for (int i = 0; i < n; i++) {
        printf("warning: %s\n", lines[i]);
        loud |= strstr(lines[i], "ALL 2 THREADS ARE ON ONE CORE") != NULL;
    }
    REQUIRE(loud, "2 threads bound to CPU 0: no ALL-THREADS-ON-ONE-CORE warning");

    /* The initial thread is bound too, so only the places say what OpenMP may use. */
    char cpus[64];
    const char *source = NULL;
    int avail = ts_affinity_available_cpus(cpus, sizeof cpus, &source);
    REQUIRE(avail == 1 && strcmp(cpus, "0") == 0 && strcmp(source, "OpenMP places") == 0,
            "OMP_PLACES={0}: available CPUs \"%s\" (%d) from %s, want \"0\" (1) from OpenMP places", cpus, avail,
            source);
    ts_affinity_place_cpus(0, cpus, sizeof cpus);
    REQUIRE(strcmp(cpus, "0") == 0, "place 0: \"%s\", want \"0\"", cpus);
    ts_affinity_place_cpus(1, cpus, sizeof cpus);
    REQUIRE(cpus[0] == '\0', "place 1 does not exist but lists \"%s\"", cpus);
    ts_topology_destroy(topo);
}

/* Run with OMP_PLACES={0}: the runtime narrowed the main thread to CPU 0 as it loaded, but the
 * mask the process started with is its parent's (CTest's), read from /proc independently. */
static void launch_mask(void)
{
    char path[64], line[512], parent[256] = "";
    snprintf(path, sizeof path, "/proc/%d/status", (int)getppid());
    FILE *f = fopen(path, "r");
    REQUIRE(f, "cannot read %s", path);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Cpus_allowed_list: %255s", parent) == 1)
            break;
    fclose(f);
    char launch[256];
    int n = ts_affinity_launch_cpus(launch, sizeof launch);
    printf("launch mask %s (%d CPUs), parent's %s, main thread's now %d CPUs\n", launch, n, parent,
           ts_affinity_mask_cpus());
    REQUIRE(parent[0] && strcmp(launch, parent) == 0, "the launch mask is \"%s\", the parent's \"%s\"", launch, parent);
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    struct ts_binding_facts facts = { .bound = 1, .n_threads = 2 };
    ts_affinity_available(topo, NULL, &facts);
    REQUIRE(strcmp(facts.mask_list, launch) == 0 && facts.mask_cpus == n,
            "facts say the mask is \"%s\" (%d CPUs), want the launch mask \"%s\" (%d)", facts.mask_list,
            facts.mask_cpus, launch, n);
    REQUIRE(facts.available_cpus == 1 && strcmp(facts.available_list, "0") == 0,
            "OMP_PLACES={0}: the threads may use \"%s\" (%d CPUs), want \"0\"", facts.available_list,
            facts.available_cpus);
    ts_topology_destroy(topo);
}

/* The last-level caches above this process's CPUs, as the in-cache rule counts them. */
static void llc(void)
{
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    int cpus[2] = { -1, -1 }, n = 0;
    cpu_set_t set;
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0, "cannot read the mask");
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    struct ts_llc l;
    ts_affinity_llc(topo, cpus, n, &l);
    if (l.level == 0) {
        /* A virtual machine may show no cache at all (no /sys/devices/system/cpu/cpu0/cache):
         * then nothing is counted, and the rest is checked on a synthetic node of the same
         * CPUs with an L3 and an L2 per core. */
        REQUIRE(l.instances == 0 && l.bytes == 0 && l.reported_bytes == 0,
                "no cache level, yet %d caches and %lld bytes counted", l.instances, (long long)l.bytes);
        char synthetic[128];
        snprintf(synthetic, sizeof synthetic, "package:1 l3:1(size=32MiB) l2:%d(size=1MiB) core:1 pu:1",
                 CPU_COUNT(&set));
        printf("this machine reports no caches: checking on the synthetic node \"%s\"\n", synthetic);
        ts_topology_destroy(topo);
        setenv("HWLOC_SYNTHETIC", synthetic, 1);
        setenv("HWLOC_THISSYSTEM", "1", 1);
        REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "synthetic topology did not load: %s", err.message);
        ts_affinity_llc(topo, cpus, n, &l);
    }
    printf("CPUs %d,%d: L%d, %d cache(s) over %d core(s), %lld B counted of %lld reported\n", cpus[0], cpus[1], l.level,
           l.instances, l.cores, (long long)l.bytes, (long long)l.reported_bytes);
    REQUIRE(l.level >= 1 && l.instances >= 1 && l.instances <= n && l.cores >= 1,
            "no last-level cache above CPUs %d,%d (level %d, %d caches)", cpus[0], cpus[1], l.level, l.instances);
    REQUIRE(l.bytes > 0 && l.bytes <= l.reported_bytes && l.bytes <= (int64_t)l.cores * TS_LLC_MAX_BYTES_PER_CORE,
            "%lld bytes counted: want at most the %lld reported and 48 MiB per core", (long long)l.bytes,
            (long long)l.reported_bytes);
    /* The same CPU twice is one cache; unknown CPUs count nothing. */
    struct ts_llc twice, none;
    const int same[2] = { cpus[0], cpus[0] }, unknown[2] = { -1, 1 << 20 };
    ts_affinity_llc(topo, same, 2, &twice);
    REQUIRE(twice.instances == 1, "one CPU twice: %d caches", twice.instances);
    ts_affinity_llc(topo, unknown, 2, &none);
    REQUIRE(none.instances == 0 && none.bytes == 0, "unknown CPUs: %d caches, %lld bytes", none.instances,
            (long long)none.bytes);
    ts_topology_destroy(topo);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "two_threads", two_threads },
        { "one_place", one_place },
        { "launch_mask", launch_mask },
        { "llc", llc },
    };
    return TS_RUN_CASES(cases);
}
