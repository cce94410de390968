/* Value syntax for the config: exact integers, OMP_PLACES, file name templates, rank grids. */
#include "ts_config_values.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integers in exact decimal arithmetic, so "2.5e3" is 2500 while "1.5" and "1e-1" are fractions
 * and 2^63 overflows, whatever a double would have rounded them to. Returns what is wrong, or
 * NULL. */
const char *ts_parse_int(const char *s, int64_t *out)
{
    static const char digits[] = "0123456789";
    bool neg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    const char *ip = s, *fp = "";
    size_t ni = strspn(s, digits), nf = 0;
    s += ni;
    if (*s == '.') {
        fp = ++s;
        nf = strspn(s, digits);
        s += nf;
    }
    if (ni + nf == 0)
        return "not an integer";
    long exp = 0;
    if (*s == 'e' || *s == 'E') {
        bool eneg = *++s == '-';
        if (*s == '+' || *s == '-')
            s++;
        size_t ne = strspn(s, digits);
        if (ne == 0)
            return "not an integer";
        for (size_t i = 0; i < ne; i++)
            if (exp < 100000) /* past this, any non-zero value overflows or is a fraction */
                exp = exp * 10 + (s[i] - '0');
        s += ne;
        if (eneg)
            exp = -exp;
    }
    if (*s)
        return "trailing characters after the number";
    /* The value is all the digits (integer part, then fraction) times 10^shift; with a
     * negative shift the last -shift digits are a fraction and must be zeros. */
    size_t nd = ni + nf;
    long shift = exp - (long)nf;
    size_t whole = shift >= 0 ? nd : (size_t)-shift >= nd ? 0 : nd - (size_t)-shift;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, mag = 0;
    for (size_t i = 0; i < nd; i++) {
        unsigned d = (unsigned)((i < ni ? ip[i] : fp[i - ni]) - '0');
        if (i >= whole && d != 0)
            return "not a whole number";
        if (i >= whole)
            continue;
        if (mag > (limit - d) / 10)
            return "out of range";
        mag = mag * 10 + d;
    }
    for (long i = 0; i < shift && mag; i++) {
        if (mag > limit / 10)
            return "out of range";
        mag *= 10;
    }
    *out = neg ? (mag ? -(int64_t)(mag - 1) - 1 : 0) : (int64_t)mag;
    return NULL;
}

static const char *skip_blanks(const char *s)
{
    return s + strspn(s, " \t");
}

/* Consumes c (after blanks) if it is next. */
static bool eat(const char **s, char c)
{
    const char *p = skip_blanks(*s);
    if (*p != c)
        return false;
    *s = p + 1;
    return true;
}

/* A decimal number; a count must be >= 1, a stride may be negative. */
static bool eat_number(const char **s, bool count)
{
    const char *p = skip_blanks(*s);
    if (!count && (*p == '-' || *p == '+'))
        p++;
    size_t n = strspn(p, "0123456789");
    if (n == 0 || (count && strspn(p, "0") == n))
        return false;
    *s = p + n;
    return true;
}

static bool eat_resource(const char **s)
{
    const char *p = skip_blanks(*s);
    if (*p == '-' || *p == '+')
        return false;
    return eat_number(s, false);
}

/* OpenMP's interval form: item[:count[:stride]], or !item to exclude it. */
static bool eat_interval(const char **s, bool (*item)(const char **))
{
    if (eat(s, '!'))
        return item(s);
    if (!item(s))
        return false;
    if (eat(s, ':') && (!eat_number(s, true) || (eat(s, ':') && !eat_number(s, false))))
        return false;
    return true;
}

static bool eat_place(const char **s)
{
    if (!eat(s, '{'))
        return false;
    do {
        if (!eat_interval(s, eat_resource))
            return false;
    } while (eat(s, ','));
    return eat(s, '}');
}

const char *const ts_places_names[] = { "threads", "cores", "sockets", "ll_caches", "numa_domains", NULL };
const char *const ts_policy_plain[] = { "firsttouch", "interleave", NULL };
const char *const ts_policy_with_node[] = { "bind", "preferred", NULL };

static bool eat_places(const char **p)
{
    for (const char *const *name = ts_places_names; *name; name++) {
        size_t n = strlen(*name);
        /* strchr also matches the terminator: a bare name is complete */
        if (strncmp(*p, *name, n) == 0 && strchr("( \t", (*p)[n])) {
            *p += n;
            return !eat(p, '(') || (eat_number(p, true) && eat(p, ')'));
        }
    }
    do {
        if (!eat_interval(p, eat_place))
            return false;
    } while (eat(p, ','));
    return true;
}

/* number[:count[:stride]] from *p; count 1 and stride 1 when absent. */
static bool read_interval(const char **p, long *first, long *count, long *stride)
{
    char *end;
    *count = 1;
    *stride = 1;
    *first = strtol(skip_blanks(*p), &end, 10);
    if (end == skip_blanks(*p))
        return false;
    *p = end;
    if (eat(p, ':')) {
        *count = strtol(*p, &end, 10);
        if (end == *p || *count < 1)
            return false;
        *p = end;
        if (eat(p, ':')) {
            *stride = strtol(*p, &end, 10);
            if (end == *p)
                return false;
            *p = end;
        }
    }
    return true;
}

