#include "ts_conditions.h"
#include "memory_internal.h"
#include "root_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_machine.h"
#include "ts_thp.h"

#define MAX_CPUS 4096

void ts_path_under(char *buf, size_t size, const char *root, const char *rel)
{
    root = root && root[0] ? root : "/";
    size_t n = strlen(root);
    if (snprintf(buf, size, "%.*s%s", (int)(n && root[n - 1] == '/' ? n - 1 : n), root, rel) >= (int)size)
        buf[0] = '\0'; /* too long to be a real path: opens nothing */
}

/* Copies text, cut to size. */
static void copy(char *out, size_t size, const char *text)
{
    size_t n = strnlen(text, size - 1);
    memcpy(out, text, n);
    out[n] = '\0';
}

/* The first line of root + rel without its newline; -1 when unreadable or empty. */
static int first_line(const char *root, const char *rel, char *buf, size_t size)
{
    char path[4096];
    ts_path_under(path, sizeof path, root, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] ? 0 : -1;
}

/* A small whole number (a sysctl), or "unknown": "x", "" and "1 2" are not one. */
static void number_file(const char *root, const char *rel, char *out, size_t size)
{
    char line[64];
    if (first_line(root, rel, line, sizeof line) == 0 && strspn(line, "0123456789") == strlen(line)
        && strlen(line) < 10)
        copy(out, size, line);
    else
        snprintf(out, size, "unknown");
}

/* A word of [a-z0-9+_-], or "unknown". */
static void word_file(const char *root, const char *rel, char *out, size_t size)
{
    char line[64];
    if (first_line(root, rel, line, sizeof line) == 0
        && strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789+_-") == strlen(line))
        copy(out, size, line);
    else
        snprintf(out, size, "unknown");
}

static void thp(const char *root, const char *name, char *out, size_t size)
{
    char rel[128], path[4096];
    snprintf(rel, sizeof rel, "/sys/kernel/mm/transparent_hugepage/%s", name);
    ts_path_under(path, sizeof path, root, rel);
    ts_thp_mode(path, out, size);
}

/* A CPU list of digits, ',' and '-' only, as the kernel writes them. */
static int is_cpu_list(const char *s)
{
    return s[0] && strspn(s, "0123456789,-") == strlen(s);
}

/* Walks from dir up to the hierarchy's root: the first readable CPU list of file. */
static int cpuset_up(const char *root, const char *hierarchy, const char *dir, const char *file, char *out, size_t size)
{
    char d[2048], rel[4096];
    snprintf(d, sizeof d, "%s", strcmp(dir, "/") == 0 ? "" : dir);
    for (;;) {
        snprintf(rel, sizeof rel, "%s%s/%s", hierarchy, d, file);
        char line[1024];
        if (first_line(root, rel, line, sizeof line) == 0 && is_cpu_list(line)) {
            copy(out, size, line);
            return 0;
        }
        char *slash = strrchr(d, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
}

/* cgroup v1's cpuset hierarchy when /proc/self/cgroup names one, else v2's unified one. */
static void cpuset(const char *root, char *out, size_t size)
{
    char path[4096], line[2048], v1[2048] = "", v2[2048] = "";
    int have_v1 = 0, have_v2 = 0;
    ts_path_under(path, sizeof path, root, "/proc/self/cgroup");
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *controllers = strchr(line, ':');
        char *dir = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!dir)
            continue;
        *controllers++ = '\0';
        *dir++ = '\0';
        if (strcmp(line, "0") == 0 && controllers[0] == '\0') {
            snprintf(v2, sizeof v2, "%s", dir);
            have_v2 = 1;
        }
        for (char *c = strtok(controllers, ","); c; c = strtok(NULL, ","))
            if (strcmp(c, "cpuset") == 0) {
                snprintf(v1, sizeof v1, "%s", dir);
                have_v1 = 1;
            }
    }
    if (f)
        fclose(f);
    int found = have_v1
                && (cpuset_up(root, "/sys/fs/cgroup/cpuset", v1, "cpuset.effective_cpus", out, size) == 0
                    || cpuset_up(root, "/sys/fs/cgroup/cpuset", v1, "cpuset.cpus", out, size) == 0);
    if (!found && have_v2)
        found = cpuset_up(root, "/sys/fs/cgroup", v2, "cpuset.cpus.effective", out, size) == 0;
    if (!found)
        snprintf(out, size, "unknown");
}

static void memory_limit(const char *root, char *out, size_t size)
{
    char proc[4096], cg[4096];
    struct ts_memory_limit limits[4];
    ts_path_under(proc, sizeof proc, root, "/proc/self/cgroup");
    ts_path_under(cg, sizeof cg, root, "/sys/fs/cgroup");
    int n = ts_memory_cgroup_limits(proc, cg, limits, 4);
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < n; i++)
        least = limits[i].bytes < least ? limits[i].bytes : least;
    if (n > 0)
        snprintf(out, size, "%llu", (unsigned long long)(least >> 20));
    else
        snprintf(out, size, "none");
}

