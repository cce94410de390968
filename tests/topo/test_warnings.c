#include "topo_test.h"
#include "ts_affinity.h"

static struct ts_thread_rec row(int thread, int core, int cpu, int place, const char *place_cpus)
{
    struct ts_thread_rec r = {
        .thread = thread, .place = place, .cpu_start = cpu, .cpu_end = cpu, .core = core, .node = 0
    };
    snprintf(r.place_cpus, sizeof r.place_cpus, "%s", place_cpus);
    return r;
}

static char lines[16][512];

static int run(struct ts_binding_facts f, const struct ts_thread_rec *rows, int n)
{
    memset(lines, 0, sizeof lines);
    return ts_affinity_warnings(&f, rows, n, lines, 16);
}

/* The index of the line containing text, or -1. */
static int find(int n, const char *text)
{
    for (int i = 0; i < n; i++)
        if (strstr(lines[i], text))
            return i;
    return -1;
}

static void show(int n)
{
    for (int i = 0; i < n; i++)
        printf("warning: %s\n", lines[i]);
}

static void none_when_bound_apart(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 1, 1, 1, "1") };
    int n = run((struct ts_binding_facts){ .bound = 1, .n_threads = 2, .available_cpus = 2 }, rows, 2);
    show(n);
    REQUIRE(n == 0, "2 bound threads on 2 cores gave %d warnings", n);
}

static void binding_off(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, -1, ""), row(1, 1, 1, -1, "") };
    int n = run((struct ts_binding_facts){ .bound = 0, .n_threads = 2, .available_cpus = 2 }, rows, 2);
    show(n);
    REQUIRE(n == 1 && find(n, "binding is off") == 0,
            "unbound threads: want only the binding-off "
            "warning, got %d lines",
            n);
}

static void oversubscribed(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 1, 1, 1, "1"), row(2, 0, 0, 0, "0") };
    int n = run((struct ts_binding_facts){ .bound = 1, .n_threads = 3, .available_cpus = 2 }, rows, 3);
    show(n);
    REQUIRE(find(n, "3 threads but only 2 CPUs available") >= 0, "3 threads on 2 CPUs: no oversubscription warning");
}

static void all_on_one_core(void)
{
    struct ts_thread_rec rows[4];
    for (int i = 0; i < 4; i++)
        rows[i] = row(i, 0, 0, 0, "0");
    int n = run((struct ts_binding_facts){ .bound = 1, .n_threads = 4, .available_cpus = 4 }, rows, 4);
    show(n);
    REQUIRE(find(n, "ALL 4 THREADS ARE ON ONE CORE (core 0)") >= 0,
            "4 threads on core 0: no ALL-THREADS warning naming the count and the core");
    REQUIRE(find(n, "share core") < 0, "the ALL-THREADS case also printed a share-core line");
}

static void some_share_a_core(void)
{
    /* hwloc core 5 holds CPUs 0 and 9: the warning must name the core, not guess it. */
    struct ts_thread_rec rows[] = { row(0, 5, 0, 0, "0"), row(1, 1, 1, 1, "1"), row(2, 5, 0, 0, "0") };
    int n = run((struct ts_binding_facts){ .bound = 1, .n_threads = 3, .available_cpus = 3 }, rows, 3);
    show(n);
    REQUIRE(n == 1 && find(n, "threads 0,2 share core 5 (CPU 0): they time-slice one core") == 0,
            "threads 0 and 2 on CPU 0: want one share warning naming them and core 5");
    rows[2].cpu_start = rows[2].cpu_end = 9;
    n = run((struct ts_binding_facts){ .bound = 1, .n_threads = 3, .available_cpus = 3 }, rows, 3);
    show(n);
    REQUIRE(n == 1 && find(n, "threads 0,2 share core 5 (CPUs 0,9)") == 0 && find(n, "SMT") == 0,
            "threads 0 and 2 on SMT siblings 0 and 9: want one share warning saying SMT");
}

