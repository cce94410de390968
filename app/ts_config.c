/* The run configuration. One key table drives defaults, the file and --set parsers (which
 * share one parse function per value type), validation, iteration and printing, so a key
 * added to the table is complete everywhere at once. */
#include "ts_config.h"

#include "config_values.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum key_type { T_INT, T_DOUBLE, T_ENUM, T_BOOL, T_PLACES, T_TEMPLATE, T_POLICY };

struct key {
    const char *section, *name;
    enum key_type type;
    size_t offset, size;   /* of the member in struct ts_config */
    const char *def;       /* the default, written as in a file, parsed like any other value */
    int64_t min, max;      /* T_INT */
    bool positive;         /* T_DOUBLE: must be > 0 */
    const char *choices;   /* T_ENUM: "a|b|c" */
    const char *doc;       /* what the key means; default and range are appended */
};

#define MEMBER(m) .offset = offsetof(struct ts_config, m), .size = sizeof(((struct ts_config *)0)->m)
#define INT_KEY(s, n, m, d, lo, hi, doc_) \
    {.section = s, .name = n, .type = T_INT, MEMBER(m), .def = d, .min = lo, .max = hi, .doc = doc_}
#define DOUBLE_KEY(s, n, m, d, pos, doc_) \
    {.section = s, .name = n, .type = T_DOUBLE, MEMBER(m), .def = d, .positive = pos, .doc = doc_}
#define ENUM_KEY(s, n, m, d, ch, doc_) \
    {.section = s, .name = n, .type = T_ENUM, MEMBER(m), .def = d, .choices = ch, .doc = doc_}
#define KEY(s, n, t, m, d, doc_) {.section = s, .name = n, .type = t, MEMBER(m), .def = d, .doc = doc_}

#define POW2(e) ((int64_t)1 << (e))

/* Keys of one section stay together: printing and the "known sections" list rely on it. */
static const struct key keys[] = {
    ENUM_KEY("run", "kernel", kernel, "stencil2d", "sum|triad|stencil2d|stencil3d", "kernel to run"),
    INT_KEY("run", "iterations", iterations, "100", 1, 1000000000, "timed iterations"),
    INT_KEY("run", "warmup", warmup, "1", 0, 1000000, "untimed iterations before the timed ones"),
    INT_KEY("sum", "n", sum_n, "50000000", 1, POW2(40), "elements summed"),
    ENUM_KEY("sum", "mode", sum_mode, "reproducible", "reproducible|fast",
             "reproducible: the same bits for any thread count; fast: one lane sum per thread, not reproducible"),
    INT_KEY("triad", "n", triad_n, "20000000", 1, POW2(40), "elements per array of a = b + scalar*c"),
    DOUBLE_KEY("triad", "scalar", triad_scalar, "3", false, "the scalar of the triad"),
    KEY("triad", "nontemporal", T_BOOL, triad_nontemporal, "false", "streaming stores of a (no write-allocate)"),
    INT_KEY("stencil", "nx", nx, "4096", 3, POW2(24), "grid points along x"),
    INT_KEY("stencil", "ny", ny, "4096", 3, POW2(24), "grid points along y"),
    INT_KEY("stencil", "nz", nz, "256", 3, POW2(20), "grid points along z, used by stencil3d only"),
    DOUBLE_KEY("stencil", "alpha", alpha, "0.1", true,
               "diffusion number; stable up to 0.25 for stencil2d and 1/6 for stencil3d"),
    KEY("stencil", "nontemporal", T_BOOL, stencil_nontemporal, "false",
        "streaming stores of u' (16 B/update instead of 24); not with time_block > 1"),
    INT_KEY("stencil", "time_block", time_block, "1", 1, 4096,
            "time steps per iteration, in one wavefront sweep over each thread's rows or planes"),
    INT_KEY("stencil", "block_y", block_y, "0", 0, POW2(24),
            "stencil3d: rows per spatial block; 0 picks the most whose layer condition holds in 512 KiB"),
    ENUM_KEY("init", "mode", init_mode, "parallel", "parallel|serial",
             "first touch by the computing threads (parallel) or by one thread (serial)"),
    INT_KEY("init", "seed", seed, "1", 0, INT64_MAX, "seed of the initial data"),
    KEY("init", "policy", T_POLICY, policy, "firsttouch",
        "NUMA policy of the arrays, set before the first touch: firsttouch (the kernel's default), "
        "interleave over all nodes, bind:N or preferred:N to node N"),
    KEY("init", "huge_pages", T_BOOL, huge_pages, "true",
        "back the arrays with 2 MiB transparent huge pages (madvise) when the kernel allows them and every "
        "thread's chunk spans at least 4 of them; first touch then places 2 MiB at a time"),
    INT_KEY("openmp", "threads", threads, "0", 0, 4096, "OpenMP threads, 0 for the OpenMP default"),
    KEY("openmp", "places", T_PLACES, places, "cores", "OMP_PLACES for the run"),
    ENUM_KEY("openmp", "proc_bind", proc_bind, "close", "close|spread|master|primary|true|false",
             "OMP_PROC_BIND for the run"),
    KEY("output", "file", T_TEMPLATE, file, TS_OUTPUT_FILE_DEFAULT,
             "HDF5 result file name: %k kernel, %i init mode, %j Slurm job id or local, %t timestamp, "
             "%h host, %p process id"),
    KEY("output", "overwrite", T_BOOL, overwrite, "false",
        "replace an existing output file and its checkpoint; otherwise a name given is refused when taken, "
        "and the default name becomes NAME-2.h5, NAME-3.h5, ..."),
    KEY("output", "write_field", T_BOOL, write_field, "false", "also store the final field or array"),
    INT_KEY("output", "checkpoint_every", checkpoint_every, "0", 0, 1000000000,
            "also write a checkpoint every N iterations (0: only when a signal stops the run)"),
    KEY("placement", "audit", T_BOOL, placement_audit, "true",
        "ask the kernel where every array's pages are after init (move_pages)"),
    INT_KEY("placement", "sample_stride", sample_stride, "0", 0, POW2(30),
            "audit every k-th page; 0 picks the smallest stride that keeps the audit under 2^18 pages per array"),
    KEY("placement", "at_end", T_BOOL, placement_at_end, "false", "audit again after the last iteration"),
};

