#include "ts_memory.h"
#include "memory_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* cgroup v1 writes "no limit" as a huge page-rounded number (9223372036854771712). */
#define NO_LIMIT_ABOVE (UINT64_C(1) << 60)
#define MIB (UINT64_C(1) << 20)

struct sink {
    struct ts_memory_limit *out;
    int max, n;
};

static void __attribute__((format(printf, 3, 4))) add(struct sink *s, uint64_t bytes, const char *fmt, ...)
{
    if (s->n >= s->max)
        return;
    struct ts_memory_limit *l = &s->out[s->n++];
    l->bytes = bytes;
    l->per_process = 0;
    l->counts = TS_LIMIT_COUNTS_MEMORY;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->source, sizeof l->source, fmt, ap);
    va_end(ap);
}

/* A whole string of digits, nothing else: "max", "", "12k" are not numbers here. */
static int parse_u64(const char *text, uint64_t *v)
{
    char *end;
    if (!text || *text < '0' || *text > '9')
        return -1;
    unsigned long long x = strtoull(text, &end, 10);
    while (*end == '\n' || *end == ' ')
        end++;
    if (*end)
        return -1;
    *v = x;
    return 0;
}

static int read_u64(const char *path, uint64_t *v)
{
    char line[64];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    return ok ? parse_u64(line, v) : -1;
}

static void meminfo(struct sink *s)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return;
    char line[256];
    unsigned long long kb;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            add(s, (uint64_t)kb * 1024, "MemAvailable in /proc/meminfo");
            break;
        }
    fclose(f);
}

/* Walks from our cgroup up to the root, because a parent's limit (Slurm's job level above
 * the step) binds the child as much as its own. */
static void cgroup_room(struct sink *s, const char *root, const char *path, const char *limit_file,
                        const char *usage_file)
{
    char dir[4096], file[4200], best_dir[4096];
    uint64_t best = UINT64_MAX;
    int have_usage = 0;
    snprintf(dir, sizeof dir, "%s", path);
    for (;;) {
        uint64_t limit, usage;
        snprintf(file, sizeof file, "%s%s/%s", root, dir, limit_file);
        if (read_u64(file, &limit) == 0 && limit < NO_LIMIT_ABOVE) {
            snprintf(file, sizeof file, "%s%s/%s", root, dir, usage_file);
            int known = read_u64(file, &usage) == 0;
            uint64_t room = !known ? limit : usage < limit ? limit - usage : 0;
            if (room < best) {
                best = room;
                have_usage = known;
                snprintf(best_dir, sizeof best_dir, "%s%s", root, dir);
            }
        }
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
    if (best == UINT64_MAX)
        return;
    if (have_usage)
        add(s, best, "cgroup %s - %s in %s", limit_file, usage_file, best_dir);
    else
        add(s, best, "cgroup %s in %s", limit_file, best_dir);
}

static int has_memory_controller(const char *controllers)
{
    size_t n = strlen("memory");
    for (const char *c = controllers; (c = strstr(c, "memory")); c += n)
        if ((c == controllers || c[-1] == ',') && (c[n] == ',' || c[n] == '\0'))
            return 1;
    return 0;
}

int ts_memory_cgroup_limits(const char *proc_self_cgroup, const char *cgroup_root, struct ts_memory_limit *out, int max)
{
    struct sink s = { out, max, 0 };
    FILE *f = fopen(proc_self_cgroup, "r");
    if (!f)
        return 0;
    char line[4096], v1_root[4096];
    snprintf(v1_root, sizeof v1_root, "%s/memory", cgroup_root);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *controllers = strchr(line, ':');
        char *path = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!path)
            continue;
        *controllers++ = '\0';
        *path++ = '\0';
        /* "/" is the root; the walk wants "" so that root + path + "/file" stays one slash. */
        const char *rel = strcmp(path, "/") == 0 ? "" : path;
        if (strcmp(line, "0") == 0 && controllers[0] == '\0')
            cgroup_room(&s, cgroup_root, rel, "memory.max", "memory.current");
        else if (has_memory_controller(controllers))
            cgroup_room(&s, v1_root, rel, "memory.limit_in_bytes", "memory.usage_in_bytes");
    }
    fclose(f);
    return s.n;
}

static void rlimit(struct sink *s, int resource, const char *name, enum ts_limit_counts counts)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && s->n < s->max) {
        add(s, (uint64_t)rl.rlim_cur, "%s", name);
        s->out[s->n - 1].per_process = 1;
        s->out[s->n - 1].counts = counts;
    }
}

static int env_u64(const char *name, uint64_t *v)
{
    return parse_u64(getenv(name), v);
}

/* Slurm's MB are MiB. */
static void slurm(struct sink *s)
{
    uint64_t mb, cpus;
    if (env_u64("SLURM_MEM_PER_NODE", &mb) == 0 && mb > 0 && mb <= UINT64_MAX / MIB)
        add(s, mb * MIB, "SLURM_MEM_PER_NODE=%llu MB", (unsigned long long)mb);
    if (env_u64("SLURM_MEM_PER_CPU", &mb) == 0 && env_u64("SLURM_CPUS_ON_NODE", &cpus) == 0 && mb > 0 && cpus > 0
        && mb <= UINT64_MAX / MIB / cpus)
        add(s, mb * MIB * cpus, "SLURM_MEM_PER_CPU=%llu MB x SLURM_CPUS_ON_NODE=%llu", (unsigned long long)mb,
            (unsigned long long)cpus);
}

int ts_memory_limits(struct ts_memory_limit *out, int max)
{
    struct sink s = { out, max, 0 };
    meminfo(&s);
    if (s.n < max)
        s.n += ts_memory_cgroup_limits("/proc/self/cgroup", "/sys/fs/cgroup", out + s.n, max - s.n);
    rlimit(&s, RLIMIT_AS, "RLIMIT_AS (ulimit -v)", TS_LIMIT_COUNTS_ADDRESS_SPACE);
    rlimit(&s, RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)", TS_LIMIT_COUNTS_DATA);
    slurm(&s);
    return s.n;
}

/* Set and not a whole number: the variable's name, for the refusal. */
static const char *unreadable(const char *name)
{
    uint64_t v;
    const char *text = getenv(name);
    return text && env_u64(name, &v) != 0 ? name : NULL;
}

int ts_memory_limits_check(struct ts_error *err)
{
    const char *bad = unreadable("SLURM_MEM_PER_NODE");
    if (!bad)
        bad = unreadable("SLURM_MEM_PER_CPU");
    if (!bad && getenv("SLURM_MEM_PER_CPU"))
        bad = unreadable("SLURM_CPUS_ON_NODE");
    if (!bad)
        return TS_OK;
    char shown[64];
    size_t n = 0;
    for (const char *p = getenv(bad); *p && n + 1 < sizeof shown; p++)
        shown[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
    shown[n] = '\0';
    return ts_fail(err, TS_BAD_INPUT,
                   "%s='%s' is not a whole number, as Slurm writes it: the memory limit it sets cannot be "
                   "kept; unset it or give the number",
                   bad, shown);
}

int ts_memory_process_now(uint64_t *address_space, uint64_t *data)
{
    *address_space = *data = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    unsigned long long kb;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1) {
            *address_space = (uint64_t)kb * 1024;
            found |= 1;
        } else if (sscanf(line, "VmData: %llu kB", &kb) == 1) {
            *data = (uint64_t)kb * 1024;
            found |= 2;
        }
    }
    fclose(f);
    return found == 3 ? 0 : -1;
}