static void migration_only_when_possible(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 1, 1, 1, "1") };
    rows[1].cpu_end = 0;
    int n = run((struct ts_binding_facts){ .bound = 1, .n_threads = 2, .available_cpus = 2 }, rows, 2);
    REQUIRE(n == 0, "a thread bound to a one-CPU place was reported as moving");
    snprintf(rows[1].place_cpus, sizeof rows[1].place_cpus, "0-1");
    n = run((struct ts_binding_facts){ .bound = 1, .n_threads = 2, .available_cpus = 2 }, rows, 2);
    show(n);
    REQUIRE(n == 1 && find(n, "thread 1 moved from CPU 1 to CPU 0 during the run") == 0,
            "a thread in a 2-CPU place that moved: want one migration warning");
    rows[1].place = -1;
    rows[1].place_cpus[0] = '\0';
    n = run((struct ts_binding_facts){ .bound = 0, .n_threads = 2, .available_cpus = 2 }, rows, 2);
    show(n);
    REQUIRE(find(n, "thread 1 moved from CPU 1 to CPU 0") >= 0, "an unbound thread that moved: "
                                                                "no migration warning");
}

static void max_is_respected(void)
{
    struct ts_thread_rec rows[4];
    for (int i = 0; i < 4; i++) {
        rows[i] = row(i, 0, 0, -1, "");
        rows[i].cpu_end = 1;
    }
    struct ts_binding_facts f = { .bound = 0, .n_threads = 4, .available_cpus = 1 };
    char few[3][512];
    memset(few, 'x', sizeof few);
    int n = ts_affinity_warnings(&f, rows, 4, few, 2);
    REQUIRE(n == 2, "max 2 but %d warnings returned", n);
    REQUIRE(few[2][0] == 'x', "max 2 but a third line was written");
    REQUIRE(ts_affinity_warnings(&f, rows, 4, NULL, 0) == 0, "max 0 must write and count nothing");
    int all = run(f, rows, 4);
    REQUIRE(all == 7, "unbound, oversubscribed, one core, 4 moves: want 7 warnings, got %d", all);
}

/* The srun-without--c case: fewer cores than threads, though enough CPUs (SMT siblings). */
static void fewer_cores_than_threads(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 0, 1, 1, "1") };
    struct ts_binding_facts f = { .bound = 1, .n_threads = 2, .available_cpus = 2, .available_cores = 1 };
    snprintf(f.available_list, sizeof f.available_list, "0-1");
    int n = run(f, rows, 2);
    show(n);
    REQUIRE(find(n, "2 threads but the process may use only 1 core (CPUs 0-1)") >= 0, "no fewer-cores warning");
    REQUIRE(find(n, "srun -c $SLURM_CPUS_PER_TASK") >= 0, "the fewer-cores warning does not say what to change");
    f.available_cores = 2;
    n = run(f, rows, 2);
    REQUIRE(find(n, "may use only") < 0, "2 threads on 2 cores warned about cores");
}

static void places_outside_the_mask(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 1, 1, 1, "1") };
    struct ts_binding_facts f = { .bound = 1, .n_threads = 2, .available_cpus = 2, .available_cores = 2 };
    snprintf(f.available_list, sizeof f.available_list, "0-1");
    const int named[] = { 0, 1, 5, 6, 7, 1 };
    ts_affinity_outside(&f, named, 6);
    REQUIRE(strcmp(f.places_outside, "5-7") == 0, "CPUs outside 0-1 of {0,1,5,6,7}: got '%s'", f.places_outside);
    int n = run(f, rows, 2);
    show(n);
    REQUIRE(find(n, "OMP_PLACES names CPUs 5-7 that this process may not use (it may use 0-1)") >= 0,
            "no warning for places outside the mask");
    const int inside[] = { 1, 0 };
    ts_affinity_outside(&f, inside, 2);
    REQUIRE(f.places_outside[0] == '\0', "CPUs inside the mask reported outside: '%s'", f.places_outside);
}

