/* The run configuration. One key table drives defaults, the file and --set parsers (which
 * share one parse function per value type), validation, iteration and printing, so a key
 * added to the table is complete everywhere at once. */
#include "ts_config.h"

#include "ts_config_values.h"

#include <ctype.h>
#include <ini.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ts_read.h"
#include "ts_utf8.h"

enum key_type { T_INT, T_DOUBLE, T_ENUM, T_BOOL, T_PLACES, T_TEMPLATE, T_POLICY, T_DIMS };

struct key {
    const char *section, *name;
    enum key_type type;
    size_t offset, size; /* of the member in struct ts_config */
    const char *def;     /* the default, written as in a file, parsed like any other value */
    int64_t min, max;    /* T_INT */
    bool positive;       /* T_DOUBLE: must be > 0 */
    const char *choices; /* T_ENUM: "a|b|c" */
    const char *doc;     /* what the key means; default and range are appended */
};

#define MEMBER(m) .offset = offsetof(struct ts_config, m), .size = sizeof(((struct ts_config *)0)->m)
/* One line each: clang-format 14 spreads a braced initialiser in a macro over four. */
/* clang-format off */
#define INT_KEY(s, n, m, d, lo, hi, doc_) \
    {.section = s, .name = n, .type = T_INT, MEMBER(m), .def = d, .min = lo, .max = hi, .doc = doc_}
#define DOUBLE_KEY(s, n, m, d, pos, doc_) \
    {.section = s, .name = n, .type = T_DOUBLE, MEMBER(m), .def = d, .positive = pos, .doc = doc_}
#define ENUM_KEY(s, n, m, d, ch, doc_) \
    {.section = s, .name = n, .type = T_ENUM, MEMBER(m), .def = d, .choices = ch, .doc = doc_}
#define KEY(s, n, t, m, d, doc_) {.section = s, .name = n, .type = t, MEMBER(m), .def = d, .doc = doc_}
/* clang-format on */

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
            "stencil3d: rows per spatial block, or per wavefront tile with time_block > 1; 0 picks them"),
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
    ENUM_KEY("check", "binding", check_binding, "off", "off|strict",
             "strict: before the timed iterations, judge the threads' binding against touchstone advise's plan; "
             "a binding that loses stops the run (exit 1) with the findings"),
    KEY("mpi", "dims", T_DIMS, dims_text, "auto",
        "stencils under an MPI launcher: ranks along x, y (and z), x first; auto: of the rank grids that fit the "
        "grid, the one with the fewest halo points (ties: MPI_Dims_create's grid, most ranks along the slowest axis)"),
};

#define N_KEYS (sizeof keys / sizeof keys[0])
_Static_assert(N_KEYS <= TS_CONFIG_MAX_KEYS, "origin[] in struct ts_config is indexed by the key table");

union value {
    int64_t i;
    double d;
    bool b;
};

static const char *const bool_words[][2] = { { "true", "false" }, { "yes", "no" }, { "on", "off" }, { "1", "0" } };

/* Text keys are stored as the string itself, the others as the parsed union member. */
static bool is_text(const struct key *k)
{
    return k->type == T_ENUM || k->type == T_PLACES || k->type == T_TEMPLATE || k->type == T_POLICY
           || k->type == T_DIMS;
}

/* The words of list, each followed by suffix, joined by '|' into buf. */
static void join_words(char *buf, size_t len, const char *const *list, const char *suffix)
{
    buf[0] = '\0';
    for (size_t i = 0, used = 0; list[i] && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s%s", i ? "|" : "", list[i], suffix);
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
            used +=
                (size_t)snprintf(buf + used, len - used, "%s%s|%s", i ? "|" : "", bool_words[i][0], bool_words[i][1]);
        break;
    case T_PLACES:
        join_words(buf, len, ts_places_names, "");
        snprintf(buf + strlen(buf), len - strlen(buf), ", optionally with (N), or an explicit list like {0:4},{4:4}");
        break;
    case T_TEMPLATE: snprintf(buf, len, "non-empty, placeholders %%k %%i %%j %%t %%h %%p %%%% only"); break;
    case T_POLICY:
        join_words(buf, len, ts_policy_plain, "");
        snprintf(buf + strlen(buf), len - strlen(buf), "|");
        join_words(buf + strlen(buf), len - strlen(buf), ts_policy_with_node, ":N");
        break;
    case T_DIMS: snprintf(buf, len, "auto|AxB|AxBxC (positive integers)"); break;
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
 * "what is wrong, must be <range>"; callers prefix the key and where it was. */
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
        case T_DIMS: {
            int dims[3];
            ts_dims_parse(text, dims, why, sizeof why);
            break;
        }
        }
    }
    if (!problem && !why[0])
        return TS_OK;
    char range[160];
    range_text(k, range, sizeof range);
    return ts_fail(err, TS_BAD_INPUT, "%s, must be %s", problem ? problem : why, range);
}

