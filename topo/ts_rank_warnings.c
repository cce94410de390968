#include "ts_rank_warnings.h"
#include "topology_internal.h"
#include "ts_machine.h"
#include "ts_rank_merge.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most CPU numbers a mask may hold, as ts_machine_parse_cpus reads them. */
enum { MAX_MASK_CPUS = 65536, MAX_THREADS = 1 << 20 };

/* ---- the text line ---- */

/* Host names, boot ids and masks go into the line with every byte but [A-Za-z0-9.,_-]
 * written as %XX, so that a field never holds the separators ' ', '=' or '\n'. */
static int plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == ','
           || c == '_' || c == '-';
}

static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (plain(*p))
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
}

int ts_rank_facts_format(const struct ts_rank_facts *f, char **line, struct ts_error *err)
{
    *line = NULL;
    if (f->n_threads < 0 || f->n_threads > MAX_THREADS || (f->n_threads > 0 && !f->threads))
        return ts_fail(err, TS_INTERNAL_ERROR, "the facts of rank %d hold %d threads", f->rank, f->n_threads);
    size_t len;
    FILE *out = open_memstream(line, &len);
    if (!out)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "cannot format the facts of rank %d", f->rank);
    fprintf(out, "rank=%d local=%d host=", f->rank, f->local_rank);
    put_escaped(out, f->host);
    fputs(" boot=", out);
    put_escaped(out, f->boot_id);
    fprintf(out, " cores=%d pus=%d numa=%d mask=", f->n_cores, f->n_pus, f->n_numa);
    put_escaped(out, f->mask);
    fprintf(out, " threads=%d:", f->n_threads);
    for (int i = 0; i < f->n_threads; i++)
        fprintf(out, "%s%d/%d/%d", i ? "," : "", f->threads[i].cpu, f->threads[i].core, f->threads[i].node);
    fputc('\n', out);
    if (fclose(out) != 0) {
        free(*line);
        *line = NULL;
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot format the facts of rank %d", f->rank);
    }
    return TS_OK;
}

/* A parse in progress: where it is, and what went wrong first. */
struct reader {
    const char *p;
    const char *why; /* NULL while all is well */
    char what[64];
};

static int bad(struct reader *r, const char *why, const char *what)
{
    if (!r->why) {
        r->why = why;
        snprintf(r->what, sizeof r->what, "%s", what);
    }
    return -1;
}

/* The value of "key=" at the reader, up to ' ', '\n' or the end: [*value, *value + *len). */
static int field(struct reader *r, const char *key, const char **value, size_t *len)
{
    if (r->why)
        return -1;
    size_t k = strlen(key);
    if (strncmp(r->p, key, k) != 0 || r->p[k] != '=')
        return bad(r, "expected the field", key);
    *value = r->p + k + 1;
    *len = strcspn(*value, " \n");
    r->p = *value + *len;
    if (*r->p == ' ')
        r->p++;
    return 0;
}

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

static int text_field(struct reader *r, const char *key, char *buf, size_t size)
{
    const char *v;
    size_t len, out = 0;
    if (field(r, key, &v, &len) != 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)v[i];
        if (c == '%') {
            int hi = i + 2 < len ? hex(v[i + 1]) : -1, lo = i + 2 < len ? hex(v[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (c = hi * 16 + lo) == 0)
                return bad(r, "a broken %XX escape in", key);
            i += 2;
        } else if (!plain((unsigned char)c)) {
            return bad(r, "a byte that is not escaped in", key);
        }
        if (out + 1 >= size)
            return bad(r, "a value too long for", key);
        buf[out++] = (char)c;
    }
    buf[out] = '\0';
    return 0;
}

/* A decimal number in [min, INT_MAX] at s, of len bytes at most, all of them digits. */
static int number(struct reader *r, const char *s, size_t len, int min, const char *what, int *out)
{
    char buf[24];
    if (len == 0 || len >= sizeof buf)
        return bad(r, "not a number:", what);
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (*end || errno || buf[0] == '+' || buf[0] == ' ' || v < min || v > INT_MAX)
        return bad(r, "not a number in range:", what);
    *out = (int)v;
    return 0;
}

static int int_field(struct reader *r, const char *key, int min, int *out)
{
    const char *v;
    size_t len;
    if (field(r, key, &v, &len) != 0)
        return -1;
    return number(r, v, len, min, key, out);
}