/* A thread that computed on another node than it first-touched from, and migrations counted by perf. */
static void moved_away_from_its_pages(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 1, 2, 1, "2") };
    rows[1].node = 1;
    const int32_t init_node[] = { 0, 0 };
    const int64_t migrations[] = { 0, 3 };
    struct ts_binding_facts f = {
        .bound = 1, .n_threads = 2, .available_cpus = 4, .init_node = init_node, .migrations = migrations
    };
    int n = run(f, rows, 2);
    show(n);
    REQUIRE(find(n, "thread 1 first-touched its pages on node 0 but computed on node 1") >= 0,
            "no warning for a thread that left its pages' node");
    REQUIRE(find(n, "thread 0 first-touched") < 0, "thread 0 stayed on node 0 but was warned about");
    REQUIRE(find(n, "migrated between CPUs during the kernel (perf counter): thread 1 3 times") >= 0,
            "no warning for counted migrations");
    /* Bound already: the fix is places of one CPU, never the binding the threads have. */
    snprintf(f.proc_bind, sizeof f.proc_bind, "spread");
    snprintf(f.places, sizeof f.places, "cores");
    n = run(f, rows, 2);
    show(n);
    for (int i = 0; i < n; i++)
        REQUIRE(!strstr(lines[i], "openmp.proc_bind = close or spread"), "bound threads told to bind: %s", lines[i]);
    int at = find(n, "computed on node 1");
    REQUIRE(at >= 0 && strstr(lines[at], "bound already (OMP_PROC_BIND=spread)")
                && strstr(lines[at], "(OMP_PLACES=cores)") && strstr(lines[at], "openmp.places = threads"),
            "bound threads off their pages: no fix naming one-CPU places");
    f.bound = 0;
    n = run(f, rows, 2);
    at = find(n, "computed on node 1");
    REQUIRE(at >= 0 && strstr(lines[at], "bind threads (openmp.proc_bind = close or spread)"),
            "unbound threads off their pages: the fix must bind them");
    f.bound = 1;
    const int64_t none[] = { 0, -1 };
    f.migrations = none;
    n = run(f, rows, 2);
    REQUIRE(find(n, "migrated") < 0, "no migrations (or unknown) but a migration warning");
}

/* Facts of a process whose mask is `mask` (cpus CPUs on cores cores) and whose threads may use
 * `available` (the places' union when bound). */
static struct ts_binding_facts facts_of(int bound, int n_threads, const char *mask, int mask_cpus, int mask_cores,
                                        const char *available, int cpus, int cores)
{
    struct ts_binding_facts f = { .bound = bound,
                                  .n_threads = n_threads,
                                  .available_cpus = cpus,
                                  .available_cores = cores,
                                  .mask_cpus = mask_cpus,
                                  .mask_cores = mask_cores };
    snprintf(f.mask_list, sizeof f.mask_list, "%s", mask);
    snprintf(f.available_list, sizeof f.available_list, "%s", available);
    return f;
}

/* No line but `line` may contain text. */
static void only_in(int n, int line, const char *text, const char *what)
{
    for (int i = 0; i < n; i++)
        REQUIRE(i == line || !strstr(lines[i], text), "%s: line %d blames '%s' too: %s", what, i, text, lines[i]);
}