/* The governors and clocks of cpus: the distinct governors joined by ",", the range of MHz. */
static void cpufreq(const char *root, const int *cpus, int n, struct ts_conditions *c)
{
    size_t used = 0;
    long lo = -1, hi = -1;
    c->governor[0] = '\0';
    for (int i = 0; i < n; i++) {
        char rel[128], line[64];
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpus[i]);
        if (first_line(root, rel, line, sizeof line) == 0
            && strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(line)) {
            char *seen = strstr(c->governor, line);
            size_t len = strlen(line);
            int known = seen && (seen == c->governor || seen[-1] == ',') && (seen[len] == ',' || seen[len] == '\0');
            if (!known && used + len + 2 < sizeof c->governor)
                used += (size_t)snprintf(c->governor + used, sizeof c->governor - used, "%s%s", used ? "," : "", line);
        }
        snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpus[i]);
        if (first_line(root, rel, line, sizeof line) == 0 && strspn(line, "0123456789") == strlen(line)
            && strlen(line) < 12) {
            long mhz = (strtol(line, NULL, 10) + 500) / 1000; /* the kernel says kHz */
            lo = lo < 0 || mhz < lo ? mhz : lo;
            hi = mhz > hi ? mhz : hi;
        }
    }
    if (!c->governor[0])
        snprintf(c->governor, sizeof c->governor, "unknown");
    if (lo < 0)
        snprintf(c->cpu_mhz, sizeof c->cpu_mhz, "unknown");
    else if (lo == hi)
        snprintf(c->cpu_mhz, sizeof c->cpu_mhz, "%ld", lo);
    else
        snprintf(c->cpu_mhz, sizeof c->cpu_mhz, "%ld-%ld", lo, hi);
}

/* "Node 0 MemFree:  123456 kB" of every node directory, ascending. */
static void numa_free(const char *root, char *out, size_t size)
{
    char path[4096];
    ts_path_under(path, sizeof path, root, "/sys/devices/system/node");
    DIR *d = opendir(path);
    int nodes[1024], n = 0;
    for (struct dirent *e; d && (e = readdir(d)) && n < 1024;) {
        char *end;
        if (strncmp(e->d_name, "node", 4) != 0 || e->d_name[4] < '0' || e->d_name[4] > '9')
            continue;
        long id = strtol(e->d_name + 4, &end, 10);
        if (*end == '\0' && id < 1 << 20)
            nodes[n++] = (int)id;
    }
    if (d)
        closedir(d);
    for (int i = 1; i < n; i++) /* few nodes: insertion sort */
        for (int j = i; j > 0 && nodes[j - 1] > nodes[j]; j--) {
            int t = nodes[j];
            nodes[j] = nodes[j - 1];
            nodes[j - 1] = t;
        }
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char rel[128], line[256];
        snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/meminfo", nodes[i]);
        ts_path_under(path, sizeof path, root, rel);
        FILE *f = fopen(path, "r");
        unsigned long long kb = 0;
        int node = -1, found = 0;
        while (f && !found && fgets(line, sizeof line, f))
            found = sscanf(line, "Node %d MemFree: %llu kB", &node, &kb) == 2 && node == nodes[i];
        if (f)
            fclose(f);
        if (found && used + 32 < size)
            used += (size_t)snprintf(out + used, size - used, "%s%d:%llu", used ? " " : "", nodes[i], kb >> 10);
    }
    if (!out[0])
        snprintf(out, size, "unknown");
}

