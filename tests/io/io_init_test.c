/* What the machine and its memory management did during the first touch, through the real
 * writer and reader, and the one rule that judges it (common/ts_init_by_machine.h):
 *   roundtrip  /counters/init_machine and /counters/init_memory written and read back value
 *              for value; memory_stall left out without PSI and read as -1; a file without
 *              either (written before them) reads with neither
 *   rule       the rule on planted counters: each reason alone past its line and not at it,
 *              a quiet init never, a serial init not judged by the CPUs it did not need,
 *              stalls without PSI, nothing recorded
 *   paging     the kernel's page handling (/counters/init system_time): past both lines
 *              only, not at them, not with one; which threads' rows count; NaN not known
 *   summary    the init line of the summary: as before for a quiet first touch, whose time it
 *              was when the machine took most of it */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_read.h"
#include "io_fixture.h"
#include "ts_h5_write.h"
#include "ts_init_by_machine.h"
#include "ts_run_read.h"
#include "ts_summary.h"

static char dir[4096];

/* What the reader needs beyond the fixture: the config keys it reads, times whose statistics
 * are exactly those of the iterations, a complete run. */
static void readable(struct io_fixture *f)
{
    static struct ts_attr config[3];
    const char *pairs[3][2] = { { "run.kernel", "stencil2d" }, { "init.policy", "firsttouch" }, { "grid.nx", "5" } };
    for (int i = 0; i < 3; i++) {
        snprintf(config[i].name, sizeof config[i].name, "%s", pairs[i][0]);
        snprintf(config[i].value, sizeof config[i].value, "%s", pairs[i][1]);
    }
    f->rec.config = config;
    f->rec.n_config = 3;
    for (int i = 0; i < FX_ITER; i++)
        f->iteration[i] = (double)(2 + i) / 1024.0;
    f->results.time_min = 2.0 / 1024.0;
    f->results.time_median = 4.0 / 1024.0;
    f->results.time_max = (double)(2 + FX_ITER - 1) / 1024.0;
    f->rec.complete = 1;
    f->rec.steps_done = f->rec.steps_planned = FX_WARMUP + FX_ITER;
}

/* Writes f's record to dir/name and reads it back into s. */
static void write_read(struct io_fixture *f, const char *name, struct ts_run_summary *s)
{
    char path[4200];
    struct ts_error err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    REQUIRE(ts_record_write(&f->rec, path, &err) == TS_OK, "writing %s: %s", name, err.message);
    REQUIRE(ts_run_read_file(path, s, &err) == TS_OK, "reading %s back: %s", name, err.message);
}