/* OMP_PLACES='{0}', 2 threads, a 2-CPU mask: the places are the cause, not srun or the mask. */
static void cause_places(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 0, 0, 0, "0") };
    struct ts_binding_facts f = facts_of(1, 2, "0-1", 2, 2, "0", 1, 1);
    snprintf(f.places, sizeof f.places, "{0}");
    f.under_slurm = 1;
    int n = run(f, rows, 2);
    show(n);
    int line = find(n, "2 threads but OMP_PLACES={0} gives them only 1 CPU (0) of the 2 this process may use (0-1)");
    REQUIRE(line >= 0, "places narrower than the mask: no warning naming OMP_PLACES={0} and both CPU counts");
    REQUIRE(find(n, "only 1 CPU available") < 0, "the places' one CPU was reported as all the process has");
    REQUIRE(find(n, "srun") < 0 && find(n, "SRUN_CPUS_PER_TASK") < 0 && find(n, "taskset") < 0,
            "the places are the cause, but a line blames srun or taskset");
    int all = find(n, "ALL 2 THREADS ARE ON ONE CORE (core 0)");
    REQUIRE(all >= 0 && strstr(lines[all], "OMP_PLACES={0} gives them only CPU 0 of the process's 0-1"),
            "the stacked-threads line does not name OMP_PLACES as the cause");
    /* More threads than even the mask has: both said, the places first. */
    f.n_threads = 4;
    struct ts_thread_rec four[] = { rows[0], rows[1], row(2, 0, 0, 0, "0"), row(3, 0, 0, 0, "0") };
    n = run(f, four, 4);
    show(n);
    line = find(n, "4 threads but OMP_PLACES={0} gives them only 1 CPU");
    REQUIRE(line >= 0 && strstr(lines[line], "the mask itself has fewer CPUs than threads too: use at most 2 threads"),
            "4 threads, places of 1 CPU, mask of 2: the line must name both limits");
}

/* Places on fewer cores than the mask (SMT siblings {0,4}), enough CPUs. */
static void cause_places_cores(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0,4"), row(1, 0, 4, 0, "0,4") };
    struct ts_binding_facts f = facts_of(1, 2, "0-7", 8, 4, "0,4", 2, 1);
    snprintf(f.places, sizeof f.places, "{0,4}");
    int n = run(f, rows, 2);
    show(n);
    int line = find(n, "2 threads but OMP_PLACES={0,4} covers only 1 core (CPUs 0,4) of the 4 this process may use");
    REQUIRE(line >= 0, "places on one core of four: no warning naming OMP_PLACES");
    only_in(n, -1, "srun", "places on one core");
}

/* A one-CPU mask under Slurm: srun without -c, and both ways to fix it. */
static void cause_srun(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 0, 0, 0, "0") };
    struct ts_binding_facts f = facts_of(1, 2, "0", 1, 1, "0", 1, 1);
    snprintf(f.places, sizeof f.places, "cores");
    f.under_slurm = 1;
    f.machine_cpus = 2;
    int n = run(f, rows, 2);
    show(n);
    int line = find(n, "2 threads but only 1 CPU available (the process's affinity mask: 0)");
    REQUIRE(line >= 0, "a one-CPU mask: no warning naming the mask");
    REQUIRE(strstr(lines[line], "srun -c $SLURM_CPUS_PER_TASK")
                && strstr(lines[line], "export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK"),
            "under Slurm the mask warning must name srun -c $SLURM_CPUS_PER_TASK and SRUN_CPUS_PER_TASK");
    REQUIRE(find(n, "OMP_PLACES") < 0, "the mask is the cause, but a line blames OMP_PLACES");
    int all = find(n, "ALL 2 THREADS ARE ON ONE CORE");
    REQUIRE(all >= 0 && strstr(lines[all], "only CPU 0 (its affinity mask)")
                && strstr(lines[all], "SRUN_CPUS_PER_TASK"),
            "the stacked-threads line does not name the mask and srun");
    /* Fewer cores than threads (SMT siblings only), under Slurm. */
    struct ts_binding_facts smt = facts_of(1, 2, "0,4", 2, 1, "0,4", 2, 1);
    smt.under_slurm = 1;
    smt.machine_cpus = 8;
    struct ts_thread_rec apart[] = { row(0, 0, 0, 0, "0"), row(1, 0, 4, 1, "4") };
    n = run(smt, apart, 2);
    show(n);
    line = find(n, "2 threads but the process may use only 1 core (CPUs 0,4)");
    REQUIRE(line >= 0 && strstr(lines[line], "SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK"),
            "a one-core mask under Slurm: the fewer-cores line must name SRUN_CPUS_PER_TASK");
}