/* "N:c/k/n,c/k/n,...": exactly N triples. */
static int threads_field(struct reader *r, struct ts_rank_facts *f)
{
    const char *v;
    size_t len;
    if (field(r, "threads", &v, &len) != 0)
        return -1;
    const char *end = v + len, *colon = memchr(v, ':', len);
    if (!colon || number(r, v, (size_t)(colon - v), 0, "threads (count)", &f->n_threads) != 0)
        return bad(r, "no thread count in", "threads");
    if (f->n_threads > MAX_THREADS)
        return bad(r, "too many threads in", "threads");
    if (f->n_threads > 0 && !(f->threads = calloc((size_t)f->n_threads, sizeof *f->threads)))
        return bad(r, "no memory for", "threads");
    const char *p = colon + 1;
    for (int i = 0; i < f->n_threads; i++) {
        int *slot[3] = { &f->threads[i].cpu, &f->threads[i].core, &f->threads[i].node };
        for (int k = 0; k < 3; k++) {
            size_t n = strcspn(p, k < 2 ? "/ \n" : ", \n");
            if (p + n > end || number(r, p, n, -1, "threads (a CPU, core or node)", slot[k]) != 0)
                return -1;
            p += n;
            char want = k < 2 ? '/' : i + 1 < f->n_threads ? ',' : '\0';
            if (want && (p >= end || *p != want))
                return bad(r, "fewer threads than counted in", "threads");
            p += want != '\0';
        }
    }
    if (p != end)
        return bad(r, "more threads than counted in", "threads");
    return 0;
}

int ts_rank_facts_parse(const char *line, struct ts_rank_facts *f, struct ts_error *err)
{
    memset(f, 0, sizeof *f);
    struct reader r = { .p = line ? line : "" };
    int_field(&r, "rank", 0, &f->rank);
    int_field(&r, "local", 0, &f->local_rank);
    text_field(&r, "host", f->host, sizeof f->host);
    text_field(&r, "boot", f->boot_id, sizeof f->boot_id);
    int_field(&r, "cores", -1, &f->n_cores);
    int_field(&r, "pus", -1, &f->n_pus);
    int_field(&r, "numa", -1, &f->n_numa);
    text_field(&r, "mask", f->mask, sizeof f->mask);
    if (!r.why)
        threads_field(&r, f);
    if (!r.why && *r.p && *r.p != '\n')
        bad(&r, "more after", "the last field");
    if (!r.why)
        return TS_OK;
    ts_rank_facts_free(f);
    size_t n = strcspn(line ? line : "", "\n");
    return ts_fail(err, TS_INTERNAL_ERROR, "a rank's facts do not read back (%s %s): \"%.*s%s\"", r.why, r.what,
                   (int)(n > 120 ? 120 : n), line ? line : "", n > 120 ? "..." : "");
}

void ts_rank_facts_free(struct ts_rank_facts *f)
{
    free(f->threads);
    f->threads = NULL;
    f->n_threads = 0;
}

/* ---- the warnings ---- */

/* What a machine's ranks say, each warning as an item "T text" of the rank it belongs to (T its
 * kind, below), one text of lines a rank. A warning of a host goes to the host's first rank. */
struct items {
    char **text; /* one malloc'd text a rank, NULL while it has none */
    size_t *len;
    int failed;
};

/* The kinds, in the order their lines are shown: a note of host names on one kernel (its text
 * whole), a host's rank count (only counted), a host with more threads than cores, a host's ranks
 * that overlap (both shown as "host H: TEXT"), then a rank's threads on one core and a rank over
 * NUMA nodes (shown as "rank R (H): TEXT"). */
static const char KINDS[] = "kucosn";