static void roundtrip(void)
{
    struct io_fixture f;
    struct ts_run_summary s;
    io_fixture_full(&f);
    readable(&f);
    f.init_memory.compact_stall = 12;
    f.init_memory.thp_fault_fallback = 40;
    f.init_memory.allocstall = 3;
    write_read(&f, "full.h5", &s);
    const struct ts_init_memory_rec *w = &f.init_memory, *r = &s.init_memory;
    CHECK(s.has_init_memory && s.has_init_machine, "the init groups were not read");
    CHECK(r->thp_fault_alloc == w->thp_fault_alloc && r->thp_fault_fallback == 40 && r->thp_fault_fallback_charge == -1
              && r->compact_stall == 12 && r->compact_fail == w->compact_fail
              && r->compact_success == w->compact_success && r->allocstall == 3 && r->pgfault == w->pgfault
              && r->pgmajfault == w->pgmajfault,
          "the counts read back differ from those written");
    CHECK(r->elapsed == w->elapsed && r->memory_stall == w->memory_stall, "elapsed %g, memory_stall %g read back",
          r->elapsed, r->memory_stall);
    CHECK(s.init_machine.steal == f.init_machine.steal && s.init_machine.others_cpu == f.init_machine.others_cpu
              && s.init_machine.elapsed == f.init_machine.elapsed && s.init_machine.n_cpus == f.init_machine.n_cpus
              && strcmp(s.init_machine.cpus, f.init_machine.cpus) == 0,
          "/counters/init_machine read back differs");
    CHECK(s.has_machine && s.machine.elapsed == f.machine.elapsed, "/counters/machine is no longer the iterations'");
    for (int t = 0; t < FX_THREADS; t++)
        CHECK(s.init_counters && s.kernel_counters && s.init_counters[t].system_time == f.counter_rows[t].system_time
                  && s.init_counters[t].user_time == f.counter_rows[t].user_time
                  && s.kernel_counters[t].system_time == f.counter_rows[t].system_time
                  && s.init_counters[t].minor_faults == f.counter_rows[t].minor_faults,
              "thread %d: the CPU times of /counters/init and kernel read back differ", t);
    ts_run_summary_free(&s);

    /* A kernel without PSI: no memory_stall dataset, read as -1. */
    f.init_memory.memory_stall = -1;
    write_read(&f, "no_psi.h5", &s);
    char path[4200];
    snprintf(path, sizeof path, "%s/no_psi.h5", dir);
    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(h >= 0 && H5Lexists(h, "/counters/init_memory/memory_stall", H5P_DEFAULT) == 0,
          "memory_stall written without PSI");
    H5Fclose(h);
    CHECK(s.has_init_memory && s.init_memory.memory_stall == -1, "memory_stall without PSI read as %g, want -1",
          s.init_memory.memory_stall);
    ts_run_summary_free(&s);

    /* Written before them: neither group, and the file still reads. */
    f.counters.init_machine = NULL;
    f.counters.init_memory = NULL;
    write_read(&f, "before.h5", &s);
    CHECK(!s.has_init_memory && !s.has_init_machine && s.has_machine,
          "a file without the init groups read as having them");
    ts_run_summary_free(&s);
}

/* A quiet parallel init of 2 threads on 2 CPUs for 1 s, with PSI: the machine did nothing. */
static struct ts_init_facts quiet(void)
{
    return (struct ts_init_facts){ .elapsed = 1.0,
                                   .memory_stall = 0,
                                   .compact_stall = 0,
                                   .allocstall = 0,
                                   .thp_fault_fallback = 0,
                                   .n_cpus = 2,
                                   .machine_elapsed = 1.0,
                                   .steal = 0,
                                   .others_cpu = 0,
                                   .clock_tick = 0.01,
                                   .touching = 2 };
}

/* The verdict on f, and why contains want (NULL: why is empty). */
static void expect(const char *what, struct ts_init_facts f, int verdict, const char *want)
{
    char why[600];
    int got = ts_init_by_machine(&f, why, sizeof why);
    CHECK(got == verdict, "%s: verdict %d, want %d (%s)", what, got, verdict, why);
    CHECK(want ? strstr(why, want) != NULL : why[0] == '\0', "%s: why is \"%s\", want \"%s\"", what, why,
          want ? want : "");
}