static void store_value(struct ts_config *cfg, const struct key *k, const char *text, const union value *v)
{
    char *dst = (char *)cfg + k->offset;
    if (is_text(k))
        memcpy(dst, text, strlen(text) + 1); /* length checked by parse_value */
    else
        memcpy(dst, v, k->size); /* the union's members all start at its first byte */
    if (k->type == T_DIMS) {
        char why[128];
        ts_dims_parse(text, cfg->dims, why, sizeof why); /* the numbers next to the text, already checked */
    }
}

static void append_word(char *buf, size_t len, const char *word)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", word);
}

static void section_list(char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < N_KEYS; i++)
        if (i == 0 || strcmp(keys[i].section, keys[i - 1].section) != 0)
            append_word(buf, len, keys[i].section);
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
        return ts_fail(err, TS_BAD_INPUT, "unknown key '%s' in section [%s] (known keys: %s)", name, section, known);
    section_list(known, sizeof known);
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

/* Lines end at LF, CRLF or a lone CR (old Mac files), all alike; inih itself splits at LF
 * only and would read a CR-only file as one line, ignoring all of it after the first ']'. */
static size_t line_length(const char *s)
{
    return strcspn(s, "\r\n");
}

static const char *next_line(const char *s)
{
    size_t n = line_length(s);
    if (s[n] == '\r' && s[n + 1] == '\n')
        return s + n + 2;
    return s + n + (s[n] != '\0');
}

static bool known_section(const char *name, size_t n)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (strlen(keys[i].section) == n && strncmp(keys[i].section, name, n) == 0)
            return true;
    return false;
}

/* The most errors of one config a message lists; the rest are counted ("... and 3 more"). */
#define MAX_LISTED_ERRORS 20

/* Hands inih one line at a time from the file text, counting lines so the handler knows
 * where it is, and checks what inih would pass over in silence. A section line is checked
 * here, before inih drops whatever follows its ']' and whether or not keys follow it. A line
 * longer than inih's buffer is refused rather than split: inih would read the rest as a line
 * of its own and every line number after it would be wrong. Every error of the file is
 * collected (each with its line), not only the first: a refused line reaches inih as an empty
 * one, so that the lines after it are still read and checked. */
struct loader {
    struct ts_config *cfg;
    struct ts_error *err;
    const char *next, *current; /* the line to hand out next; the one inih has now */
    int line;
    bool after_key;   /* a key since the last section line (inih's prev_name) */
    bool bad_section; /* the current section's header was refused: its keys are not checked */
    bool keep_line;   /* the line refused still goes to inih (a section line: its keys follow) */
    int last_key_line;
    int seen[TS_CONFIG_MAX_KEYS]; /* the line each key was set at in this file */
    int n_errors, listed;         /* errors found; errors in `errors` */
    int first_status;
    size_t used;
    char errors[sizeof((struct ts_error *)0)->message];
    int error_lines[MAX_LISTED_ERRORS];
};

/* Adds the error now in ld->err, found at line, to the list. */
static void add_error(struct loader *ld, int line)
{
    if (ld->n_errors++ == 0)
        ld->first_status = ld->err->status;
    /* Room for this line and for the "... and N more" that may follow. */
    size_t room = sizeof ld->errors - ld->used, more = 64;
    int n = snprintf(ld->errors + ld->used, room > more ? room - more : 0, "%s%s:%d: %s", ld->listed ? "\n  " : "",
                     ld->cfg->path, line, ld->err->message);
    if (ld->listed < MAX_LISTED_ERRORS && n > 0 && (size_t)n < (room > more ? room - more : 0)) {
        ld->error_lines[ld->listed++] = line;
        ld->used += (size_t)n;
    } else {
        ld->errors[ld->used] = '\0';
    }
}