static void __attribute__((format(printf, 4, 5))) item(struct items *o, int who, char kind, const char *fmt, ...)
{
    char text[sizeof(struct ts_rank_line){ 0 }.text];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t add = strlen(text) + 3, at = o->len[who];
    char *grown = o->failed ? NULL : realloc(o->text[who], at + add + 1);
    if (!grown) {
        o->failed = 1;
        return;
    }
    snprintf(grown + at, add + 1, "%c %s\n", kind, text);
    o->text[who] = grown;
    o->len[who] = at + add;
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

/* A host: a name and a kernel (boot id). */
struct host {
    int first;     /* index of its first rank */
    int n_ranks;   /* ranks on it */
    int n_threads; /* their threads */
    int cores;     /* the most any of its ranks saw; -1 unknown */
    int numa;      /* NUMA nodes with memory, likewise */
};

/* A rank's CPUs, ascending. */
struct cpus {
    int *v, n;
    int from_mask; /* the rank's mask, not the CPUs its threads ran on */
};

static int int_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The distinct CPUs, nodes... at v[0, m), sorted in place; returns how many. */
static int distinct_sorted(int *v, int m)
{
    qsort(v, (size_t)m, sizeof *v, int_order);
    int u = 0;
    for (int i = 0; i < m; i++)
        if (u == 0 || v[i] != v[u - 1])
            v[u++] = v[i];
    return u;
}

/* The mask's CPUs, or, when the mask is unknown, the CPUs its threads ran on. */
static int cpus_of(const struct ts_rank_facts *f, int *tmp, struct cpus *c)
{
    int n = f->mask[0] ? ts_machine_parse_cpus(f->mask, tmp, MAX_MASK_CPUS) : -1;
    c->from_mask = n >= 0;
    if (n < 0) {
        n = 0;
        for (int t = 0; t < f->n_threads; t++)
            if (f->threads[t].cpu >= 0)
                tmp[n++] = f->threads[t].cpu;
        n = distinct_sorted(tmp, n);
    }
    c->n = n;
    c->v = malloc((n > 0 ? (size_t)n : 1) * sizeof *c->v);
    if (!c->v)
        return -1;
    memcpy(c->v, tmp, (size_t)n * sizeof *c->v);
    return 0;
}

/* The CPUs of both, into out; returns how many. */
static int common_cpus(const struct cpus *a, const struct cpus *b, int *out)
{
    int i = 0, j = 0, n = 0;
    while (i < a->n && j < b->n) {
        if (a->v[i] < b->v[j])
            i++;
        else if (a->v[i] > b->v[j])
            j++;
        else {
            out[n++] = a->v[i];
            i++;
            j++;
        }
    }
    return n;
}

static void list_text(const int *v, int n, char *buf, size_t len)
{
    struct ts_list l;
    ts_list_init(&l, buf, len);
    for (int i = 0; i < n; i++)
        ts_list_add(&l, v[i]);
    ts_list_end(&l);
    if (n == 0)
        snprintf(buf, len, "none");
}

/* ---- sorting instead of comparing every pair: O(ranks log ranks) ---- */

/* A rank in a sort: its facts, its index (the tie-break: equal keys keep rank order) and CPUs. */
struct ref {
    const struct ts_rank_facts *f;
    const struct cpus *c;
    int i;
};

static int by_host(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    int d = strcmp(x->f->host, y->f->host);
    d = d ? d : strcmp(x->f->boot_id, y->f->boot_id);
    return d ? d : (x->i > y->i) - (x->i < y->i);
}

static int by_kernel(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    int d = strcmp(x->f->boot_id, y->f->boot_id);
    d = d ? d : strcmp(x->f->host, y->f->host);
    return d ? d : (x->i > y->i) - (x->i < y->i);
}

static int by_cpus(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    for (int k = 0; k < x->c->n && k < y->c->n; k++)
        if (x->c->v[k] != y->c->v[k])
            return x->c->v[k] < y->c->v[k] ? -1 : 1;
    if (x->c->n != y->c->n)
        return x->c->n < y->c->n ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int by_first(const void *a, const void *b)
{
    return int_order(a, b); /* structs whose first member is their first rank */
}

/* The hosts in order of their first rank, and each rank's host: runs of one (name, boot id)
 * in the ranks sorted by them. refs: n, scratch. Returns how many hosts. */
static int group_hosts(const struct ts_rank_facts *r, int n, struct ref *refs, struct host *h, int *host_of)
{
    for (int i = 0; i < n; i++)
        refs[i] = (struct ref){ &r[i], NULL, i };
    qsort(refs, (size_t)n, sizeof *refs, by_host);
    int n_hosts = 0;
    for (int s = 0; s < n; s++) {
        if (s == 0 || strcmp(refs[s].f->host, refs[s - 1].f->host) != 0
            || strcmp(refs[s].f->boot_id, refs[s - 1].f->boot_id) != 0)
            h[n_hosts++] = (struct host){ .first = refs[s].i, .cores = -1, .numa = -1 };
        struct host *k = &h[n_hosts - 1];
        const struct ts_rank_facts *f = refs[s].f;
        k->n_ranks++;
        k->n_threads += f->n_threads;
        k->cores = f->n_cores > k->cores ? f->n_cores : k->cores;
        k->numa = f->n_numa > k->numa ? f->n_numa : k->numa;
    }
    qsort(h, (size_t)n_hosts, sizeof *h, by_first);
    /* Each host's first rank marks it; the others follow the rank before them in the sort. */
    for (int i = 0; i < n; i++)
        host_of[i] = -1;
    for (int k = 0; k < n_hosts; k++)
        host_of[h[k].first] = k;
    for (int s = 0; s < n; s++)
        if (host_of[refs[s].i] < 0)
            host_of[refs[s].i] = host_of[refs[s - 1].i];
    return n_hosts;
}

/* A kernel (boot id) and its ranks in a sort by kernel: refs[start, end). */
struct kernel {
    int first, start, end;
};

/* A name of a kernel: its first rank and where its name is. */
struct name {
    int first;
    const char *host;
};

/* Host names that share one kernel: one note per kernel, in the order of their first ranks. */
static int shared_kernels(struct items *s, const struct ts_rank_facts *r, int n, struct ref *refs)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (r[i].boot_id[0])
            refs[m++] = (struct ref){ &r[i], NULL, i };
    qsort(refs, (size_t)m, sizeof *refs, by_kernel);
    struct kernel *k = malloc((size_t)(m > 0 ? m : 1) * sizeof *k);
    struct name *names = malloc((size_t)(m > 0 ? m : 1) * sizeof *names);
    if (!k || !names) {
        free(k);
        free(names);
        return -1;
    }
    int n_kernels = 0;
    for (int a = 0; a < m;) {
        int b = a + 1, first = refs[a].i;
        while (b < m && strcmp(refs[b].f->boot_id, refs[a].f->boot_id) == 0)
            first = refs[b].i < first ? refs[b].i : first, b++;
        k[n_kernels++] = (struct kernel){ first, a, b };
        a = b;
    }
    qsort(k, (size_t)n_kernels, sizeof *k, by_first);
    for (int g = 0; g < n_kernels; g++) {
        int n_names = 0;
        for (int x = k[g].start; x < k[g].end; x++) /* sorted by name within the kernel */
            if (x == k[g].start || strcmp(refs[x].f->host, refs[x - 1].f->host) != 0)
                names[n_names++] = (struct name){ refs[x].i, refs[x].f->host };
        if (n_names < 2)
            continue;
        qsort(names, (size_t)n_names, sizeof *names, by_first);
        char list[400] = "";
        size_t used = 0;
        for (int j = 0; j < n_names && used < sizeof list; j++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "", names[j].host);
        item(s, k[g].first, 'k',
             "hosts %s share one kernel (boot id %.8s...): one machine under %d names, as in an emulated cluster; "
             "their ranks run on the same cores, which is not warned about between these hosts",
             list, refs[k[g].start].f->boot_id, n_names);
    }
    free(k);
    free(names);
    return 0;
}

/* Each host's rank count, for the line that says they differ (ts_rank_warnings_lines). */
static void host_counts(struct items *s, const struct host *h, int n_hosts)
{
    for (int k = 0; k < n_hosts; k++)
        item(s, h[k].first, 'u', "%d", h[k].n_ranks);
}

static void crowded_host(struct items *s, const struct host *h)
{
    if (h->cores <= 0 || h->n_threads <= h->cores)
        return;
    item(s, h->first, 'c',
         "its %d rank%s run %d threads on %d core%s: threads time-slice and every timing stretches; run at most %d "
         "threads on a host (ranks per host x threads per rank: srun --ntasks-per-node and -c, "
         "OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK)",
         h->n_ranks, plural(h->n_ranks), h->n_threads, h->cores, plural(h->cores), h->cores);
}

/* One host's ranks whose CPUs overlap, counted without comparing every pair of ranks: ranks of
 * one CPU set (the usual overlap: every rank given the whole node) make g(g-1)/2 pairs; two
 * distinct sets that share a CPU, found through the sets of each CPU, make g1 x g2. */
struct overlap {
    long long pairs;
    int a, b; /* the first pair in rank order */
};

/* A distinct CPU set of the host: its ranks refs[start, end), in rank order. */
struct set {
    int start, end;
};

/* (CPU, set) pairs sorted by CPU: the sets of each CPU. */
struct cpu_set {
    int cpu, set;
};

static int by_cpu(const void *a, const void *b)
{
    const struct cpu_set *x = a, *y = b;
    return x->cpu != y->cpu ? int_order(&x->cpu, &y->cpu) : int_order(&x->set, &y->set);
}

static void consider(struct overlap *o, long long pairs, int a, int b)
{
    o->pairs += pairs;
    if (o->a < 0 || a < o->a || (a == o->a && b < o->b)) {
        o->a = a;
        o->b = b;
    }
}

/* The host's ranks refs[0, m), sorted here by CPU set. -1 without memory. */
static int count_overlaps(struct ref *refs, int m, struct overlap *o)
{
    *o = (struct overlap){ 0, -1, -1 };
    qsort(refs, (size_t)m, sizeof *refs, by_cpus);
    struct set *sets = malloc((size_t)(m > 0 ? m : 1) * sizeof *sets);
    int *stamp = malloc((size_t)(m > 0 ? m : 1) * sizeof *stamp);
    size_t n_pairs = 0;
    int n_sets = 0;
    for (int x = 0; sets && x < m; x++) {
        const struct cpus *prev = x > 0 ? refs[x - 1].c : NULL, *this = refs[x].c;
        if (prev && prev->n == this->n && memcmp(prev->v, this->v, (size_t)this->n * sizeof *this->v) == 0)
            sets[n_sets - 1].end = x + 1;
        else
            sets[n_sets++] = (struct set){ x, x + 1 };
    }
    for (int t = 0; sets && t < n_sets; t++)
        n_pairs += (size_t)refs[sets[t].start].c->n;
    struct cpu_set *cs = malloc((n_pairs > 0 ? n_pairs : 1) * sizeof *cs);
    if (!sets || !stamp || !cs) {
        free(sets);
        free(stamp);
        free(cs);
        return -1;
    }
    size_t p = 0;
    for (int t = 0; t < n_sets; t++) {
        const struct cpus *c = refs[sets[t].start].c;
        for (int k = 0; k < c->n; k++)
            cs[p++] = (struct cpu_set){ c->v[k], t };
        stamp[t] = -1;
        long long g = sets[t].end - sets[t].start;
        if (g >= 2 && c->n > 0) /* refs of a set are in rank order: its first two are its first pair */
            consider(o, g * (g - 1) / 2, refs[sets[t].start].i, refs[sets[t].start + 1].i);
    }
    qsort(cs, n_pairs, sizeof *cs, by_cpu);
    for (int t = 0; t < n_sets; t++) {
        const struct cpus *c = refs[sets[t].start].c;
        for (int k = 0; k < c->n; k++) {
            size_t lo = 0, hi = n_pairs; /* the first (CPU, set) of this CPU */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cs[mid].cpu < c->v[k])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t q = lo; q < n_pairs && cs[q].cpu == c->v[k]; q++) {
                int u = cs[q].set;
                if (u <= t || stamp[u] == t)
                    continue;
                stamp[u] = t;
                int first_t = refs[sets[t].start].i, first_u = refs[sets[u].start].i;
                long long g = (long long)(sets[t].end - sets[t].start) * (sets[u].end - sets[u].start);
                /* The first pair of the two sets: the lower first rank, with the other set's first. */
                consider(o, g, first_t < first_u ? first_t : first_u, first_t < first_u ? first_u : first_t);
            }
        }
    }
    free(sets);
    free(stamp);
    free(cs);
    return 0;
}