static void rule(void)
{
    struct ts_init_facts f = quiet();
    expect("a quiet init", f, 0, NULL);
    /* Events the kernel measured as short do not count: PSI says how long tasks waited. */
    f.compact_stall = 5;
    f.thp_fault_fallback = 9;
    f.memory_stall = 0.5; /* at the line, not past it */
    expect("stalls for half the init", f, 0, NULL);
    f.memory_stall = 0.51;
    expect("stalls for most of the init", f, 1,
           "most of it the kernel's memory management (tasks waited on memory for 51% of it, 5 compaction stalls, "
           "9 huge-page faults fell back to 4 KiB pages), not placement");
    /* Steal: 2 ticks a CPU are rounding, then more than half the CPUs' time. */
    f = quiet();
    f.steal = 1.04;
    expect("steal of half the CPUs' time", f, 0, NULL);
    f.steal = 1.1;
    expect("steal of most of the CPUs' time", f, 1,
           "most of it the hypervisor's (steal) (steal 53% of the CPUs' time)");
    /* Other processes in a parallel init: every CPU was needed. */
    f = quiet();
    f.others_cpu = 1.2;
    expect("others in a parallel init", f, 1, "most of it other processes' (other processes 58% of the CPUs' time)");
    /* The same others in a serial init: one CPU was needed, the other could hold a second's worth. */
    f.touching = 1;
    expect("others in a serial init, on the CPU it did not need", f, 0, NULL);
    f.others_cpu = 1.6;
    expect("others in a serial init, past the spare CPU", f, 1, "other processes 56% of the CPUs' time");
    /* No PSI: stalls alone say the machine's memory management was in the way. */
    f = quiet();
    f.memory_stall = NAN;
    expect("no PSI, no stall", f, 0, NULL);
    f.allocstall = 1;
    expect("no PSI, one reclaim stall", f, 1,
           "the kernel's memory management stalled it (1 reclaim stall; how long, only /proc/pressure/memory would "
           "say), not placement alone");
    f.allocstall = NAN; /* a kernel without the counter */
    f.compact_stall = 2;
    expect("no PSI, compaction stalls", f, 1, "(2 compaction stalls;");
    /* Fallbacks alone are no stall (defrag never: the fault takes 4 KiB pages at once). */
    f.compact_stall = 0;
    f.thp_fault_fallback = 100;
    expect("no PSI, fallbacks without stalls", f, 0, NULL);
    /* The init counters of /proc/stat alone still judge steal and others. */
    f = quiet();
    f.elapsed = f.memory_stall = f.compact_stall = f.allocstall = f.thp_fault_fallback = NAN;
    expect("no vmstat", f, 0, NULL);
    f.steal = 1.5;
    expect("no vmstat, steal", f, 1, "most of it the hypervisor's");
    /* Nothing recorded: a file from before. */
    f.n_cpus = f.machine_elapsed = f.steal = f.others_cpu = f.clock_tick = NAN;
    expect("nothing recorded", f, -1, "not known");
}

/* The kernel's page handling: both halves past their lines (strictly), neither alone; a
 * missing system time is not known. */
static void paging(void)
{
    struct ts_init_facts f = quiet();
    f.touch_span = 2.0; /* 2 threads x 1 s */
    f.touch_system = 1.0;
    f.touch_bytes = 1e9;
    expect("half the init in the kernel, at the floor", f, 0, NULL);
    f.touch_system = 1.02;
    expect(
        "just past both", f, 1,
        "most of it the kernel's page handling (the touching threads spent 51% of their time in the kernel, clearing "
        "pages at 0.98 GB/s a thread), not placement");
    f.touch_bytes = 2e9;
    expect("mostly in the kernel, clearing fast", f, 0, NULL);
    f.touch_system = 0.9;
    f.touch_bytes = 0.5e9;
    expect("clearing slowly, mostly out of the kernel", f, 0, NULL);
    f.touch_system = 1.0;
    expect("clearing slowly, half in the kernel", f, 0, NULL);
    f.touch_system = 1.25;
    f.touch_bytes = 1.25e9; /* exactly 1 GB/s */
    expect("mostly in the kernel, at the floor", f, 0, NULL);
    f.touch_system = NAN; /* a file before the column */
    expect("no system time", f, 0, NULL);
    f.n_cpus = f.machine_elapsed = f.steal = f.others_cpu = f.clock_tick = NAN;
    f.elapsed = f.memory_stall = f.compact_stall = f.allocstall = f.thp_fault_fallback = NAN;
    expect("no system time, nothing else", f, -1, "not known");

    /* Which rows count: every thread in a parallel init, the first in a serial one, each rank's;
     * the span is their own CPU time, user and system. */
    struct ts_counter_row rows[4] = { { .user_time = 1, .system_time = 1 },
                                      { .user_time = 1, .system_time = 2 },
                                      { .user_time = 2, .system_time = 4 },
                                      { .user_time = 2, .system_time = 8 } };
    f = quiet();
    ts_init_touch_of(rows, 4, NULL, 0, "parallel", 1e9, &f);
    CHECK(f.touch_system == 15 && f.touch_span == 21 && f.touch_bytes == 1e9, "parallel: %g s of %g, %g bytes",
          f.touch_system, f.touch_span, f.touch_bytes);
    ts_init_touch_of(rows, 4, NULL, 0, "serial", 1e9, &f);
    CHECK(f.touch_system == 1 && f.touch_span == 2, "serial: %g s of %g", f.touch_system, f.touch_span);
    struct ts_rank_rec ranks[2] = { { .n_threads = 1, .first_thread = 0, .init = 2.0 },
                                    { .n_threads = 3, .first_thread = 1, .init = 5.0 } };
    ts_init_touch_of(rows, 4, ranks, 2, "serial", 0, &f);
    CHECK(f.touch_system == 3 && f.touch_span == 5 && isnan(f.touch_bytes), "serial ranks: %g s of %g, %g bytes",
          f.touch_system, f.touch_span, f.touch_bytes);
    ts_init_touch_of(rows, 4, ranks, 2, "parallel", 1e9, &f);
    CHECK(f.touch_system == 15 && f.touch_span == 21, "parallel ranks: %g s of %g", f.touch_system, f.touch_span);
    rows[2].system_time = NAN;
    ts_init_touch_of(rows, 4, NULL, 0, "parallel", 1e9, &f);
    CHECK(isnan(f.touch_system), "a thread's system time not known, the sum is %g", f.touch_system);
    ts_init_touch_of(NULL, 4, NULL, 0, "parallel", 1e9, &f);
    CHECK(isnan(f.touch_system) && isnan(f.touch_span), "no rows, %g s of %g", f.touch_system, f.touch_span);
}