#define N_KEYS (sizeof keys / sizeof keys[0])
_Static_assert(N_KEYS <= TS_CONFIG_MAX_KEYS, "origin[] in struct ts_config is indexed by the key table");

union value {
    int64_t i;
    double d;
    bool b;
};

static const char *const bool_words[][2] = {{"true", "false"}, {"yes", "no"}, {"on", "off"}, {"1", "0"}};

/* Text keys are stored as the string itself, the others as the parsed union member. */
static bool is_text(const struct key *k)
{
    return k->type == T_ENUM || k->type == T_PLACES || k->type == T_TEMPLATE || k->type == T_POLICY;
}

/* What the key accepts, phrased to follow both "must be " and "range ". */
static void range_text(const struct key *k, char *buf, size_t len)
{
    switch (k->type) {
    case T_INT: snprintf(buf, len, "%" PRId64 "..%" PRId64, k->min, k->max); break;
    case T_DOUBLE: snprintf(buf, len, "%s", k->positive ? "> 0" : "any finite number"); break;
    case T_ENUM: snprintf(buf, len, "%s", k->choices); break;
    case T_BOOL:
        buf[0] = '\0';
        for (size_t i = 0, used = 0; i < sizeof bool_words / sizeof bool_words[0] && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s|%s", i ? "|" : "", bool_words[i][0],
                                     bool_words[i][1]);
        break;
    case T_PLACES:
        snprintf(buf, len, "threads|cores|sockets|ll_caches|numa_domains, optionally with (N), "
                           "or an explicit list like {0:4},{4:4}");
        break;
    case T_TEMPLATE: snprintf(buf, len, "non-empty, placeholders %%k %%i %%j %%t %%h %%p %%%% only"); break;
    case T_POLICY: snprintf(buf, len, "firsttouch|interleave|bind:N|preferred:N"); break;
    }
}

static bool choice_ok(const char *choices, const char *s)
{
    size_t n = strlen(s);
    for (const char *c = choices; *c; c += strcspn(c, "|"), c += *c == '|') {
        if (strcspn(c, "|") == n && strncmp(c, s, n) == 0)
            return true;
    }
    return false;
}

/* The one parser of values, for the file, --set and the defaults. On error the message reads
 * "[section] name = text: what is wrong, must be <range>"; callers prefix where it was. */