/* Ranks of host h (members: its ranks, in rank order) whose CPUs overlap: one line for the host,
 * naming the first pair. refs: scratch for the host's ranks. -1 without memory. */
static int overlapping(struct items *s, const struct ts_rank_facts *r, const int *members, const struct host *h,
                       const struct cpus *c, struct ref *refs, int *tmp)
{
    int m = h->n_ranks;
    for (int x = 0; x < m; x++)
        refs[x] = (struct ref){ &r[members[x]], &c[members[x]], members[x] };
    struct overlap o;
    if (count_overlaps(refs, m, &o) != 0)
        return -1;
    if (o.pairs == 0)
        return 0;
    char shared[200], mask_a[200], mask_b[200], more[120] = "";
    int first_n = common_cpus(&c[o.a], &c[o.b], tmp);
    list_text(tmp, first_n, shared, sizeof shared);
    list_text(c[o.a].v, c[o.a].n, mask_a, sizeof mask_a);
    list_text(c[o.b].v, c[o.b].n, mask_b, sizeof mask_b);
    if (o.pairs > 1)
        snprintf(more, sizeof more, "; %lld pairs of its %d ranks overlap", o.pairs, h->n_ranks);
    item(s, h->first, 'o',
         "ranks %d and %d may both run on CPU%s %s (masks %s and %s)%s: their threads compete for the same cores; "
         "give each rank cores of its own: srun --mpi=pmix --cpus-per-task=N --cpu-bind=cores, or mpirun --map-by "
         "slot:PE=N --bind-to core (N threads a rank)",
         r[o.a].rank, r[o.b].rank, plural(first_n), shared, mask_a, mask_b, more);
    return 0;
}

