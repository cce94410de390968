#include "ts_rank_merge.h"

#include "ts_digest.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a number stood in the key: a byte no text holds. */
#define NUMBER_MARK '\x01'

/* One distinct line. Its numbers are slots: lo[k] and hi[k] the smallest and largest values the
 * ranks gave for the k-th. */
struct line {
    char *text; /* as its first rank said it */
    char *key;  /* the text with each number a NUMBER_MARK */
    uint64_t hash;
    int n_slots;
    char **lo, **hi;
    long long count;
    int last_rank; /* the highest rank counted */
    int ranges[TS_RANK_MERGE_RANGES][2], n_ranges, ranges_more;
    char *hosts[TS_RANK_MERGE_HOSTS];
    int n_hosts, hosts_more;
};

struct ts_rank_merge {
    struct line *lines;
    int n, cap;
    int *table; /* open addressing by hash: line index + 1, 0 free; size a power of two */
    size_t table_size;
    long long dropped; /* distinct lines past TS_RANK_MERGE_LINES */
};

/* ---- numbers ---- */

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The number that starts at s[i], if one does: its length, else 0. */
static size_t number_at(const char *s, size_t i)
{
    if (!isdigit((unsigned char)s[i]) || (i > 0 && word_char(s[i - 1])))
        return 0;
    size_t j = i;
    while (isdigit((unsigned char)s[j]) || (strchr(".,-", s[j]) && s[j] && isdigit((unsigned char)s[j + 1])))
        j++;
    return j - i;
}

/* Numbers compare by their value (a list by its first number), then as text. */
static int number_order(const char *a, const char *b)
{
    double x = strtod(a, NULL), y = strtod(b, NULL);
    return x < y ? -1 : x > y ? 1 : strcmp(a, b);
}

/* The key of text, each number a NUMBER_MARK (malloc'd; NULL without memory), and in *n how
 * many numbers it holds. */
static char *key_of(const char *text, int *n)
{
    char *key = malloc(strlen(text) + 1), *k = key;
    *n = 0;
    for (size_t i = 0; key && text[i];) {
        size_t w = number_at(text, i);
        *k++ = w ? NUMBER_MARK : text[i];
        *n += w > 0;
        i += w ? w : 1;
    }
    if (key)
        *k = '\0';
    return key;
}

/* A one-rank line of text: its key and slots. -1 without memory (l then holds nothing). */
static int line_of_text(struct line *l, int rank, const char *host, const char *text)
{
    memset(l, 0, sizeof *l);
    int n = 0;
    l->text = strdup(text);
    l->key = key_of(text, &n);
    l->lo = calloc((size_t)n + 1, sizeof *l->lo);
    l->hi = calloc((size_t)n + 1, sizeof *l->hi);
    l->hosts[0] = strdup(host);
    l->n_hosts = 1;
    if (!l->text || !l->key || !l->lo || !l->hi || !l->hosts[0])
        return -1;
    for (size_t i = 0; text[i];) {
        size_t w = number_at(text, i);
        if (w == 0) {
            i++;
            continue;
        }
        int s = l->n_slots++;
        l->lo[s] = strndup(text + i, w);
        l->hi[s] = strndup(text + i, w);
        if (!l->lo[s] || !l->hi[s])
            return -1;
        i += w;
    }
    l->hash = ts_digest64(l->key, strlen(l->key));
    l->count = 1;
    l->last_rank = rank;
    l->ranges[0][0] = l->ranges[0][1] = rank;
    l->n_ranges = 1;
    return 0;
}

static void line_free(struct line *l)
{
    for (int k = 0; k < l->n_slots; k++) {
        free(l->lo[k]);
        free(l->hi[k]);
    }
    for (int h = 0; h < l->n_hosts; h++)
        free(l->hosts[h]);
    free(l->lo);
    free(l->hi);
    free(l->text);
    free(l->key);
    memset(l, 0, sizeof *l);
}

/* ---- the set ---- */

struct ts_rank_merge *ts_rank_merge_new(void)
{
    return calloc(1, sizeof(struct ts_rank_merge));
}

void ts_rank_merge_free(struct ts_rank_merge *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++)
        line_free(&m->lines[i]);
    free(m->lines);
    free(m->table);
    free(m);
}

/* The index of the line with l's key, or -1; *slot where it is or would go in the table. */
static int find(const struct ts_rank_merge *m, const struct line *l, size_t *slot)
{
    size_t mask = m->table_size - 1;
    for (size_t s = l->hash & mask;; s = (s + 1) & mask) {
        int i = m->table[s] - 1;
        if (i < 0 || (m->lines[i].hash == l->hash && strcmp(m->lines[i].key, l->key) == 0)) {
            *slot = s;
            return i;
        }
    }
}