static int parse_value(const struct key *k, const char *text, union value *v, struct ts_error *err)
{
    char why[128] = "";
    const char *problem = NULL;
    char *end;
    if (*text == '\0') {
        problem = "empty value";
    } else if (is_text(k) && strlen(text) >= k->size) {
        snprintf(why, sizeof why, "longer than %zu characters", k->size - 1);
    } else {
        switch (k->type) {
        case T_INT:
            problem = ts_parse_int(text, &v->i);
            if (!problem && (v->i < k->min || v->i > k->max))
                problem = "out of range";
            break;
        case T_DOUBLE:
            v->d = strtod(text, &end);
            if (end == text)
                problem = "not a number";
            else if (*end)
                problem = "trailing characters after the number";
            else if (!isfinite(v->d))
                problem = "not a finite number";
            else if (k->positive && !(v->d > 0))
                problem = "out of range";
            break;
        case T_BOOL:
            problem = "not a boolean";
            for (size_t i = 0; i < sizeof bool_words / sizeof bool_words[0]; i++) {
                for (int j = 0; j < 2; j++) {
                    if (strcasecmp(text, bool_words[i][j]) == 0) {
                        v->b = j == 0;
                        problem = NULL;
                    }
                }
            }
            break;
        case T_ENUM:
            if (!choice_ok(k->choices, text))
                problem = "unknown value";
            break;
        case T_PLACES: ts_places_check(text, why, sizeof why); break;
        case T_TEMPLATE: ts_file_template_check(text, why, sizeof why); break;
        case T_POLICY: {
            char kind[16];
            int node;
            ts_policy_parse(text, kind, sizeof kind, &node, why, sizeof why);
            break;
        }
        }
    }
    if (!problem && !why[0])
        return TS_OK;
    char range[160];
    range_text(k, range, sizeof range);
    return ts_fail(err, TS_BAD_INPUT, "[%s] %s = %s: %s, must be %s", k->section, k->name, text,
                   problem ? problem : why, range);
}

static void store_value(struct ts_config *cfg, const struct key *k, const char *text, const union value *v)
{
    char *dst = (char *)cfg + k->offset;
    if (is_text(k))
        memcpy(dst, text, strlen(text) + 1); /* length checked by parse_value */
    else
        memcpy(dst, v, k->size); /* the union's members all start at its first byte */
}

static void append_word(char *buf, size_t len, const char *word)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", word);
}

/* Finds a key, or fails naming the section's keys (or all sections) to pick from. */
static int find_key(const char *section, const char *name, size_t *index, struct ts_error *err)
{
    char known[512] = "";
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strcmp(keys[i].section, section) != 0)
            continue;
        if (strcmp(keys[i].name, name) == 0) {
            *index = i;
            return TS_OK;
        }
        append_word(known, sizeof known, keys[i].name);
    }
    if (known[0])
        return ts_fail(err, TS_BAD_INPUT, "unknown key '%s' in section [%s] (known keys: %s)", name, section,
                       known);
    for (size_t i = 0; i < N_KEYS; i++)
        if (i == 0 || strcmp(keys[i].section, keys[i - 1].section) != 0)
            append_word(known, sizeof known, keys[i].section);
    return ts_fail(err, TS_BAD_INPUT, "unknown section [%s] (known sections: %s)", section, known);
}

void ts_config_defaults(struct ts_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < N_KEYS; i++) {
        union value v;
        struct ts_error err;
        if (parse_value(&keys[i], keys[i].def, &v, &err) != TS_OK)
            abort(); /* the table contradicts itself: a bug the first test run catches */
        store_value(cfg, &keys[i], keys[i].def, &v);
    }
}

/* The longest config line inih takes (its buffer holds the newline and a NUL too). */
#define CONFIG_LINE_MAX (INI_MAX_LINE - 2)

/* Hands inih one line at a time from the file text, counting lines so the handler knows
 * where it is. A line longer than inih's buffer is refused rather than split: inih would
 * read the rest as a line of its own and every line number after it would be wrong. */
struct line_reader {
    const char *next, *current;
    int line;
    int too_long; /* the line that did not fit, or 0 */
    int max_len;
};

static char *read_line(char *buf, int num, void *stream)
{
    struct line_reader *r = stream;
    if (*r->next == '\0')
        return NULL;
    size_t n = strcspn(r->next, "\n");
    size_t take = n + (r->next[n] == '\n');
    r->line++;
    r->current = r->next;
    if (take + 1 > (size_t)num) {
        r->too_long = r->line;
        r->max_len = num - 2;
        return NULL;
    }
    memcpy(buf, r->next, take);
    buf[take] = '\0';
    r->next += take;
    return buf;
}

struct loader {
    struct ts_config *cfg;
    struct ts_error *err;
    struct line_reader reader;
    int err_line;                      /* the first line the handler rejected, or 0 */
    int seen[TS_CONFIG_MAX_KEYS];      /* the line each key was set at in this file */
    size_t last_key;
};