/* The mpirun-in-allocation pitfall: a rank of several threads whose mask is one core. Threads
 * that share a core of a wider mask are the rank's own binding (its own warnings say so). Its
 * text, without the rank, joins the ranks' (one line for every rank that says it). */
static void one_core(struct items *said, int who, const struct ts_rank_facts *f, const struct cpus *c, int *tmp)
{
    int n = f->n_threads;
    int pus_per_core = f->n_cores > 0 && f->n_pus >= f->n_cores ? f->n_pus / f->n_cores : 1;
    if (n < 2 || f->threads[0].core < 0 || !c->from_mask || c->n > pus_per_core)
        return;
    for (int t = 1; t < n; t++)
        if (f->threads[t].core != f->threads[0].core)
            return;
    int m = 0;
    for (int t = 0; t < n; t++)
        if (f->threads[t].cpu >= 0)
            tmp[m++] = f->threads[t].cpu;
    int u = distinct_sorted(tmp, m);
    char ran[200], mask[200];
    list_text(tmp, u, ran, sizeof ran);
    list_text(c->v, c->n, mask, sizeof mask);
    /* Not --bind-to none: unbound ranks' threads bound by OMP_PLACES start from the same first
     * place, so every rank's thread 0 lands on one core. PE=n gives each rank n cores of its own. */
    item(said, who, 's',
         "its %d threads all run on core %d (CPU%s %s; the rank's mask: %s): they take turns on one core, as "
         "when mpirun binds each rank to one core (in a Slurm allocation even with -c %d); give each rank %d "
         "cores of its own: mpirun --map-by slot:PE=%d --bind-to core, or srun --mpi=pmix --cpus-per-task=%d "
         "--cpu-bind=cores, with OMP_NUM_THREADS=%d OMP_PLACES=cores OMP_PROC_BIND=spread",
         n, f->threads[0].core, plural(u), ran, mask, n, n, n, n, n);
}