/* The errors collected, as one message in err: the first as a single error reads, each other on
 * a line of its own below it. */
static int report_errors(struct loader *ld)
{
    int unlisted = ld->n_errors - ld->listed;
    if (unlisted > 0)
        snprintf(ld->errors + ld->used, sizeof ld->errors - ld->used, "\n  ... and %d more error%s in %s", unlisted,
                 unlisted == 1 ? "" : "s", ld->cfg->path);
    return ts_fail(ld->err, ld->first_status, "%s", ld->errors);
}

/* Whether line was listed as an error already. */
static bool error_listed(const struct loader *ld, int line)
{
    for (int i = 0; i < ld->listed; i++)
        if (ld->error_lines[i] == line)
            return true;
    return false;
}

/* Where inih's find_chars_or_comment stops in s: at one of chars, or at a ';' after a blank
 * (an inline comment), or at the end. */
static const char *inih_find(const char *s, const char *chars)
{
    bool blank = false;
    for (; *s && !strchr(chars, *s) && !(blank && *s == ';'); s++)
        blank = isspace((unsigned char)*s);
    return s;
}

/* A line that inih reads as "[section]": the section must be known, and after the ']' may come
 * only blanks or a comment, which starts with ';' or '#' with or without a blank before it
 * (docs/configuration.md). A line that is neither blank, a comment, a section line nor
 * "key = value" (or "key: value") is a syntax error, as inih would call it. Other lines pass.
 * Sets ld->bad_section for a section line refused. */
static int check_line(struct loader *ld, const char *line)
{
    const char *p = line;
    if (ld->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0) /* inih skips a BOM on the first line */
        p += 3;
    while (isspace((unsigned char)*p))
        p++;
    /* An indented line after a key is more of that key's value to inih, whatever it holds. */
    if (*p == '\0' || *p == ';' || *p == '#' || (p > line && ld->after_key))
        return TS_OK;
    if (*p != '[') {
        const char *end = inih_find(p, "=:");
        if (*end == '=' || *end == ':')
            return TS_OK;
        size_t shown = line_length(p);
        return ts_fail(ld->err, TS_BAD_INPUT, "syntax error (expected 'key = value' or '[section]'): %.*s",
                       (int)(shown < 80 ? shown : 80), p);
    }
    ld->after_key = false;
    ld->bad_section = true; /* until the header is found good */
    /* The name ends where inih ends it: at the first ']', unless a comment (';' after a blank)
     * comes first, which leaves the line without ']', a syntax error inih reports. */
    const char *end = inih_find(p + 1, "]");
    if (*end != ']') {
        size_t shown = line_length(p);
        return ts_fail(ld->err, TS_BAD_INPUT, "syntax error (a section header without its ']'): %.*s",
                       (int)(shown < 80 ? shown : 80), p);
    }
    int name_len = (int)(end - p - 1);
    const char *rest = end + 1;
    while (isspace((unsigned char)*rest))
        rest++;
    ld->keep_line = true;
    ld->bad_section = !known_section(p + 1, (size_t)name_len);
    if (*rest && *rest != ';' && *rest != '#')
        return ts_fail(ld->err, TS_BAD_INPUT,
                       "text after the section header [%.*s]: '%.*s' (a section line holds only the header and "
                       "a comment; put each key on a line of its own)",
                       name_len, p + 1, (int)line_length(rest), rest);
    if (ld->bad_section) {
        char known[256];
        section_list(known, sizeof known);
        return ts_fail(ld->err, TS_BAD_INPUT, "unknown section [%.*s] (known sections: %s)", name_len, p + 1, known);
    }
    return TS_OK;
}

