/* OMP_PLACES as libgomp 12 reads it (libgomp/env.c parse_places_var and parse_one_place,
 * config/linux/affinity.c for the abstract names), on a struct ts_node instead of /sys. Where
 * libgomp departs from the OpenMP specification, this file follows libgomp and says so; the
 * list is in docs/binding-model.md. */
#include "ts_omp_model.h"

#include <ctype.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* libgomp refuses more places than this, and place intervals of this length or more. */
#define MAX_PLACES 65536L
#define NUMBER_CAP (1L << 40)

struct parser {
    const char *s;
    size_t pos;
    struct ts_omp_places *out; /* NULL: check the syntax only */
    uint64_t *scratch;         /* the place being parsed */
    int cap;                   /* places allocated in out->sets */
    struct ts_error *err;
};

static int syntax(struct parser *ps, const char *expected)
{
    return ts_fail(ps->err, TS_BAD_INPUT, "OMP_PLACES '%s': at character %zu: expected %s", ps->s, ps->pos + 1,
                   expected);
}

static int content(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int content(struct parser *ps, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ts_fail(ps->err, TS_BAD_INPUT, "OMP_PLACES '%s': at character %zu: %s", ps->s, ps->pos + 1, what);
}

static void skip_ws(struct parser *ps)
{
    while (isspace((unsigned char)ps->s[ps->pos]))
        ps->pos++;
}

/* A number as strtoul/strtol read it in libgomp: leading white space, then digits (a sign only
 * where signed, for strides). Values past 2^40 are kept at 2^40: out of range for any CPU or
 * count either way, and sums of two of them cannot overflow. */
static int number(struct parser *ps, long *v, int is_signed, const char *what)
{
    skip_ws(ps);
    int neg = 0;
    if (is_signed && (ps->s[ps->pos] == '-' || ps->s[ps->pos] == '+'))
        neg = ps->s[ps->pos++] == '-';
    else if (ps->s[ps->pos] == '+')
        ps->pos++;
    if (!isdigit((unsigned char)ps->s[ps->pos]))
        return syntax(ps, what);
    long x = 0;
    while (isdigit((unsigned char)ps->s[ps->pos])) {
        int d = ps->s[ps->pos++] - '0';
        x = x > (NUMBER_CAP - d) / 10 ? NUMBER_CAP : x * 10 + d;
    }
    *v = neg ? -x : x;
    return TS_OK;
}

static int bit_get(const uint64_t *set, int cpu)
{
    return (int)((set[cpu / 64] >> (cpu % 64)) & 1U);
}

static void bit_set(uint64_t *set, int cpu)
{
    set[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

static void bit_clear(uint64_t *set, int cpu)
{
    set[cpu / 64] &= ~((uint64_t)1 << (cpu % 64));
}

static uint64_t *place_at(struct ts_omp_places *p, int i)
{
    return p->sets + (size_t)i * (size_t)p->words;
}

/* Room for one more place in out; TS_RESOURCE_ERROR when memory runs out. */
static int grow(struct parser *ps, int more)
{
    struct ts_omp_places *p = ps->out;
    if (p->n + more <= ps->cap)
        return TS_OK;
    int cap = ps->cap ? ps->cap : 16;
    while (cap < p->n + more)
        cap *= 2;
    uint64_t *sets = realloc(p->sets, (size_t)cap * (size_t)p->words * sizeof *sets);
    if (!sets)
        return ts_fail(ps->err, TS_RESOURCE_ERROR, "no memory for %d places", cap);
    p->sets = sets;
    ps->cap = cap;
    return TS_OK;
}

/* CPUs num, num + stride, ... (len of them) into set. libgomp checks each against the size of
 * its CPU mask, which covers the highest CPU the process may use rounded up to 64. */
static int add_cpus(struct parser *ps, uint64_t *set, long num, long len, long stride)
{
    if (stride == 0) /* the same CPU len times */
        len = 1;
    for (long k = 0; k < len; k++) {
        if (num < 0 || num >= ps->out->cpu_limit)
            return content(ps, "CPU number %ld out of range (libgomp's CPU mask ends at %d)", num, ps->out->cpu_limit);
        bit_set(set, (int)num);
        num += stride;
    }
    return TS_OK;
}

/* One item of a place: [!]num[:len[:stride]]; "!" takes a CPU out after every CPU of the place
 * is in (libgomp's second pass), so removals are collected in removed. */
static int place_item(struct parser *ps, long *removed, int *n_removed)
{
    int negate = ps->s[ps->pos] == '!';
    if (negate) {
        ps->pos++;
        skip_ws(ps);
    }
    long num, len = 1, stride = 1;
    int rc = number(ps, &num, 0, "a CPU number");
    if (rc)
        return rc;
    skip_ws(ps);
    if (ps->s[ps->pos] == ':') {
        ps->pos++;
        if (negate)
            return syntax(ps, "no length after an excluded CPU ('!N' takes out one CPU)");
        if ((rc = number(ps, &len, 0, "a length")))
            return rc;
        if (len == 0)
            return syntax(ps, "a length of at least 1");
        skip_ws(ps);
        if (ps->s[ps->pos] == ':') {
            ps->pos++;
            if ((rc = number(ps, &stride, 1, "a stride")))
                return rc;
            skip_ws(ps);
        }
    }
    if (!ps->out)
        return TS_OK;
    if (negate) {
        removed[(*n_removed)++] = num;
        return TS_OK;
    }
    return add_cpus(ps, ps->scratch, num, len, stride);
}

/* One place of the list with its interval: [!]{items}[:count[:stride]] or [!]num[:count[:stride]].
 * The place's CPUs are left in ps->scratch. */
static int one_place(struct parser *ps, int *negate, long *count, long *stride)
{
    skip_ws(ps);
    *negate = ps->s[ps->pos] == '!';
    if (*negate) {
        ps->pos++;
        skip_ws(ps);
    }
    if (ps->out)
        memset(ps->scratch, 0, (size_t)ps->out->words * sizeof *ps->scratch);
    int rc;
    if (ps->s[ps->pos] != '{') {
        /* libgomp 12 takes a bare CPU number as a place of one CPU */
        long num;
        if ((rc = number(ps, &num, 0, "'{' or a CPU number")))
            return rc;
        if (ps->out && (rc = add_cpus(ps, ps->scratch, num, 1, 1)))
            return rc;
    } else {
        ps->pos++;
        skip_ws(ps);
        size_t items = 1;
        for (const char *c = ps->s + ps->pos; *c && *c != '}'; c++)
            items += *c == ',';
        long *removed = malloc(items * sizeof *removed);
        if (!removed)
            return ts_fail(ps->err, TS_RESOURCE_ERROR, "no memory to parse OMP_PLACES");
        int n_removed = 0;
        for (;;) {
            if ((rc = place_item(ps, removed, &n_removed)))
                break;
            if (ps->s[ps->pos] == '}')
                break;
            if (ps->s[ps->pos] != ',') {
                rc = syntax(ps, "',' or '}'");
                break;
            }
            ps->pos++;
        }
        for (int i = 0; rc == TS_OK && i < n_removed; i++) {
            if (removed[i] >= ps->out->cpu_limit)
                rc = content(ps, "CPU number %ld out of range (libgomp's CPU mask ends at %d)", removed[i],
                             ps->out->cpu_limit);
            else if (!bit_get(ps->scratch, (int)removed[i]))
                rc = content(ps, "CPU %ld to be removed is not in the place", removed[i]);
            else
                bit_clear(ps->scratch, (int)removed[i]);
        }
        free(removed);
        if (rc)
            return rc;
        ps->pos++; /* the '}' */
    }
    skip_ws(ps);
    *count = 1;
    *stride = 1;
    if (ps->s[ps->pos] == ':') {
        if (*negate)
            return syntax(ps, "no interval after an excluded place ('!{...}' takes out one place)");
        ps->pos++;
        if ((rc = number(ps, count, 0, "a number of places")))
            return rc;
        if (*count == 0 || *count >= MAX_PLACES)
            return content(ps, "a number of places from 1 to %ld, not %ld", MAX_PLACES - 1, *count);
        skip_ws(ps);
        if (ps->s[ps->pos] == ':') {
            ps->pos++;
            if ((rc = number(ps, stride, 1, "a stride")))
                return rc;
            skip_ws(ps);
        }
    }
    return TS_OK;
}

/* The explicit list, once to check the syntax (ps->out NULL), once to build it, as libgomp. */
static int explicit_list(struct parser *ps)
{
    long total = 0;
    int any_negate = 0, rc;
    for (;;) {
        int negate;
        long count, stride;
        if ((rc = one_place(ps, &negate, &count, &stride)))
            return rc;
        if (negate) {
            total += !any_negate;
            any_negate = 1;
        } else {
            total += count;
        }
        if (total > MAX_PLACES)
            return content(ps, "at most %ld places", MAX_PLACES);
        if (ps->out) {
            struct ts_omp_places *p = ps->out;
            if (negate) {
                int i = 0;
                while (i < p->n && memcmp(place_at(p, i), ps->scratch, (size_t)p->words * sizeof(uint64_t)) != 0)
                    i++;
                if (i == p->n)
                    return content(ps, "the place to remove is not in the list so far");
                memmove(place_at(p, i), place_at(p, i + 1),
                        (size_t)(p->n - i - 1) * (size_t)p->words * sizeof(uint64_t));
                p->n--;
            } else {
                if ((rc = grow(ps, (int)count)))
                    return rc;
                memcpy(place_at(p, p->n), ps->scratch, (size_t)p->words * sizeof(uint64_t));
                for (long k = 1; k < count; k++) {
                    uint64_t *dst = place_at(p, p->n + (int)k), *src = place_at(p, p->n + (int)k - 1);
                    memset(dst, 0, (size_t)p->words * sizeof *dst);
                    for (int c = 0; c < p->cpu_limit; c++) {
                        if (!bit_get(src, c))
                            continue;
                        long to = c + stride;
                        if (to < 0 || to >= p->cpu_limit)
                            return content(ps, "CPU number %d%+ld out of range", c, stride);
                        bit_set(dst, (int)to);
                    }
                }
                p->n += (int)count;
            }
        }
        if (ps->s[ps->pos] == '\0')
            return TS_OK;
        if (ps->s[ps->pos] != ',')
            return syntax(ps, "',' between places, or the end");
        ps->pos++;
    }
}

/* A PU order as libgomp walks /sys: the allowed PUs by OS number. */
static int *allowed_by_os(const struct ts_node *node, int *n)
{
    int *order = malloc((size_t)(node->n_pus > 0 ? node->n_pus : 1) * sizeof *order);
    if (!order)
        return NULL;
    *n = 0;
    for (int i = 0; i < node->n_pus; i++)
        if (node->pus[i].allowed)
            order[(*n)++] = i;
    for (int i = 1; i < *n; i++) /* insertion sort: nodes have thousands of PUs at most */
        for (int j = i; j > 0 && node->pus[order[j - 1]].os_index > node->pus[order[j]].os_index; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    return order;
}

enum level { LEVEL_THREADS = 1, LEVEL_CORES, LEVEL_SOCKETS, LEVEL_LL_CACHES, LEVEL_NUMA };

/* The group of a PU at a level: the core (threads and cores), package, LLC or NUMA node. */
static int group_of(const struct ts_node_pu *pu, enum level level)
{
    switch (level) {
    case LEVEL_SOCKETS: return pu->package;
    case LEVEL_LL_CACHES: return pu->llc;
    case LEVEL_NUMA: return pu->numa;
    default: return pu->core;
    }
}

/* The places of an abstract name, as config/linux/affinity.c builds them: walking the allowed
 * CPUs by OS number, each CPU not yet taken opens a place with every allowed CPU of its group
 * (threads: one place per CPU of the group, in OS order), up to count places (at most one per
 * allowed CPU). numa_domains goes by NUMA node number instead. A PU whose group is unknown
 * (-1: no cache or NUMA node known) is left out, as libgomp leaves out a CPU whose /sys file
 * it cannot read. */
static int level_places(struct parser *ps, const struct ts_node *node, enum level level, long count)
{
    struct ts_omp_places *p = ps->out;
    int n_allowed;
    int *order = allowed_by_os(node, &n_allowed);
    char *taken = calloc((size_t)(node->n_pus > 0 ? node->n_pus : 1), 1);
    if (!order || !taken) {
        free(order);
        free(taken);
        return ts_fail(ps->err, TS_RESOURCE_ERROR, "no memory for %d PUs", node->n_pus);
    }
    if (count > n_allowed)
        count = n_allowed;
    int rc = TS_OK;
    if (level == LEVEL_NUMA) {
        for (int d = 0; d < node->n_numa && p->n < count && rc == TS_OK; d++) {
            int opened = 0;
            for (int k = 0; k < n_allowed && rc == TS_OK; k++) {
                const struct ts_node_pu *pu = &node->pus[order[k]];
                if (pu->numa != d)
                    continue;
                if (!opened && (rc = grow(ps, 1)) == TS_OK) {
                    memset(place_at(p, p->n), 0, (size_t)p->words * sizeof(uint64_t));
                    opened = 1;
                }
                if (rc == TS_OK)
                    bit_set(place_at(p, p->n), pu->os_index);
            }
            p->n += opened;
        }
    } else {
        /* libgomp 12 builds one ll_caches place only: it names the first CPU's shared_cpu_list
         * file once and reads that same file for every later CPU, whose CPUs are all taken by
         * then (docs/binding-model.md, departure 8). */
        long most = level == LEVEL_LL_CACHES ? 1 : count;
        for (int k = 0; k < n_allowed && p->n < most && rc == TS_OK; k++) {
            const struct ts_node_pu *first = &node->pus[order[k]];
            int group = group_of(first, level);
            if (taken[order[k]] || group < 0)
                continue;
            for (int m = k; m < n_allowed && rc == TS_OK; m++) {
                const struct ts_node_pu *pu = &node->pus[order[m]];
                if (level == LEVEL_THREADS && p->n >= count)
                    break;
                if (taken[order[m]] || group_of(pu, level) != group)
                    continue;
                taken[order[m]] = 1;
                if (level == LEVEL_THREADS || m == k) {
                    if ((rc = grow(ps, 1)) != TS_OK)
                        break;
                    memset(place_at(p, p->n), 0, (size_t)p->words * sizeof(uint64_t));
                    p->n++;
                }
                bit_set(place_at(p, p->n - 1), pu->os_index);
            }
        }
    }
    free(order);
    free(taken);
    if (rc == TS_OK && p->n == 0)
        rc = ts_fail(ps->err, TS_BAD_INPUT,
                     "OMP_PLACES '%s': no places: the node has no allowed CPU with a known %s (libgomp: "
                     "\"Error reading core/socket topology\")",
                     ps->s,
                     level == LEVEL_NUMA        ? "NUMA node"
                     : level == LEVEL_LL_CACHES ? "last-level cache"
                                                : "core");
    return rc;
}

/* Keeps each place's allowed CPUs and drops the places left empty, as
 * gomp_affinity_finalize_place_list. */
static int finalize(struct parser *ps, const struct ts_node *node)
{
    struct ts_omp_places *p = ps->out;
    uint64_t *allowed = calloc((size_t)p->words, sizeof *allowed);
    if (!allowed)
        return ts_fail(ps->err, TS_RESOURCE_ERROR, "no memory for a CPU mask");
    for (int i = 0; i < node->n_pus; i++)
        if (node->pus[i].allowed && node->pus[i].os_index < p->cpu_limit)
            bit_set(allowed, node->pus[i].os_index);
    int kept = 0;
    for (int i = 0; i < p->n; i++) {
        uint64_t *set = place_at(p, i), any = 0;
        for (int w = 0; w < p->words; w++)
            any |= set[w] &= allowed[w];
        if (any) {
            memmove(place_at(p, kept), set, (size_t)p->words * sizeof *set);
            kept++;
        }
    }
    free(allowed);
    p->dropped = p->n - kept;
    p->n = kept;
    if (kept == 0)
        return ts_fail(ps->err, TS_BAD_INPUT,
                       "OMP_PLACES '%s': none of the places holds a CPU the job may use (libgomp: \"None of "
                       "the places contain usable logical CPUs\")",
                       ps->s);
    return TS_OK;
}

/* The places of omp_places on node, or only its syntax when node is NULL. */
static int parse(const struct ts_node *node, const char *omp_places, struct ts_omp_places *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    static const struct ts_node none = { 0 };
    const int syntax_only = node == NULL;
    if (syntax_only)
        node = &none;
    /* libgomp sizes its CPU mask from the highest CPU the process may use, in 64-bit words */
    int highest = -1;
    for (int i = 0; i < node->n_pus; i++)
        if (node->pus[i].allowed && node->pus[i].os_index > highest)
            highest = node->pus[i].os_index;
    out->words = highest / 64 + 1;
    out->cpu_limit = out->words * 64;
    struct parser ps = { .s = omp_places, .err = err };
    skip_ws(&ps);
    if (omp_places[ps.pos] == '\0')
        return syntax(&ps, "a places list (OMP_PLACES is empty)");

    static const struct {
        const char *name;
        enum level level;
    } names[] = { { "threads", LEVEL_THREADS },
                  { "cores", LEVEL_CORES },
                  { "sockets", LEVEL_SOCKETS },
                  { "ll_caches", LEVEL_LL_CACHES },
                  { "numa_domains", LEVEL_NUMA } };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t len = strlen(names[i].name);
        if (strncasecmp(omp_places + ps.pos, names[i].name, len) != 0)
            continue;
        ps.pos += len;
        long count = LONG_MAX;
        skip_ws(&ps);
        if (omp_places[ps.pos] != '\0') {
            if (omp_places[ps.pos] != '(')
                return syntax(&ps, "'(' and a number of places, or the end");
            ps.pos++;
            int rc = number(&ps, &count, 0, "a number of places");
            if (rc)
                return rc;
            skip_ws(&ps);
            if (omp_places[ps.pos] != ')')
                return syntax(&ps, "')'");
            ps.pos++;
            skip_ws(&ps);
            if (omp_places[ps.pos] != '\0')
                return syntax(&ps, "the end after ')'");
        }
        if (syntax_only)
            return TS_OK;
        snprintf(out->source, sizeof out->source, "%s", omp_places);
        ps.out = out;
        int rc = level_places(&ps, node, names[i].level, count);
        if (rc)
            ts_omp_places_free(out);
        return rc;
    }

    size_t start = ps.pos;
    int rc = explicit_list(&ps); /* the syntax first, as libgomp, so no error hides another */
    if (rc || syntax_only)
        return rc;
    ps.pos = start;
    ps.out = out;
    snprintf(out->source, sizeof out->source, "explicit list");
    ps.scratch = calloc((size_t)out->words, sizeof *ps.scratch);
    if (!ps.scratch)
        return ts_fail(err, TS_RESOURCE_ERROR, "no memory for a CPU mask");
    rc = explicit_list(&ps);
    if (rc == TS_OK && out->n == 0)
        rc = ts_fail(err, TS_BAD_INPUT, "OMP_PLACES '%s': all places have been removed", omp_places);
    if (rc == TS_OK)
        rc = finalize(&ps, node);
    free(ps.scratch);
    if (rc)
        ts_omp_places_free(out);
    return rc;
}

int ts_omp_places_parse(const struct ts_node *node, const char *omp_places, struct ts_omp_places *out,
                        struct ts_error *err)
{
    return parse(node, omp_places, out, err);
}

int ts_omp_places_syntax(const char *omp_places, struct ts_error *err)
{
    struct ts_omp_places unused;
    return parse(NULL, omp_places, &unused, err);
}

void ts_omp_places_free(struct ts_omp_places *p)
{
    free(p->sets);
    p->sets = NULL;
    p->n = 0;
}

int ts_omp_place_has(const struct ts_omp_places *p, int place, int cpu)
{
    if (place < 0 || place >= p->n || cpu < 0 || cpu >= p->cpu_limit)
        return 0;
    return bit_get(p->sets + (size_t)place * (size_t)p->words, cpu);
}

int ts_omp_place_count(const struct ts_omp_places *p, int place)
{
    int n = 0;
    for (int c = 0; c < p->cpu_limit; c++)
        n += ts_omp_place_has(p, place, c);
    return n;
}

int ts_omp_places_format(const struct ts_omp_places *p, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        int w_ = snprintf(used < size ? buf + used : NULL, used < size ? size - used : 0, __VA_ARGS__);                \
        used += (size_t)(w_ > 0 ? w_ : 0);                                                                             \
    } while (0)
    for (int i = 0; i < p->n; i++) {
        PUT("%s{", i ? "," : "");
        int run = 0, first = 1;
        for (int c = 0; c <= p->cpu_limit; c++) {
            if (c < p->cpu_limit && ts_omp_place_has(p, i, c)) {
                if (run == 0) {
                    PUT("%s%d", first ? "" : ",", c);
                    first = 0;
                }
                run++;
            } else {
                if (run > 1)
                    PUT(":%d", run);
                run = 0;
            }
        }
        PUT("}");
    }
#undef PUT
    return (int)used;
}