/* A rank over several NUMA nodes where the host has one rank per node; joins the ranks' too. */
static void spans_nodes(struct items *said, int who, const struct ts_rank_facts *f, const struct host *h, int *tmp)
{
    if (h->numa < 2 || h->n_ranks != h->numa)
        return;
    int m = 0;
    for (int t = 0; t < f->n_threads; t++)
        if (f->threads[t].node >= 0)
            tmp[m++] = f->threads[t].node;
    int u = distinct_sorted(tmp, m);
    if (u < 2)
        return;
    char nodes[200];
    list_text(tmp, u, nodes, sizeof nodes);
    item(said, who, 'n',
         "its %d threads run on NUMA nodes %s while its host has one rank per NUMA node (%d ranks, %d nodes): "
         "the threads off the rank's node reach its pages remotely; bind each rank to one node: mpirun "
         "--map-by numa --bind-to numa, or srun --cpu-bind=ldoms",
         f->n_threads, nodes, h->n_ranks, h->numa);
}

/* Every item of the machine's ranks: notes of shared kernels, then each kind by host. */
static int compare_ranks(struct items *s, const struct ts_rank_facts *r, int n, const struct host *h, int n_hosts,
                         const int *host_of, const struct cpus *c, struct ref *refs, int *tmp)
{
    if (shared_kernels(s, r, n, refs) != 0)
        return -1;
    host_counts(s, h, n_hosts);
    for (int k = 0; k < n_hosts; k++)
        crowded_host(s, &h[k]);
    /* Each host's ranks in rank order, one host after the other: a counting sort. */
    int *members = malloc((size_t)n * sizeof *members), *at = calloc((size_t)n_hosts + 1, sizeof *at);
    for (int k = 0; members && at && k < n_hosts; k++)
        at[k + 1] = at[k] + h[k].n_ranks;
    for (int i = 0; members && at && i < n; i++)
        members[at[host_of[i]]++] = i;
    int failed = !members || !at;
    for (int k = 0; k < n_hosts && !failed; k++) /* at[k] is now where host k + 1 starts */
        failed = overlapping(s, r, members + (k ? at[k - 1] : 0), &h[k], c, refs, tmp) != 0;
    free(members);
    free(at);
    for (int i = 0; i < n && !failed; i++) {
        one_core(s, i, &r[i], &c[i], tmp);
        spans_nodes(s, i, &r[i], &h[host_of[i]], tmp);
    }
    return failed ? -1 : 0;
}

