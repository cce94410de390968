/* What else the machine did (topo/ts_machine.h): the CPU lists it watches, the /proc/stat
 * and /proc/loadavg it reads (fake files here, so each number is known), and a real interval
 * on this machine. */
#include "topo_test.h"
#include "ts_machine.h"

#include <math.h>
#include <unistd.h>

/* A temporary file holding text; the caller unlinks path. */
static void write_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "cannot create a temporary file");
    REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "cannot write %s", path);
    close(fd);
}

static void cpulist(void)
{
    int cpus[16];
    REQUIRE(ts_machine_parse_cpus("0-3,8,10-11", cpus, 16) == 7 && cpus[0] == 0 && cpus[3] == 3 && cpus[4] == 8
                && cpus[6] == 11,
            "0-3,8,10-11 is not 7 CPUs in order");
    REQUIRE(ts_machine_parse_cpus("5", cpus, 16) == 1 && cpus[0] == 5, "a single CPU");
    REQUIRE(ts_machine_parse_cpus("0-3,...", cpus, 16) == -1, "a list cut with ... is not watched half");
    REQUIRE(ts_machine_parse_cpus("3,1", cpus, 16) == -1, "a list out of order is refused");
    REQUIRE(ts_machine_parse_cpus("0-20", cpus, 16) == -1, "more CPUs than room is refused");
}

/* user nice system idle iowait irq softirq steal guest guest_nice, as Linux prints them. */
static const char stat_text[] = "cpu  100 100 100 100 100 100 100 100 0 0\n"
                                "cpu0 1 2 3 1000 5 6 7 8 9 10\n"
                                "cpu1 10 20 30 1000 50 60 70 80 90 100\n"
                                "cpu2 100 200 300 1000 500 600 700 800 0 0\n"
                                "intr 12345 0 0\n"
                                "ctxt 99\n";

static void ticks(void)
{
    char path[] = "/tmp/touchstone-stat.XXXXXX";
    write_file(path, stat_text);
    int cpus[] = { 0, 2 };
    uint64_t busy[2], steal[2];
    int rc = ts_machine_read_ticks(path, cpus, 2, busy, steal);
    /* busy = user + nice + system + irq + softirq; idle, iowait and steal are not busy. */
    REQUIRE(rc == 0 && busy[0] == 1 + 2 + 3 + 6 + 7 && busy[1] == 100 + 200 + 300 + 600 + 700, "busy ticks %llu %llu",
            (unsigned long long)busy[0], (unsigned long long)busy[1]);
    REQUIRE(steal[0] == 8 && steal[1] == 800, "steal ticks %llu %llu", (unsigned long long)steal[0],
            (unsigned long long)steal[1]);
    int missing[] = { 1, 7 };
    REQUIRE(ts_machine_read_ticks(path, missing, 2, busy, steal) == -1, "a CPU without a line is an error");
    unlink(path);
    REQUIRE(ts_machine_read_ticks(path, cpus, 2, busy, steal) == -1, "a missing file is an error");
}

static void load(void)
{
    char path[] = "/tmp/touchstone-loadavg.XXXXXX";
    write_file(path, "3.25 1.50 0.75 2/345 6789\n");
    double v = 0;
    REQUIRE(ts_machine_read_load(path, &v) == 0 && v == 3.25, "load %g, want 3.25", v);
    unlink(path);
    REQUIRE(ts_machine_read_load(path, &v) == -1, "a missing file is an error");
}

/* A real interval: a busy loop of this process shows as its own CPU time, never as others'. */
static void this_machine(void)
{
    struct ts_machine_watch w;
    REQUIRE(ts_machine_watch_start(&w) == 0, "cannot watch this machine (/proc/stat, /proc/loadavg)");
    volatile double x = 0;
    for (long i = 0; i < 20000000; i++)
        x += 1e-9 * (double)i;
    struct ts_machine_rec m;
    REQUIRE(ts_machine_watch_stop(&w, &m) == 0 && x > 0, "cannot read this machine again");
    ts_machine_watch_free(&w);
    REQUIRE(m.n_cpus >= 1 && m.online_cpus >= 1 && m.cpus[0] != '\0', "%d CPUs \"%s\"", m.n_cpus, m.cpus);
    REQUIRE(m.elapsed > 0 && m.own_cpu > 0 && m.busy >= 0 && m.steal >= 0, "elapsed %g own %g busy %g steal %g",
            m.elapsed, m.own_cpu, m.busy, m.steal);
    REQUIRE(m.others_cpu == fmax(0.0, m.busy - m.own_cpu), "others %g is not busy %g - own %g", m.others_cpu, m.busy,
            m.own_cpu);
    REQUIRE(m.clock_tick > 0 && m.clock_tick <= 1 && m.load_start >= 0 && m.load_end >= 0, "tick %g loads %g %g",
            m.clock_tick, m.load_start, m.load_end);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "cpulist", cpulist },
        { "ticks", ticks },
        { "load", load },
        { "this_machine", this_machine },
    };
    return TS_RUN_CASES(cases);
}