/* Room for one more line: the table at most half full. */
static int grow(struct ts_rank_merge *m)
{
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 8;
        struct line *lines = realloc(m->lines, (size_t)cap * sizeof *lines);
        if (!lines)
            return -1;
        m->lines = lines;
        m->cap = cap;
    }
    if ((size_t)(m->n + 1) * 2 <= m->table_size)
        return 0;
    size_t size = m->table_size ? 2 * m->table_size : 16;
    int *table = calloc(size, sizeof *table);
    if (!table)
        return -1;
    free(m->table);
    m->table = table;
    m->table_size = size;
    for (int i = 0; i < m->n; i++) {
        size_t s;
        find(m, &m->lines[i], &s);
        m->table[s] = i + 1;
    }
    return 0;
}

static void add_range(struct line *l, int lo, int hi)
{
    if (l->ranges_more)
        return;
    int *last = l->ranges[l->n_ranges - 1];
    if (lo <= last[1] + 1)
        last[1] = hi > last[1] ? hi : last[1];
    else if (l->n_ranges < TS_RANK_MERGE_RANGES) {
        l->ranges[l->n_ranges][0] = lo;
        l->ranges[l->n_ranges++][1] = hi;
    } else
        l->ranges_more = 1;
}

static int add_host(struct line *l, const char *host)
{
    for (int h = 0; h < l->n_hosts; h++)
        if (strcmp(l->hosts[h], host) == 0)
            return 0;
    if (l->n_hosts == TS_RANK_MERGE_HOSTS) {
        l->hosts_more = 1;
        return 0;
    }
    return (l->hosts[l->n_hosts++] = strdup(host)) ? 0 : -1;
}

/* src's ranks, which follow dst's (or are its last rank again), into dst. */
static int merge_into(struct line *dst, const struct line *src)
{
    int again = src->ranges[0][0] == dst->last_rank; /* one rank, two lines of one key */
    dst->count += src->count - again;
    dst->last_rank = src->last_rank;
    for (int r = 0; r < src->n_ranges; r++)
        add_range(dst, src->ranges[r][0], src->ranges[r][1]);
    dst->ranges_more |= src->ranges_more;
    for (int h = 0; h < src->n_hosts; h++)
        if (add_host(dst, src->hosts[h]) != 0)
            return -1;
    dst->hosts_more |= src->hosts_more;
    for (int k = 0; k < dst->n_slots; k++) {
        char **mine[2] = { &dst->lo[k], &dst->hi[k] };
        const char *theirs[2] = { src->lo[k], src->hi[k] };
        for (int e = 0; e < 2; e++) {
            int order = number_order(theirs[e], *mine[e]);
            if (e == 0 ? order >= 0 : order <= 0)
                continue;
            char *c = strdup(theirs[e]);
            if (!c)
                return -1;
            free(*mine[e]);
            *mine[e] = c;
        }
    }
    return 0;
}

/* Joins line l (taken over: m owns or frees it). */
static int join_line(struct ts_rank_merge *m, struct line *l)
{
    if (grow(m) != 0) {
        line_free(l);
        return -1;
    }
    size_t slot;
    int i = find(m, l, &slot);
    if (i < 0 && m->n >= TS_RANK_MERGE_LINES) {
        m->dropped++;
        line_free(l);
        return 0;
    }
    if (i < 0) {
        m->lines[m->n] = *l;
        m->table[slot] = ++m->n;
        return 0;
    }
    int status = merge_into(&m->lines[i], l);
    line_free(l);
    return status;
}

int ts_rank_merge_add(struct ts_rank_merge *m, int rank, const char *host, const char *text)
{
    struct line l;
    if (line_of_text(&l, rank, host ? host : "", text ? text : "") != 0) {
        line_free(&l);
        return -1;
    }
    return join_line(m, &l);
}

/* A deep copy of src into l. */
static int line_copy(struct line *l, const struct line *src)
{
    *l = *src;
    l->text = strdup(src->text);
    l->key = strdup(src->key);
    l->lo = calloc((size_t)src->n_slots + 1, sizeof *l->lo);
    l->hi = calloc((size_t)src->n_slots + 1, sizeof *l->hi);
    for (int h = 0; h < src->n_hosts; h++)
        l->hosts[h] = strdup(src->hosts[h]);
    int ok = l->text && l->key && l->lo && l->hi;
    for (int k = 0; ok && k < src->n_slots; k++) {
        l->lo[k] = strdup(src->lo[k]);
        l->hi[k] = strdup(src->hi[k]);
        ok = l->lo[k] && l->hi[k];
    }
    for (int h = 0; ok && h < src->n_hosts; h++)
        ok = l->hosts[h] != NULL;
    if (!ok && l->lo && l->hi) /* free what was copied: slots not reached are NULL */
        for (int k = 0; k < src->n_slots; k++) {
            free(l->lo[k]);
            free(l->hi[k]);
            l->lo[k] = l->hi[k] = NULL;
        }
    return ok ? 0 : -1;
}