int ts_rank_warnings_machine(const struct ts_rank_facts *r, int n, char **out)
{
    for (int i = 0; i < n; i++)
        out[i] = NULL;
    if (n <= 0)
        return 0;
    struct items o = { .text = out, .len = calloc((size_t)n, sizeof(size_t)) };
    int *host_of = malloc((size_t)n * sizeof *host_of);
    struct host *h = malloc((size_t)n * sizeof *h);
    struct cpus *c = calloc((size_t)n, sizeof *c);
    struct ref *refs = malloc((size_t)n * sizeof *refs);
    int *tmp = malloc(MAX_MASK_CPUS * sizeof *tmp);
    int failed = !o.len || !host_of || !h || !c || !refs || !tmp;
    for (int i = 0; i < n && !failed; i++) {
        /* Threads beyond the count the facts hold are never read. */
        if (r[i].n_threads > 0 && !r[i].threads)
            failed = 1;
        else
            failed = cpus_of(&r[i], tmp, &c[i]) != 0;
    }
    if (!failed) {
        int n_hosts = group_hosts(r, n, refs, h, host_of);
        failed = compare_ranks(&o, r, n, h, n_hosts, host_of, c, refs, tmp) != 0 || o.failed;
    }
    for (int i = 0; c && i < n; i++)
        free(c[i].v);
    free(c);
    free(tmp);
    free(refs);
    free(h);
    free(host_of);
    free(o.len);
    if (failed)
        for (int i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
    return failed ? -1 : 0;
}

int ts_rank_warnings_add(struct ts_rank_merge *set, int rank, const char *host, const char *items)
{
    for (const char *p = items ? items : ""; *p;) {
        size_t n = strcspn(p, "\n");
        if (n < 2 || !strchr(KINDS, p[0]) || p[1] != ' ')
            return -2;
        char *one = strndup(p, n);
        if (!one || ts_rank_merge_add(set, rank, host, one) != 0) {
            free(one);
            return -1;
        }
        free(one);
        p += n + (p[n] == '\n');
    }
    return 0;
}

/* The lines for the user, into a sink: up to max, then one saying how many more. */
struct sink {
    struct ts_rank_line *lines;
    int max, n;
    long long left_out;
};

static void __attribute__((format(printf, 3, 4))) say(struct sink *s, int note, const char *fmt, ...)
{
    if (s->n >= s->max) {
        s->left_out++;
        return;
    }
    struct ts_rank_line *l = &s->lines[s->n++];
    l->note = note;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text, sizeof l->text, fmt, ap);
    va_end(ap);
}