/* The init line of f's summary (the line itself, without its newline). */
static void init_line(struct io_fixture *f, char *line, size_t size)
{
    char *text = ts_summary_text(&f->rec, "run.h5");
    const char *at = text ? strstr(text, "\n  init       ") : NULL;
    REQUIRE(at, "the summary has no init line:\n%s", text ? text : "(none)");
    snprintf(line, size, "%.*s", (int)strcspn(at + 1, "\n"), at + 1);
    free(text);
}

static void summary(void)
{
    struct io_fixture f;
    char line[1024];
    io_fixture_full(&f);
    readable(&f);
    static double partials[FX_THREADS];
    f.results.thread_partials = partials;
    f.results.init_mode = "parallel";
    f.timings.init = 3.6;
    init_line(&f, line, sizeof line);
    CHECK(strcmp(line, "  init       parallel first touch, 3.600 s") == 0, "a quiet init: \"%s\"", line);
    f.init_memory.elapsed = 3.625;
    f.init_memory.memory_stall = 3.0;
    f.init_memory.compact_stall = 57;
    f.init_memory.thp_fault_fallback = 212;
    init_line(&f, line, sizeof line);
    CHECK(strcmp(line, "  init       parallel first touch, 3.600 s: most of it the kernel's memory management (tasks "
                       "waited on memory for 83% of it, 57 compaction stalls, 212 huge-page faults fell back to 4 KiB "
                       "pages), not placement")
              == 0,
          "an init the kernel's memory management took: \"%s\"", line);
    f.counters.init_memory = NULL;
    f.counters.init_machine = NULL;
    init_line(&f, line, sizeof line);
    CHECK(strcmp(line, "  init       parallel first touch, 3.600 s") == 0, "no init counters: \"%s\"", line);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        { "roundtrip", roundtrip },
        { "rule", rule },
        { "paging", paging },
        { "summary", summary },
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            io_dir_make(dir, sizeof dir);
            cases[i].run();
            io_dir_remove(dir);
            return ts_test_finish();
        }
    fprintf(stderr, "usage: %s roundtrip|rule|paging|summary\n", argv[0]);
    return 2;
}