static int file_key(struct loader *ld, const char *section, const char *name, const char *value, int line)
{
    struct ts_config *cfg = ld->cfg;
    size_t ki;
    if (section[0] == '\0')
        return ts_fail(ld->err, TS_BAD_INPUT, "key '%s' outside any section (start the file with a [section])",
                       name);
    int rc = find_key(section, name, &ki, ld->err);
    if (rc)
        return rc;
    const struct key *k = &keys[ki];
    /* inih reads an indented line after a key as more of that key's value. */
    if (ld->seen[ki] && ki == ld->last_key &&
        (ld->reader.current[0] == ' ' || ld->reader.current[0] == '\t'))
        return ts_fail(ld->err, TS_BAD_INPUT,
                       "indented line continues the value of [%s] %s from line %d; remove the indentation",
                       k->section, k->name, ld->seen[ki]);
    if (ld->seen[ki])
        return ts_fail(ld->err, TS_BAD_INPUT, "duplicate key [%s] %s (first set at line %d)", k->section, k->name,
                       ld->seen[ki]);
    ld->seen[ki] = line;
    ld->last_key = ki;
    union value v;
    rc = parse_value(k, value, &v, ld->err);
    if (rc)
        return rc;
    /* A --set given before the file still wins: the command line overrides the file. */
    if (cfg->origin[ki].source != TS_CONFIG_SET) {
        store_value(cfg, k, value, &v);
        cfg->origin[ki] = (struct ts_config_origin){TS_CONFIG_FILE, line};
    }
    return TS_OK;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct loader *ld = user;
    if (ld->err_line)
        return 0; /* only the first error is reported */
    int line = ld->reader.line;
    if (file_key(ld, section, name, value, line) == TS_OK)
        return 1;
    ld->err_line = line;
    ts_error_prefix(ld->err, "%s:%d: ", ld->cfg->path, line);
    return 0;
}

/* Config files are small; anything bigger is not one (an HDF5 result given by mistake). */
#define MAX_CONFIG_BYTES (1 << 20)