int ts_rank_merge_join(struct ts_rank_merge *m, const struct ts_rank_merge *later)
{
    m->dropped += later->dropped;
    for (int i = 0; i < later->n; i++) {
        struct line l;
        if (line_copy(&l, &later->lines[i]) != 0) {
            line_free(&l);
            return -1;
        }
        if (join_line(m, &l) != 0)
            return -1;
    }
    return 0;
}

int ts_rank_merge_count(const struct ts_rank_merge *m)
{
    return m->n;
}

long long ts_rank_merge_dropped(const struct ts_rank_merge *m)
{
    return m->dropped;
}

long long ts_rank_merge_ranks(const struct ts_rank_merge *m, int i)
{
    return i >= 0 && i < m->n ? m->lines[i].count : 0;
}

/* ---- as text ---- */

/* Strings go out with ' ', '%' and control bytes as %XX: a field never holds a separator. */
static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p == '%' || *p == 0x7f)
            fprintf(f, "%%%02X", *p);
        else
            fputc(*p, f);
    fputc(' ', f);
}

char *ts_rank_merge_write(const struct ts_rank_merge *m)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    for (int i = 0; i < m->n; i++) {
        const struct line *l = &m->lines[i];
        fprintf(f, "%lld %d %d %d %d", l->count, l->last_rank, l->n_ranges, l->ranges_more, l->n_hosts);
        for (int r = 0; r < l->n_ranges; r++)
            fprintf(f, " %d %d", l->ranges[r][0], l->ranges[r][1]);
        fprintf(f, " %d %d ", l->hosts_more, l->n_slots);
        for (int h = 0; h < l->n_hosts; h++)
            put_escaped(f, l->hosts[h]);
        for (int k = 0; k < l->n_slots; k++) {
            put_escaped(f, l->lo[k]);
            put_escaped(f, l->hi[k]);
        }
        put_escaped(f, l->text);
        fputc('\n', f);
    }
    if (m->dropped > 0) /* after the lines: a line's count never starts with '+' */
        fprintf(f, "+%lld\n", m->dropped);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

/* The next space-ended field at *p, unescaped into a malloc'd string (NULL: malformed, or no
 * memory: *no_memory says which). */
static char *field(const char **p, int *no_memory)
{
    const char *end = strchr(*p, ' '), *nl = strchr(*p, '\n');
    if (!end || (nl && nl < end))
        return NULL;
    char *out = malloc((size_t)(end - *p) + 1), *o = out;
    if (!out) {
        *no_memory = 1;
        return NULL;
    }
    for (const char *s = *p; s < end; s++) {
        int hi = *s == '%' && end - s >= 3 ? hex(s[1]) : -1, lo = hi >= 0 ? hex(s[2]) : -1;
        if (*s != '%')
            *o++ = *s;
        else if (lo >= 0 && hi * 16 + lo > 0) {
            *o++ = (char)(hi * 16 + lo);
            s += 2;
        } else {
            free(out);
            return NULL;
        }
    }
    *o = '\0';
    *p = end + 1;
    return out;
}

static int number_field(const char **p, long long min, long long max, long long *v)
{
    char *end;
    long long x = strtoll(*p, &end, 10);
    if (end == *p || *end != ' ' || x < min || x > max)
        return -1;
    *p = end + 1;
    *v = x;
    return 0;
}