static char *read_line(char *buf, int num, void *stream)
{
    struct loader *ld = stream;
    if (*ld->next == '\0')
        return NULL;
    size_t n = line_length(ld->next);
    ld->line++;
    ld->current = ld->next;
    ld->next = next_line(ld->next);
    int rc;
    ld->keep_line = false;
    if (n + 2 > (size_t)num) {
        rc = ts_fail(ld->err, TS_BAD_INPUT, "line too long (at most %d characters)", num - 2);
    } else {
        memcpy(buf, ld->current, n);
        buf[n] = '\n';
        buf[n + 1] = '\0';
        rc = check_line(ld, buf);
    }
    if (rc == TS_OK)
        return buf;
    add_error(ld, ld->line);
    /* inih sees a section line refused for what follows its ']' or for its name (the keys of an
     * unknown section are then not refused one by one); any other refused line as an empty one. */
    if (!ld->keep_line)
        snprintf(buf, (size_t)num, "\n");
    return buf;
}

/* A value that a config line would not carry as its writer meant it, or NULL. inih ends a
 * value at a ';' after a blank (a comment) but keeps a '#' there and any quotes. */
static const char *misread_value(const char *value)
{
    for (const char *c = strchr(value, '#'); c; c = strchr(c + 1, '#'))
        if (c > value && isspace((unsigned char)c[-1]))
            return "'#' after a blank (a comment after a value starts with ';' instead)";
    size_t n = strlen(value);
    if (n >= 2 && (value[0] == '"' || value[0] == '\'') && value[n - 1] == value[0])
        return "quotes are part of the value (write it without them)";
    return NULL;
}

static int file_key(struct loader *ld, const char *section, const char *name, const char *value)
{
    struct ts_config *cfg = ld->cfg;
    size_t ki;
    if (section[0] == '\0')
        return ts_fail(ld->err, TS_BAD_INPUT, "key '%s' outside any section (start the file with a [section])", name);
    int rc = find_key(section, name, &ki, ld->err);
    if (rc)
        return rc;
    const struct key *k = &keys[ki];
    if (ld->seen[ki])
        return ts_fail(ld->err, TS_BAD_INPUT, "duplicate key [%s] %s (first set at line %d)", k->section, k->name,
                       ld->seen[ki]);
    ld->seen[ki] = ld->line;
    union value v;
    const char *misread = misread_value(value);
    rc = misread ? ts_fail(ld->err, TS_BAD_INPUT, "%s", misread) : parse_value(k, value, &v, ld->err);
    if (rc) {
        ts_error_prefix(ld->err, "[%s] %s = %s: ", k->section, k->name, value);
        return rc;
    }
    /* A --set given before the file still wins: the command line overrides the file. */
    if (cfg->origin[ki].source != TS_CONFIG_SET) {
        store_value(cfg, k, value, &v);
        cfg->origin[ki] = (struct ts_config_origin){ TS_CONFIG_FILE, ld->line };
    }
    return TS_OK;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct loader *ld = user;
    if (ld->bad_section)
        return 1; /* its header is refused already */
    /* inih reads an indented line after a key as more of that key's value (name is that key). */
    bool continued = ld->after_key && isspace((unsigned char)ld->current[0]);
    ld->after_key = true;
    int rc = continued ? ts_fail(ld->err, TS_BAD_INPUT,
                                 "indented line continues the value of [%s] %s from line %d; remove the indentation",
                                 section, name, ld->last_key_line)
                       : file_key(ld, section, name, value);
    if (!continued)
        ld->last_key_line = ld->line;
    if (rc != TS_OK)
        add_error(ld, ld->line);
    return 1; /* on to the next line: every error of the file is reported */
}

/* Config files are small; anything bigger is not one (an HDF5 result given by mistake). */
#define MAX_CONFIG_BYTES (1 << 20)

int ts_config_read(const char *path, char **text, size_t *len, struct ts_error *err)
{
    const struct ts_read_limits limits = { .what = "config", .max_bytes = MAX_CONFIG_BYTES };
    return ts_read_file(path, &limits, text, len, err);
}

/* Where byte offset at of text is: its line (as read_line counts) and column, from 1. */
static void position_of(const char *text, size_t at, int *line, size_t *column)
{
    const char *start = text;
    *line = 1;
    for (const char *next = next_line(start); (size_t)(next - text) <= at && *next; next = next_line(start)) {
        start = next;
        (*line)++;
    }
    *column = (size_t)(text + at - start) + 1;
}