/* first + i * stride as a CPU number; false when that leaves int, where no CPU is numbered. */
static bool cpu_number(long first, long i, long stride, int *cpu)
{
    long offset, value;
    if (__builtin_mul_overflow(i, stride, &offset) || __builtin_add_overflow(first, offset, &value) || value < INT_MIN
        || value > INT_MAX)
        return false;
    *cpu = (int)value;
    return true;
}

int ts_places_named_cpus(const char *s, int *cpus, int max)
{
    const char *p = skip_blanks(s);
    if (*p != '{' && *p != '!')
        return -1;
    int n = 0;
    do {
        int excluded_place = eat(&p, '!');
        if (!eat(&p, '{'))
            return -1;
        int place[256], size = 0;
        do {
            long first, count, stride;
            int excluded = eat(&p, '!');
            if (!read_interval(&p, &first, &count, &stride))
                return -1;
            for (long i = 0; i < count && !excluded && size < 256; i++)
                if (!cpu_number(first, i, stride, &place[size++]))
                    return -1;
        } while (eat(&p, ','));
        if (!eat(&p, '}'))
            return -1;
        long copies = 1, shift = 1;
        if (eat(&p, ':')) { /* a place interval: copies of the place, each shifted by the stride */
            char *end;
            copies = strtol(p, &end, 10);
            if (end == p || copies < 1)
                return -1;
            p = end;
            if (eat(&p, ':')) {
                shift = strtol(p, &end, 10);
                if (end == p)
                    return -1;
                p = end;
            }
        }
        /* copies can be huge: stop once cpus is full or the place is empty */
        for (long c = 0; c < copies && !excluded_place && size > 0 && n < max; c++)
            for (int i = 0; i < size && n < max; i++)
                if (!cpu_number(place[i], c, shift, &cpus[n++]))
                    return -1;
    } while (eat(&p, ','));
    return *skip_blanks(p) == '\0' ? n : -1;
}

bool ts_places_check(const char *s, char *why, size_t len)
{
    const char *p = s;
    if (eat_places(&p) && *skip_blanks(p) == '\0')
        return true;
    p = skip_blanks(p);
    snprintf(why, len, *p ? "invalid OMP_PLACES syntax at '%.24s'" : "invalid OMP_PLACES syntax: unexpected end", p);
    return false;
}

bool ts_policy_parse(const char *s, char *kind, size_t kind_len, int *node, char *why, size_t len)
{
    const char *const *plain = ts_policy_plain, *const *with_node = ts_policy_with_node;
    *node = -1;
    for (size_t i = 0; plain[i]; i++)
        if (strcmp(s, plain[i]) == 0) {
            snprintf(kind, kind_len, "%s", plain[i]);
            return true;
        }
    for (size_t i = 0; with_node[i]; i++) {
        size_t n = strlen(with_node[i]);
        if (strncmp(s, with_node[i], n) != 0 || s[n] != ':')
            continue;
        int64_t value;
        const char *problem = ts_parse_int(s + n + 1, &value);
        if (problem || value < 0 || value > 4095 || strchr(s + n + 1, 'e') || strchr(s + n + 1, 'E')) {
            snprintf(why, len, "'%s' needs a NUMA node number after ':'", with_node[i]);
            return false;
        }
        snprintf(kind, kind_len, "%s", with_node[i]);
        *node = (int)value;
        return true;
    }
    snprintf(why, len, "unknown policy");
    return false;
}

/* The axes of "AxB" or "AxBxC" into dims, or what is wrong. */
static const char *dims_axes(const char *s, int dims[3])
{
    const char *p = s;
    int n = 0;
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return "not auto or ranks per axis, x first, like 2x2 or 2x1x3";
        int64_t v = 0;
        while (isdigit((unsigned char)*p) && v <= TS_DIMS_MAX)
            v = v * 10 + (*p++ - '0');
        if (v < 1 || v > TS_DIMS_MAX || isdigit((unsigned char)*p))
            return "ranks per axis must be 1..1048576";
        if (n == 3)
            return "more than 3 axes";
        dims[n++] = (int)v;
        if (*p == '\0')
            break;
        if (*p++ != 'x')
            return "not auto or ranks per axis, x first, like 2x2 or 2x1x3";
    }
    return n < 2 ? "one axis; give AxB (stencil2d) or AxBxC (stencil3d)" : NULL;
}

bool ts_dims_parse(const char *s, int dims[3], char *why, size_t len)
{
    dims[0] = dims[1] = dims[2] = 0;
    if (strcmp(s, TS_DIMS_AUTO) == 0)
        return true;
    const char *problem = dims_axes(s, dims);
    if (!problem)
        return true;
    dims[0] = dims[1] = dims[2] = 0;
    snprintf(why, len, "%s", problem);
    return false;
}

bool ts_file_template_check(const char *s, char *why, size_t len)
{
    for (const char *p = s; *p; p++) {
        if ((unsigned char)*p < 0x20) {
            snprintf(why, len, "control character in a file name");
            return false;
        }
        if (*p != '%')
            continue;
        if (*++p == '\0') {
            snprintf(why, len, "lone '%%' at the end");
            return false;
        }
        if (!strchr("kijthp%", *p)) {
            snprintf(why, len, "unknown placeholder '%%%c'", *p);
            return false;
        }
    }
    return true;
}