void ts_conditions_read(const char *root, const char *cpus, struct ts_conditions *c)
{
    memset(c, 0, sizeof *c);
    root = root && root[0] ? root : "/";
    number_file(root, "/proc/sys/kernel/numa_balancing", c->numa_balancing, sizeof c->numa_balancing);
    thp(root, "enabled", c->thp_enabled, sizeof c->thp_enabled);
    thp(root, "defrag", c->thp_defrag, sizeof c->thp_defrag);
    number_file(root, "/proc/sys/vm/zone_reclaim_mode", c->zone_reclaim_mode, sizeof c->zone_reclaim_mode);
    word_file(root, "/sys/devices/system/cpu/smt/control", c->smt, sizeof c->smt);
    number_file(root, "/sys/devices/system/cpu/smt/active", c->smt_active, sizeof c->smt_active);

    char path[4096];
    double load;
    ts_path_under(path, sizeof path, root, "/proc/loadavg");
    if (ts_machine_read_load(path, &load) == 0 && load >= 0 && load < 1e9)
        snprintf(c->load_average, sizeof c->load_average, "%.2f", load);
    else
        snprintf(c->load_average, sizeof c->load_average, "unknown");

    cpuset(root, c->cpuset, sizeof c->cpuset);
    memory_limit(root, c->memory_limit_mib, sizeof c->memory_limit_mib);
    numa_free(root, c->numa_free_mib, sizeof c->numa_free_mib);

    /* The CPUs whose clocks matter: those given, else the cpuset's, else every online one. */
    char online[1024];
    const char *list = cpus && cpus[0]                                                                  ? cpus
                       : strcmp(c->cpuset, "unknown") != 0                                              ? c->cpuset
                       : first_line(root, "/sys/devices/system/cpu/online", online, sizeof online) == 0 ? online
                                                                                                        : "";
    int *ids = malloc(MAX_CPUS * sizeof *ids);
    int n = ids && list[0] ? ts_machine_parse_cpus(list, ids, MAX_CPUS) : -1;
    if (n > 0)
        copy(c->cpus, sizeof c->cpus, list);
    cpufreq(root, ids, n > 0 ? n : 0, c);
    free(ids);
}

int ts_conditions_balancing(const struct ts_conditions *c)
{
    return strcmp(c->numa_balancing, "unknown") != 0 && strcmp(c->numa_balancing, "0") != 0;
}

int ts_conditions_attrs(const struct ts_conditions *c, const char *others_busy, struct ts_attr *out)
{
    static const char *const names[TS_N_CONDITIONS] = TS_CONDITION_NAMES;
    const char *values[TS_N_CONDITIONS] = {
        c->numa_balancing,
        c->thp_enabled,
        c->thp_defrag,
        c->zone_reclaim_mode,
        c->governor,
        c->cpu_mhz,
        c->smt,
        c->smt_active,
        c->load_average,
        others_busy ? others_busy : "unknown",
        c->cpuset,
        c->memory_limit_mib,
        c->numa_free_mib,
    };
    for (int i = 0; i < TS_N_CONDITIONS; i++) {
        copy(out[i].name, sizeof out[i].name, names[i]);
        copy(out[i].value, sizeof out[i].value, values[i]);
    }
    return TS_N_CONDITIONS;
}

int ts_conditions_warnings(const struct ts_conditions *c, char (*lines)[512], int max)
{
    int n = 0;
    if (n < max && strcmp(c->zone_reclaim_mode, "unknown") != 0 && strcmp(c->zone_reclaim_mode, "0") != 0)
        snprintf(lines[n++], sizeof lines[0],
                 "vm.zone_reclaim_mode is %s: the kernel reclaims a node's page cache before it allocates on "
                 "another node, so first touch stalls and placement depends on what was cached; echo 0 > "
                 "/proc/sys/vm/zone_reclaim_mode (root)",
                 c->zone_reclaim_mode);
    if (n < max && strcmp(c->governor, "unknown") != 0 && strcmp(c->governor, "performance") != 0)
        snprintf(lines[n++], sizeof lines[0],
                 "the CPU frequency governor of the run's CPUs is %s, not performance: clocks follow the load "
                 "and times vary with them (%s MHz when read); cpupower frequency-set -g performance (root)",
                 c->governor, c->cpu_mhz);
    return n;
}