/* The hosts' rank counts (kind u, one line: their numbers merged) as the line that they differ. */
static void unequal_hosts(struct sink *s, const struct ts_rank_merge *set, int i, int world)
{
    char text[64], hosts[300];
    ts_rank_merge_text(set, i, text, sizeof text);
    long long lo = 0, hi = 0;
    const char *range = strstr(text, "..");
    lo = strtoll(text + 2, NULL, 10);
    hi = range ? strtoll(range + 2, NULL, 10) : lo;
    if (lo == hi)
        return;
    ts_rank_merge_hosts(set, i, hosts, sizeof hosts);
    say(s, 0,
        "ranks per host differ: %lld to %lld ranks a host (%d ranks on %lld hosts: %s): the hosts with more ranks "
        "have less of a node per rank and every rank waits for the slowest; give each host the same number of ranks: "
        "srun --ntasks-per-node=N, or mpirun --map-by ppr:N:node",
        lo, hi, world, ts_rank_merge_ranks(set, i), hosts);
}

/* Line i of the set (kind), for the user. */
static void say_line(struct sink *s, const struct ts_rank_merge *set, int i, char kind, int world, long long hosts)
{
    char text[sizeof(struct ts_rank_line){ 0 }.text], who[400];
    ts_rank_merge_text(set, i, text, sizeof text);
    const char *body = text + 2; /* past "K " */
    long long count = ts_rank_merge_ranks(set, i);
    if (kind == 'k') {
        say(s, 1, "%s", body);
    } else if (kind == 'c' || kind == 'o') {
        ts_rank_merge_hosts(set, i, who, sizeof who);
        if (count == 1)
            say(s, 0, "host %s: %s", who, body);
        else
            say(s, 0, "%lld of %lld hosts (hosts %s): %s", count, hosts, who, body);
    } else {
        char line[sizeof text + 512];
        ts_rank_merge_line(set, i, world, line, sizeof line);
        /* The rank's header, then the text past its kind. */
        size_t head = strlen(line) - strlen(text);
        say(s, 0, "%.*s%s", (int)head, line, body);
    }
}

int ts_rank_warnings_lines(const struct ts_rank_merge *set, int world, struct ts_rank_line *lines, int max)
{
    struct sink s = { .lines = lines, .max = max > 0 ? max : 0 };
    int n = ts_rank_merge_count(set);
    long long hosts = 0;
    for (int i = 0; i < n; i++) {
        char kind[4];
        ts_rank_merge_text(set, i, kind, sizeof kind);
        hosts += kind[0] == 'u' ? ts_rank_merge_ranks(set, i) : 0;
    }
    for (const char *kind = KINDS; *kind; kind++)
        for (int i = 0; i < n; i++) {
            char head[4];
            ts_rank_merge_text(set, i, head, sizeof head);
            if (head[0] != *kind)
                continue;
            if (*kind == 'u')
                unequal_hosts(&s, set, i, world);
            else
                say_line(&s, set, i, *kind, world, hosts);
        }
    long long dropped = ts_rank_merge_dropped(set);
    if ((s.left_out > 0 || dropped > 0) && s.max > 0) {
        /* The last line says what is missing: in place of the last shown when the lines are full. */
        const int full = s.n == s.max;
        struct ts_rank_line *last = &lines[full ? s.max - 1 : s.n++];
        long long more = s.left_out + full;
        char kept[160] = "";
        if (dropped > 0)
            snprintf(kept, sizeof kept,
                     "%sover %lld distinct warnings of the ranks were not kept (a rank of the merge "
                     "keeps %d)",
                     more > 0 ? "; " : "", dropped, TS_RANK_MERGE_LINES);
        last->note = 0;
        if (more > 0)
            snprintf(last->text, sizeof last->text, "%lld more warnings across ranks are not shown%s", more, kept);
        else
            snprintf(last->text, sizeof last->text, "%s", kept);
    }
    return s.n;
}

int ts_rank_warnings(const struct ts_rank_facts *r, int n, struct ts_rank_line *lines, int max)
{
    if (n <= 0)
        return 0;
    /* Every rank at once is a union of machines: the items are those each machine gives. */
    char **items = calloc((size_t)n, sizeof *items);
    struct ts_rank_merge *set = ts_rank_merge_new();
    int failed = !items || !set || ts_rank_warnings_machine(r, n, items) != 0;
    for (int i = 0; i < n && !failed; i++)
        failed = ts_rank_warnings_add(set, r[i].rank, r[i].host, items[i]) != 0;
    int got = failed ? -1 : ts_rank_warnings_lines(set, n, lines, max);
    for (int i = 0; items && i < n; i++)
        free(items[i]);
    free(items);
    ts_rank_merge_free(set);
    return got;
}
