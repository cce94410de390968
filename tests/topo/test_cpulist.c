#include "topo_test.h"
#include "ts_affinity.h"

#include <sched.h>

static void format_table(void)
{
    static const struct {
        int cpus[12];
        int n;
        const char *want;
    } table[] = {
        { { 0 }, 0, "" },
        { { 0 }, 1, "0" },
        { { 0, 1 }, 2, "0-1" },
        { { 0, 1, 2, 3 }, 4, "0-3" },
        { { 0, 2, 4 }, 3, "0,2,4" },
        { { 0, 1, 2, 5, 7, 8, 9 }, 7, "0-2,5,7-9" },
        { { 3, 1500 }, 2, "3,1500" }, /* beyond a fixed cpu_set_t's 1024 CPUs */
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        cpu_set_t *set = CPU_ALLOC(2048);
        size_t size = CPU_ALLOC_SIZE(2048);
        CPU_ZERO_S(size, set);
        for (int i = 0; i < table[t].n; i++)
            CPU_SET_S((size_t)table[t].cpus[i], size, set);
        char buf[64];
        memset(buf, 'x', sizeof buf);
        ts_cpulist_format(set, size, buf, sizeof buf);
        REQUIRE(strcmp(buf, table[t].want) == 0, "case %zu: got \"%s\", want \"%s\"", t, buf, table[t].want);
        CPU_FREE(set);
    }
}

/* A list longer than its buffer must say so instead of looking complete. */
static void truncation_is_marked(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < 40; cpu += 2)
        CPU_SET(cpu, &set);
    char buf[16];
    ts_cpulist_format(&set, sizeof set, buf, sizeof buf);
    REQUIRE(strcmp(buf, "0,2,4,6,8,...") == 0, "got \"%s\", want \"0,2,4,6,8,...\"", buf);
    char tiny[1] = { 'x' };
    ts_cpulist_format(&set, sizeof set, tiny, sizeof tiny);
    REQUIRE(tiny[0] == '\0', "a 1-byte buffer did not get an empty string");
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "table", format_table },
        { "truncation", truncation_is_marked },
    };
    return TS_RUN_CASES(cases);
}