int ts_config_load_text(struct ts_config *cfg, const char *path, const char *text, size_t len, struct ts_error *err)
{
    if (cfg->text)
        return ts_fail(err, TS_INTERNAL_ERROR, "%s: a config file is already loaded (%s)", path, cfg->path);
    if (strlen(path) >= sizeof cfg->path)
        return ts_fail(err, TS_BAD_INPUT, "%.64s...: config path longer than %zu characters", path,
                       sizeof cfg->path - 1);
    if (len > MAX_CONFIG_BYTES)
        return ts_fail(err, TS_BAD_INPUT, "%s: not a config file (larger than %d bytes)", path, MAX_CONFIG_BYTES);
    if (memchr(text, '\0', len))
        return ts_fail(err, TS_BAD_INPUT, "%s: not a config file (contains NUL bytes)", path);
    /* The text is stored in the run file as a UTF-8 string, which readers decode. */
    size_t valid = ts_utf8_valid_prefix(text, len);
    if (valid < len) {
        int line;
        size_t column;
        position_of(text, valid, &line, &column);
        return ts_fail(err, TS_BAD_INPUT,
                       "%s:%d: not valid UTF-8 at column %zu (byte 0x%02x, offset %zu in the "
                       "file); save the config as UTF-8",
                       path, line, column, (unsigned char)text[valid], valid);
    }
    if (!(cfg->text = malloc(len + 1)))
        return ts_fail(err, TS_RESOURCE_ERROR, "%s: out of memory reading the config", path);
    memcpy(cfg->text, text, len);
    cfg->text[len] = '\0';
    memcpy(cfg->path, path, strlen(path) + 1);

    struct loader ld = { .cfg = cfg, .err = err, .next = cfg->text };
    int bad = ini_parse_stream(read_line, &ld, on_key, &ld);
    if (bad < 0)
        return ts_fail(err, TS_RESOURCE_ERROR, "%s: out of memory parsing the config", path);
    /* inih returns the first line it rejected; the loader finds inih's syntax errors itself,
     * so this is one it missed. */
    if (bad > 0 && !error_listed(&ld, bad)) {
        const char *line = cfg->text;
        for (int i = 1; i < bad && *line; i++)
            line = next_line(line);
        int shown = (int)line_length(line);
        ts_fail(err, TS_BAD_INPUT, "syntax error (expected 'key = value' or '[section]'): %.*s",
                shown < 80 ? shown : 80, line);
        add_error(&ld, bad);
    }
    return ld.n_errors ? report_errors(&ld) : TS_OK;
}

