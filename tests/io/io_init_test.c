/* What the machine and its memory management did during the first touch, through the real
 * writer and reader:
 *   roundtrip  /counters/init_machine and /counters/init_memory written and read back value
 *              for value; memory_stall left out without PSI and read as -1; a file without
 *              either (written before them) reads with neither */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_read.h"
#include "io_fixture.h"
#include "ts_h5_write.h"
#include "ts_run_read.h"

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

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        { "roundtrip", roundtrip },
    };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            io_dir_make(dir, sizeof dir);
            cases[i].run();
            io_dir_remove(dir);
            return ts_test_finish();
        }
    fprintf(stderr, "usage: %s roundtrip\n", argv[0]);
    return 2;
}