/* One line of the text into l: 0, -1 without memory, -2 malformed. */
static int read_line(const char **p, struct line *l)
{
    memset(l, 0, sizeof *l);
    long long v[7];
    const long long max[5] = { 1LL << 40, 1 << 30, TS_RANK_MERGE_RANGES, 1, TS_RANK_MERGE_HOSTS };
    const long long min[5] = { 1, 0, 1, 0, 1 };
    for (int i = 0; i < 5; i++)
        if (number_field(p, min[i], max[i], &v[i]) != 0)
            return -2;
    l->count = v[0];
    l->last_rank = (int)v[1];
    l->n_ranges = (int)v[2];
    l->ranges_more = (int)v[3];
    for (int r = 0; r < l->n_ranges; r++) {
        if (number_field(p, 0, 1 << 30, &v[5]) != 0 || number_field(p, v[5], 1 << 30, &v[6]) != 0)
            return -2;
        l->ranges[r][0] = (int)v[5];
        l->ranges[r][1] = (int)v[6];
    }
    if (number_field(p, 0, 1, &v[5]) != 0 || number_field(p, 0, 1 << 20, &v[6]) != 0)
        return -2;
    l->hosts_more = (int)v[5];
    int no_memory = 0, n_hosts = (int)v[4];
    for (; l->n_hosts < n_hosts; l->n_hosts++)
        if (!(l->hosts[l->n_hosts] = field(p, &no_memory)))
            return no_memory ? -1 : -2;
    int n_slots = (int)v[6];
    l->lo = calloc((size_t)n_slots + 1, sizeof *l->lo);
    l->hi = calloc((size_t)n_slots + 1, sizeof *l->hi);
    if (!l->lo || !l->hi)
        return -1;
    for (; l->n_slots < n_slots; l->n_slots++) {
        l->lo[l->n_slots] = field(p, &no_memory);
        l->hi[l->n_slots] = l->lo[l->n_slots] ? field(p, &no_memory) : NULL;
        if (!l->hi[l->n_slots]) {
            l->n_slots++; /* freed with the others */
            return no_memory ? -1 : -2;
        }
    }
    if (!(l->text = field(p, &no_memory)))
        return no_memory ? -1 : -2;
    if (**p != '\n')
        return -2;
    (*p)++;
    /* The key from the text: its numbers must be the slots. */
    int numbers = 0;
    if (!(l->key = key_of(l->text, &numbers)))
        return -1;
    l->hash = ts_digest64(l->key, strlen(l->key));
    return numbers == l->n_slots ? 0 : -2;
}

int ts_rank_merge_read(struct ts_rank_merge *m, const char *text)
{
    for (const char *p = text ? text : ""; *p;) {
        if (*p == '+') {
            char *end;
            long long dropped = strtoll(p + 1, &end, 10);
            if (end == p + 1 || *end != '\n' || dropped < 1 || dropped > 1LL << 40)
                return -2;
            m->dropped += dropped;
            p = end + 1;
            continue;
        }
        struct line l;
        int status = read_line(&p, &l);
        if (status != 0) {
            line_free(&l);
            return status;
        }
        if (join_line(m, &l) != 0)
            return -1;
    }
    return 0;
}

/* ---- for the user ---- */

#define PUT(...) (used += used < len ? (size_t)snprintf(buf + used, len - used, __VA_ARGS__) : 0)

void ts_rank_merge_text(const struct ts_rank_merge *m, int i, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    if (i < 0 || i >= m->n)
        return;
    const struct line *l = &m->lines[i];
    const char *t = l->text;
    size_t used = 0;
    for (size_t at = 0, k = 0; t[at] && used < len;) {
        size_t w = number_at(t, at);
        if (w == 0) {
            PUT("%c", t[at++]);
            continue;
        }
        if (strcmp(l->lo[k], l->hi[k]) == 0)
            PUT("%s", l->lo[k]);
        else
            PUT("%s..%s", l->lo[k], l->hi[k]);
        k++;
        at += w;
    }
}

void ts_rank_merge_hosts(const struct ts_rank_merge *m, int i, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    if (i < 0 || i >= m->n)
        return;
    const struct line *l = &m->lines[i];
    size_t used = 0;
    for (int h = 0; h < l->n_hosts; h++)
        PUT("%s%s", h ? ", " : "", l->hosts[h]);
    PUT("%s", l->hosts_more ? " ..." : "");
}

void ts_rank_merge_line(const struct ts_rank_merge *m, int i, int world, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    if (i < 0 || i >= m->n)
        return;
    const struct line *l = &m->lines[i];
    size_t used = 0;
    if (l->count == 1) {
        PUT("rank %d (%s): ", l->ranges[0][0], l->hosts[0]);
    } else {
        PUT("%lld of %d ranks (ranks ", l->count, world);
        for (int r = 0; r < l->n_ranges; r++) {
            PUT("%s%d", r ? "," : "", l->ranges[r][0]);
            if (l->ranges[r][1] > l->ranges[r][0])
                PUT("-%d", l->ranges[r][1]);
        }
        PUT("%s; host%s ", l->ranges_more ? " ..." : "", l->n_hosts > 1 || l->hosts_more ? "s" : "");
        if (used < len)
            ts_rank_merge_hosts(m, i, buf + used, len - used);
        used = strlen(buf);
        PUT("): ");
    }
    if (used < len)
        ts_rank_merge_text(m, i, buf + used, len - used);
}
#undef PUT

char *ts_rank_merge_join_text(void *ctx, const char *lower, const char *higher)
{
    (void)lower;
    struct ts_rank_merge *set = ctx;
    return ts_rank_merge_read(set, higher) == 0 ? ts_rank_merge_write(set) : NULL;
}