static int read_text(const char *path, char **text, struct ts_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return ts_fail_errno(err, TS_BAD_INPUT, errno, "%s: cannot read config", path);
    char *buf = malloc(MAX_CONFIG_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_CONFIG_BYTES + 1, f) : 0;
    int read_errno = errno, rc = TS_OK;
    if (!buf)
        rc = ts_fail(err, TS_BAD_INPUT, "%s: out of memory reading the config", path);
    else if (ferror(f)) /* a directory opens fine and fails here, with EISDIR */
        rc = ts_fail_errno(err, TS_BAD_INPUT, read_errno, "%s: cannot read config", path);
    else if (n > MAX_CONFIG_BYTES)
        rc = ts_fail(err, TS_BAD_INPUT, "%s: not a config file (larger than %d bytes)", path, MAX_CONFIG_BYTES);
    else if (memchr(buf, '\0', n))
        rc = ts_fail(err, TS_BAD_INPUT, "%s: not a config file (contains NUL bytes)", path);
    fclose(f);
    if (rc != TS_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    char *fit = realloc(buf, n + 1);
    *text = fit ? fit : buf;
    return TS_OK;
}

int ts_config_load(struct ts_config *cfg, const char *path, struct ts_error *err)
{
    if (cfg->text)
        return ts_fail(err, TS_BAD_INPUT, "%s: a config file is already loaded (%s)", path, cfg->path);
    if (strlen(path) >= sizeof cfg->path)
        return ts_fail(err, TS_BAD_INPUT, "%.64s...: config path longer than %zu characters", path,
                       sizeof cfg->path - 1);
    int rc = read_text(path, &cfg->text, err);
    if (rc)
        return rc;
    memcpy(cfg->path, path, strlen(path) + 1);

    struct loader ld = {.cfg = cfg, .err = err, .reader = {.next = cfg->text}};
    int bad = ini_parse_stream(read_line, &ld.reader, on_key, &ld);
    /* inih returns the first line it or the handler rejected; the handler's own message wins
     * on its line, inih's syntax complaint on an earlier one. */
    if (bad > 0 && (ld.err_line == 0 || bad < ld.err_line)) {
        const char *line = cfg->text;
        for (int i = 1; i < bad && line[strcspn(line, "\n")]; i++)
            line += strcspn(line, "\n") + 1;
        int shown = (int)strcspn(line, "\r\n");
        return ts_fail(err, TS_BAD_INPUT, "%s:%d: syntax error (expected 'key = value' or '[section]'): %.*s", path,
                       bad, shown < 80 ? shown : 80, line);
    }
    if (ld.err_line)
        return err->status;
    if (bad < 0)
        return ts_fail(err, TS_BAD_INPUT, "%s: out of memory parsing the config", path);
    if (ld.reader.too_long)
        return ts_fail(err, TS_BAD_INPUT, "%s:%d: line too long (at most %d characters)", path, ld.reader.too_long,
                       ld.reader.max_len);
    return TS_OK;
}

static char *trim(char *s)
{
    s += strspn(s, " \t");
    size_t n = strlen(s);
    while (n && strchr(" \t", s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Whether inih would cut this value at an inline comment: a ';' after a space. */
static bool has_inline_comment(const char *value)
{
    for (const char *c = strchr(value, ';'); c; c = strchr(c + 1, ';'))
        if (c > value && isspace((unsigned char)c[-1]))
            return true;
    return false;
}

int ts_config_set(struct ts_config *cfg, const char *assignment, struct ts_error *err)
{
    char buf[sizeof cfg->sets[0]];
    if (cfg->n_sets >= TS_CONFIG_MAX_SETS)
        return ts_fail(err, TS_BAD_INPUT, "--set %s: too many --set arguments (at most %d)", assignment,
                       TS_CONFIG_MAX_SETS);
    if (strlen(assignment) >= sizeof buf)
        return ts_fail(err, TS_BAD_INPUT, "--set %.64s...: longer than %zu characters", assignment, sizeof buf - 1);
    memcpy(buf, assignment, strlen(assignment) + 1);
    char *eq = strchr(buf, '=');
    char *dot = eq ? memchr(buf, '.', (size_t)(eq - buf)) : NULL;
    if (dot)
        *dot = *eq = '\0';
    char *section = trim(buf), *name = dot ? trim(dot + 1) : NULL, *value = dot ? trim(eq + 1) : NULL;
    if (!dot || !section[0] || !name[0])
        return ts_fail(err, TS_BAD_INPUT, "--set %s: expected section.key=value, e.g. stencil.nx=1024", assignment);

    size_t ki;
    union value v;
    int rc = find_key(section, name, &ki, err);
    if (rc == TS_OK && strlen(name) + 1 + strlen(value) > CONFIG_LINE_MAX)
        rc = ts_fail(err, TS_BAD_INPUT, "%s=<%zu characters> does not fit a config line (at most %d characters), "
                     "and touchstone check must print it as one", name, strlen(value), CONFIG_LINE_MAX);
    if (rc == TS_OK && has_inline_comment(value))
        rc = ts_fail(err, TS_BAD_INPUT, "a ';' after a space starts a comment in a config file, so touchstone "
                     "check could not print this value");
    if (rc == TS_OK)
        rc = parse_value(&keys[ki], value, &v, err);
    if (rc) {
        ts_error_prefix(err, "--set %s: ", assignment);
        return rc;
    }
    store_value(cfg, &keys[ki], value, &v);
    memcpy(cfg->sets[cfg->n_sets++], assignment, strlen(assignment) + 1);
    cfg->origin[ki] = (struct ts_config_origin){TS_CONFIG_SET, cfg->n_sets};
    return TS_OK;
}

static size_t key_index(const char *section, const char *name)
{
    size_t i = 0;
    while (strcmp(keys[i].section, section) != 0 || strcmp(keys[i].name, name) != 0)
        i++;
    return i;
}

int ts_config_validate(const struct ts_config *cfg, struct ts_error *err)
{
    /* Explicit (forward Euler) diffusion on the 2d+1-point stencil is stable for alpha <= 1/(2d). */
    int dims = strcmp(cfg->kernel, "stencil2d") == 0 ? 2 : strcmp(cfg->kernel, "stencil3d") == 0 ? 3 : 0;
    if (dims && !(cfg->alpha <= 1.0 / (2 * dims))) {
        size_t ka = key_index("stencil", "alpha"), kk = key_index("run", "kernel");
        char alpha[64], alpha_at[sizeof cfg->path + 16], kernel_at[sizeof cfg->path + 16];
        ts_config_value_string(cfg, ka, alpha, sizeof alpha);
        ts_config_origin_string(cfg, ka, alpha_at, sizeof alpha_at);
        ts_config_origin_string(cfg, kk, kernel_at, sizeof kernel_at);
        return ts_fail(err, TS_BAD_INPUT,
                       "[stencil] alpha = %s (%s) is unstable for kernel %s (%s): the explicit scheme "
                       "diverges unless alpha <= %s",
                       alpha, alpha_at, cfg->kernel, kernel_at, dims == 2 ? "0.25" : "1/6 (0.1666...)");
    }
    return TS_OK;
}

void ts_config_free(struct ts_config *cfg)
{
    free(cfg->text);
    cfg->text = NULL;
    cfg->path[0] = '\0';
}

size_t ts_config_key_count(void)
{
    return N_KEYS;
}

/* "section.key" and the doc line need storage that outlives the call; built once, before
 * any threads exist (the config is read at start-up). */
static char key_names[N_KEYS][64];
static char key_docs[N_KEYS][384];

static void build_key_text(void)
{
    if (key_names[0][0])
        return;
    for (size_t i = 0; i < N_KEYS; i++) {
        const struct key *k = &keys[i];
        char range[160];
        range_text(k, range, sizeof range);
        snprintf(key_names[i], sizeof key_names[i], "%s.%s", k->section, k->name);
        snprintf(key_docs[i], sizeof key_docs[i], "%s (default %s, range %s)", k->doc, k->def, range);
    }
}

const char *ts_config_key_name(size_t index)
{
    if (index >= N_KEYS)
        return NULL;
    build_key_text();
    return key_names[index];
}

const char *ts_config_key_doc(size_t index)
{
    if (index >= N_KEYS)
        return NULL;
    build_key_text();
    return key_docs[index];
}

void ts_config_value_string(const struct ts_config *cfg, size_t index, char *buf, size_t len)
{
    if (index >= N_KEYS || len == 0)
        return;
    const struct key *k = &keys[index];
    const char *src = (const char *)cfg + k->offset;
    union value v;
    if (!is_text(k))
        memcpy(&v, src, k->size);
    switch (k->type) {
    case T_INT: snprintf(buf, len, "%" PRId64, v.i); break;
    case T_DOUBLE:
        /* The shortest text that reads back as the same double: 0.1, not 0.10000000000000001. */
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(buf, len, "%.*g", digits, v.d);
            if (strtod(buf, NULL) == v.d)
                break;
        }
        break;
    case T_BOOL: snprintf(buf, len, "%s", v.b ? "true" : "false"); break;
    default: snprintf(buf, len, "%s", src); break;
    }
}

void ts_config_origin_string(const struct ts_config *cfg, size_t index, char *buf, size_t len)
{
    if (index >= N_KEYS || len == 0)
        return;
    struct ts_config_origin o = cfg->origin[index];
    switch (o.source) {
    case TS_CONFIG_DEFAULT: snprintf(buf, len, "default"); break;
    case TS_CONFIG_FILE: snprintf(buf, len, "%s:%d", cfg->path, o.line); break;
    case TS_CONFIG_SET: snprintf(buf, len, "--set #%d", o.line); break;
    }
}

void ts_config_print(const struct ts_config *cfg, FILE *out)
{
    fprintf(out, "; touchstone configuration: every key, its value, and where the value came from\n");
    for (size_t i = 0; i < N_KEYS; i++) {
        char value[sizeof cfg->file], origin[sizeof cfg->path + 16];
        ts_config_value_string(cfg, i, value, sizeof value);
        ts_config_origin_string(cfg, i, origin, sizeof origin);
        if (i == 0 || strcmp(keys[i].section, keys[i - 1].section) != 0)
            fprintf(out, "%s[%s]\n", i ? "\n" : "", keys[i].section);
        /* Every printed line must fit a config line, or the output would not load back: a
         * long value moves its origin to a comment line of its own (a long path cut short).
         * A value starting with ';' follows the '=' directly: after a space it is a comment. */
        int width = (int)(strlen(keys[i].name) + 3 + strlen(value));
        bool tight = value[0] == ';';
        if (width + 3 + (int)strlen(origin) > CONFIG_LINE_MAX) {
            fprintf(out, "; %.*s\n", CONFIG_LINE_MAX - 2, origin);
            fprintf(out, "%s%s%s\n", keys[i].name, width > CONFIG_LINE_MAX || tight ? "=" : " = ", value);
            continue;
        }
        int used = fprintf(out, "%s %s%s", keys[i].name, tight ? "=" : "= ", value);
        fprintf(out, "%*s; %s\n", used < 32 ? 32 - used : 1, "", origin);
    }
}