int ts_config_load(struct ts_config *cfg, const char *path, struct ts_error *err)
{
    if (cfg->text)
        return ts_fail(err, TS_INTERNAL_ERROR, "%s: a config file is already loaded (%s)", path, cfg->path);
    if (strlen(path) >= sizeof cfg->path)
        return ts_fail(err, TS_BAD_INPUT, "%.64s...: config path longer than %zu characters", path,
                       sizeof cfg->path - 1);
    char *text;
    size_t len;
    int rc = ts_config_read(path, &text, &len, err);
    if (rc)
        return rc;
    rc = ts_config_load_text(cfg, path, text, len, err);
    free(text);
    return rc;
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

/* Applies an override; errors say what is wrong, the caller says where (the argument). The
 * value must be one a config file could hold, as `check` prints the config as one. */
static int apply_set(struct ts_config *cfg, const char *assignment, bool shorthand, struct ts_error *err)
{
    char buf[sizeof cfg->sets[0]];
    size_t length = strlen(assignment);
    if (cfg->n_sets >= TS_CONFIG_MAX_SETS)
        return ts_fail(err, TS_BAD_INPUT, "too many --set arguments (at most %d)", TS_CONFIG_MAX_SETS);
    if (length >= sizeof buf)
        return ts_fail(err, TS_BAD_INPUT, "longer than %zu characters", sizeof buf - 1);
    size_t valid = ts_utf8_valid_prefix(assignment, length);
    if (valid < length) {
        const char *eq = strchr(assignment, '=');
        size_t shown_from = shorthand && eq && eq < assignment + valid ? (size_t)(eq + 1 - assignment) : 0;
        return ts_fail(err, TS_BAD_INPUT, "not valid UTF-8 at byte %zu (0x%02x); config values are UTF-8 text",
                       valid - shown_from + 1, (unsigned char)assignment[valid]);
    }
    memcpy(buf, assignment, length + 1);
    char *eq = strchr(buf, '=');
    char *dot = eq ? memchr(buf, '.', (size_t)(eq - buf)) : NULL;
    if (dot)
        *dot = *eq = '\0';
    char *section = trim(buf), *name = dot ? trim(dot + 1) : NULL, *value = dot ? trim(eq + 1) : NULL;
    if (!dot || !section[0] || !name[0])
        return ts_fail(err, TS_BAD_INPUT, "expected section.key=value, e.g. stencil.nx=1024");

    size_t ki;
    union value v;
    int rc = find_key(section, name, &ki, err);
    if (rc)
        return rc;
    const struct key *k = &keys[ki];
    const char *misread = misread_value(value);
    if (strlen(name) + 1 + strlen(value) > CONFIG_LINE_MAX)
        rc = ts_fail(err, TS_BAD_INPUT,
                     "%s=<%zu characters> does not fit a config line (at most %d characters), "
                     "and touchstone check must print it as one",
                     name, strlen(value), CONFIG_LINE_MAX);
    else if (has_inline_comment(value))
        rc = ts_fail(err, TS_BAD_INPUT,
                     "a ';' after a space starts a comment in a config file, so touchstone "
                     "check could not print this value");
    else if (misread) /* refused in a file too, so check could not print it */
        rc = ts_fail(err, TS_BAD_INPUT, "%s", misread);
    else
        rc = parse_value(k, value, &v, err);
    if (rc) {
        if (!shorthand)
            ts_error_prefix(err, "[%s] %s = %s: ", k->section, k->name, value);
        return rc;
    }
    store_value(cfg, k, value, &v);
    memcpy(cfg->sets[cfg->n_sets++], assignment, length + 1);
    cfg->origin[ki] = (struct ts_config_origin){ TS_CONFIG_SET, cfg->n_sets };
    return TS_OK;
}

int ts_config_set_option(struct ts_config *cfg, const char *assignment, const char *option, struct ts_error *err)
{
    int rc = apply_set(cfg, assignment, option != NULL, err);
    if (rc == TS_OK)
        return rc;
    /* The argument as typed: "--set stencil.nx=abc", "--threads 5000", "-o out.h5". */
    const char *eq = strchr(assignment, '=');
    char *shown = ts_utf8_escape(option && eq ? eq + 1 : assignment);
    const char *text = !shown ? "?" : shown[0] ? shown : "''";
    const char *cut = strlen(text) > 200 ? "..." : "";
    ts_error_prefix(err, "%s %.200s%s: ", option ? option : "--set", text, cut);
    free(shown);
    return rc;
}

int ts_config_set(struct ts_config *cfg, const char *assignment, struct ts_error *err)
{
    return ts_config_set_option(cfg, assignment, NULL, err);
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
    /* Explicit rank grids have one axis per grid axis; their product is the app's to check
     * against the rank count, which only the launched run knows. */
    int axes = cfg->dims[0] == 0 ? 0 : cfg->dims[2] == 0 ? 2 : 3;
    if (dims && axes && axes != dims) {
        size_t kd = key_index("mpi", "dims"), kk = key_index("run", "kernel");
        char dims_at[sizeof cfg->path + 16], kernel_at[sizeof cfg->path + 16];
        ts_config_origin_string(cfg, kd, dims_at, sizeof dims_at);
        ts_config_origin_string(cfg, kk, kernel_at, sizeof kernel_at);
        return ts_fail(err, TS_BAD_INPUT,
                       "[mpi] dims = %s (%s) has %d axes, kernel %s (%s) needs %d: ranks along x and y%s, like %s",
                       cfg->dims_text, dims_at, axes, cfg->kernel, kernel_at, dims, dims == 3 ? " and z" : "",
                       dims == 3 ? "2x1x3" : "2x2");
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

const char *ts_config_key_default(size_t index)
{
    return index < N_KEYS ? keys[index].def : NULL;
}

const char *ts_config_key_doc(size_t index)
{
    if (index >= N_KEYS)
        return NULL;
    build_key_text();
    return key_docs[index];
}

/* Appends each word of list, after a space, then suffix. */
static void append_words(char *buf, size_t len, const char *const *list, const char *suffix)
{
    for (; *list; list++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " %s%s", *list, suffix);
    }
}

void ts_config_key_values(size_t index, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    if (index >= N_KEYS)
        return;
    const struct key *k = &keys[index];
    switch (k->type) {
    case T_ENUM:
        /* "a|b|c" as " a b c" */
        snprintf(buf, len, " %s", k->choices);
        for (char *c = strchr(buf, '|'); c; c = strchr(c, '|'))
            *c = ' ';
        break;
    case T_BOOL: snprintf(buf, len, " %s %s", bool_words[0][0], bool_words[0][1]); break;
    case T_PLACES: append_words(buf, len, ts_places_names, ""); break;
    case T_POLICY:
        append_words(buf, len, ts_policy_plain, "");
        append_words(buf, len, ts_policy_with_node, ":");
        break;
    case T_DIMS: snprintf(buf, len, " %s", TS_DIMS_AUTO); break;
    default: break;
    }
    /* Without the leading space of each word's separator. */
    memmove(buf, buf + (buf[0] == ' '), strlen(buf + (buf[0] == ' ')) + 1);
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

/* Whether key k holds its default (the default parsed, so "3" and "3.0" are alike). */
static bool at_default(const struct ts_config *cfg, const struct key *k)
{
    const char *member = (const char *)cfg + k->offset;
    if (is_text(k))
        return strcmp(member, k->def) == 0;
    union value def, now;
    struct ts_error err;
    if (parse_value(k, k->def, &def, &err) != TS_OK)
        return false;
    memcpy(&now, member, k->size);
    switch (k->type) {
    case T_INT: return now.i == def.i;
    case T_DOUBLE: return now.d == def.d;
    case T_BOOL: return now.b == def.b;
    default: return true;
    }
}

/* Why this run never reads key k, or NULL when it does. What each kernel reads is
 * app/run_plan.c's ts_run_plan_make and the kernels' plan functions. */
static const char *unread_because(const struct ts_config *cfg, const struct key *k, char *buf, size_t len)
{
    bool s2 = strcmp(cfg->kernel, "stencil2d") == 0, s3 = strcmp(cfg->kernel, "stencil3d") == 0;
    bool stencil = s2 || s3, read = true;
    if (strcmp(k->section, "sum") == 0 || strcmp(k->section, "triad") == 0)
        read = strcmp(k->section, cfg->kernel) == 0;
    else if (strcmp(k->section, "stencil") == 0)
        read = strcmp(k->name, "nz") == 0 || strcmp(k->name, "block_y") == 0 ? s3 : stencil;
    else if (strcmp(k->section, "init") == 0 && strcmp(k->name, "seed") == 0)
        read = !stencil; /* the stencils start from a fixed analytic field */
    else if (strcmp(k->section, "output") == 0 && strcmp(k->name, "write_field") == 0)
        read = stencil; /* sum and triad have no field to store */
    else if (strcmp(k->section, "mpi") == 0)
        read = stencil; /* sum and triad split their arrays into slices, with no rank grid */
    if (!read) {
        snprintf(buf, len, "kernel %s does not read it", cfg->kernel);
        return buf;
    }
    if (strcmp(k->section, "placement") == 0 && strcmp(k->name, "audit") != 0 && !cfg->placement_audit)
        return "placement.audit = false";
    return NULL;
}

size_t ts_config_unused_keys(const struct ts_config *cfg, char (*lines)[TS_CONFIG_NOTE_LEN], size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < N_KEYS; i++) {
        const struct key *k = &keys[i];
        enum ts_config_source source = cfg->origin[i].source;
        /* A file may list every key at its default, as configs/default.ini does. */
        if (source == TS_CONFIG_DEFAULT || (source == TS_CONFIG_FILE && at_default(cfg, k)))
            continue;
        char why[128];
        const char *because = unread_because(cfg, k, why, sizeof why);
        if (!because)
            continue;
        if (n < max) {
            char value[sizeof cfg->file], origin[sizeof cfg->path + 16];
            ts_config_value_string(cfg, i, value, sizeof value);
            ts_config_origin_string(cfg, i, origin, sizeof origin);
            snprintf(lines[n], TS_CONFIG_NOTE_LEN, "[%s] %s = %.64s (%.400s) has no effect: %s", k->section, k->name,
                     value, origin, because);
        }
        n++;
    }
    return n;
}