/* The same one-CPU mask outside Slurm: taskset, numactl or a cgroup made it. */
static void cause_taskset(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 0, 0, 0, "0") };
    struct ts_binding_facts f = facts_of(1, 2, "0", 1, 1, "0", 1, 1);
    f.machine_cpus = 2;
    int n = run(f, rows, 2);
    show(n);
    int line = find(n, "2 threads but only 1 CPU available (the process's affinity mask: 0)");
    REQUIRE(line >= 0 && strstr(lines[line], "taskset"), "a one-CPU mask outside Slurm: the line must name taskset");
    REQUIRE(find(n, "OMP_PLACES=") < 0, "the mask is the cause, but a line blames OMP_PLACES");
}

/* The same one-CPU mask made by mpirun (its default binding of 1 or 2 ranks), in a Slurm
 * allocation too: mpirun's own option widens it, not taskset, not srun, not --bind-to none. */
static void cause_mpirun(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 0, 0, 0, "0") };
    struct ts_binding_facts f = facts_of(1, 2, "0", 1, 1, "0", 1, 1);
    f.machine_cpus = 2;
    f.under_mpirun = 1;
    f.under_slurm = 1;
    int n = run(f, rows, 2);
    show(n);
    int all = find(n, "ALL 2 THREADS ARE ON ONE CORE");
    REQUIRE(all >= 0 && strstr(lines[all], "only CPU 0 (its affinity mask)")
                && strstr(lines[all], "the mask is mpirun's binding")
                && strstr(lines[all], "mpirun --map-by slot:PE=2 --bind-to core"),
            "under mpirun the stacked-threads line must name mpirun's binding and PE=2");
    only_in(n, -1, "srun", "a mask mpirun made");
    only_in(n, -1, "taskset", "a mask mpirun made");
    only_in(n, -1, "bind-to none", "a mask mpirun made");
}

/* Every CPU of the machine and still more threads: nothing to widen. */
static void cause_machine(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 1, 1, 1, "1"), row(2, 0, 0, 0, "0") };
    struct ts_binding_facts f = facts_of(1, 3, "0-1", 2, 2, "0-1", 2, 2);
    f.machine_cpus = 2;
    f.under_slurm = 1;
    int n = run(f, rows, 3);
    show(n);
    int line = find(n, "3 threads but only 2 CPUs available (the whole machine: 0-1)");
    REQUIRE(line >= 0, "3 threads on a 2-CPU machine: no warning saying it is the whole machine");
    REQUIRE(!strstr(lines[line], "srun") && !strstr(lines[line], "taskset"),
            "the whole machine is the limit, but the line blames srun or taskset");
}

/* proc_bind primary keeps every thread in the primary thread's place. */
static void cause_primary(void)
{
    struct ts_thread_rec rows[] = { row(0, 0, 0, 0, "0"), row(1, 0, 0, 0, "0") };
    struct ts_binding_facts f = facts_of(1, 2, "0-1", 2, 2, "0-1", 2, 2);
    snprintf(f.proc_bind, sizeof f.proc_bind, "primary");
    int n = run(f, rows, 2);
    show(n);
    int all = find(n, "ALL 2 THREADS ARE ON ONE CORE");
    REQUIRE(all >= 0 && strstr(lines[all], "OMP_PROC_BIND=primary keeps every thread in the primary thread's place"),
            "threads stacked by OMP_PROC_BIND=primary: the line does not name it");
    REQUIRE(find(n, "srun") < 0, "OMP_PROC_BIND is the cause, but a line blames srun");
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "none", none_when_bound_apart },
        { "binding_off", binding_off },
        { "oversubscribed", oversubscribed },
        { "all_on_one_core", all_on_one_core },
        { "shared_core", some_share_a_core },
        { "migration", migration_only_when_possible },
        { "max", max_is_respected },
        { "fewer_cores", fewer_cores_than_threads },
        { "places_outside", places_outside_the_mask },
        { "moved_away", moved_away_from_its_pages },
        { "cause_places", cause_places },
        { "cause_places_cores", cause_places_cores },
        { "cause_srun", cause_srun },
        { "cause_taskset", cause_taskset },
        { "cause_mpirun", cause_mpirun },
        { "cause_machine", cause_machine },
        { "cause_primary", cause_primary },
    };
    return TS_RUN_CASES(cases);
}
