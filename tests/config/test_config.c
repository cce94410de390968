/* The config module through its public API: what good files and --set arguments produce,
 * that every bad input fails with status 2 and a message naming the place and the key, that
 * the printed config reads back, and that every file in configs/ loads and validates.
 * Also: every key's documented range (a table of its own, from docs/configuration.md), the keys that have
 * no effect on a run, and the messages of options that stand for overrides.
 * Usage: test_config good|bad|fields|print|keys|places|ranges|unused|options|dims|examples <configs dir> */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ts_config_values.h"
#include "ts_config.h"
#include "ts_test.h"

/* Writes text to a fresh file under /tmp; the caller removes it. */
static void write_temp(char path[64], const char *text)
{
    snprintf(path, 64, "/tmp/ts-config-test-XXXXXX.ini");
    int fd = mkstemps(path, 4);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        perror("test_config: cannot write a temporary file");
        exit(2);
    }
    close(fd);
}

static size_t key_index(const char *name)
{
    for (size_t i = 0; i < ts_config_key_count(); i++)
        if (strcmp(ts_config_key_name(i), name) == 0)
            return i;
    fprintf(stderr, "test_config: no key %s in the table\n", name);
    exit(2);
}

/* Replaces each "%f" in pattern by path. */
static void expand(char *out, size_t len, const char *pattern, const char *path)
{
    size_t used = 0;
    for (const char *p = pattern; *p && used + 1 < len; p++) {
        if (p[0] == '%' && p[1] == 'f') {
            used += (size_t)snprintf(out + used, len - used, "%s", path);
            p++;
        } else {
            out[used++] = *p;
        }
    }
    out[used < len ? used : len - 1] = '\0';
}

#define MAX_SETS 3

/* Loads ini (from a temp file, unless path is given), applies the sets, validates.
 * Returns the first non-OK status; the file path is left in file_path. */
static int run_case(struct ts_config *cfg, const char *ini, const char *path, const char *const sets[MAX_SETS],
                    int repeat, bool sets_first, char file_path[64], struct ts_error *err)
{
    int rc = TS_OK;
    ts_config_defaults(cfg);
    ts_error_clear(err);
    file_path[0] = '\0';
    if (path)
        snprintf(file_path, 64, "%s", path);
    else if (ini)
        write_temp(file_path, ini);
    if (file_path[0] && !sets_first)
        rc = ts_config_load(cfg, file_path, err);
    for (int r = 0; r < (repeat ? repeat : 1); r++)
        for (int i = 0; i < MAX_SETS && sets[i] && rc == TS_OK; i++)
            rc = ts_config_set(cfg, sets[i], err);
    if (rc == TS_OK && file_path[0] && sets_first)
        rc = ts_config_load(cfg, file_path, err);
    if (rc == TS_OK)
        rc = ts_config_validate(cfg, err);
    if (ini && !path)
        unlink(file_path);
    return rc;
}

/* ---- good inputs: values and origins as the table expects ---- */

struct expect {
    const char *key, *value;
    const char *origin; /* "default", "--set #N", or ":N" for line N of the case's file */
};

struct good_case {
    const char *name, *ini;
    const char *sets[MAX_SETS];
    bool sets_first;
    struct expect expect[6];
};

static const struct good_case good_cases[] = {
    { "empty file keeps every default",
      "",
      { 0 },
      false,
      { { "run.kernel", "stencil2d", "default" },
        { "run.iterations", "100", "default" },
        { "stencil.alpha", "0.1", "default" },
        { "openmp.places", "cores", "default" },
        { "output.file", "touchstone-%k-%i-%j-%t.h5", "default" },
        { "output.write_field", "false", "default" } } },
    { "comments, blank lines, inline comment",
      "; comment\n# comment\n\n[run]\nkernel = sum ; inline\n",
      { 0 },
      false,
      { { "run.kernel", "sum", ":5" }, { "run.warmup", "1", "default" } } },
    { "CRLF line endings",
      "[run]\r\nkernel = triad\r\niterations = 7\r\n",
      { 0 },
      false,
      { { "run.kernel", "triad", ":2" }, { "run.iterations", "7", ":3" } } },
    { "scientific notation integers",
      "[sum]\nn = 1e8\n[triad]\nn = 2.5e3\n[run]\niterations = 1.0E1\n",
      { 0 },
      false,
      { { "sum.n", "100000000", ":2" }, { "triad.n", "2500", ":4" }, { "run.iterations", "10", ":6" } } },
    { "leading plus and largest seed",
      "[init]\nseed = +9223372036854775807\nmode = serial\n",
      { 0 },
      false,
      { { "init.seed", "9223372036854775807", ":2" }, { "init.mode", "serial", ":3" } } },
    { "range limits are inclusive",
      "[stencil]\nnx = 3\nny = 16777216\nnz = 1048576\n[sum]\nn = 1099511627776\n[run]\nwarmup = 0\n",
      { 0 },
      false,
      { { "stencil.nx", "3", ":2" },
        { "stencil.ny", "16777216", ":3" },
        { "stencil.nz", "1048576", ":4" },
        { "sum.n", "1099511627776", ":6" },
        { "run.warmup", "0", ":8" } } },
    { "doubles",
      "[triad]\nscalar = -1.5e-3\n[stencil]\nalpha = 0.25\n",
      { 0 },
      false,
      { { "triad.scalar", "-0.0015", ":2" }, { "stencil.alpha", "0.25", ":4" } } },
    { "alpha 1/6 is stable for stencil3d",
      "[run]\nkernel = stencil3d\n[stencil]\nalpha = 0.16666666666666666\n",
      { 0 },
      false,
      { { "stencil.alpha", "0.16666666666666666", ":4" } } },
    { "alpha is not checked for sum",
      "[run]\nkernel = sum\n[stencil]\nalpha = 0.9\n",
      { 0 },
      false,
      { { "stencil.alpha", "0.9", ":4" } } },
    { "bool spellings, any case",
      "[output]\nwrite_field = YES\n",
      { 0 },
      false,
      { { "output.write_field", "true", ":2" } } },
    { "bool off", "[output]\nwrite_field = Off\n", { 0 }, false, { { "output.write_field", "false", ":2" } } },
    { "places with a count and proc_bind",
      "[openmp]\nplaces = sockets(2)\nproc_bind = primary\nthreads = 4096\n",
      { 0 },
      false,
      { { "openmp.places", "sockets(2)", ":2" },
        { "openmp.proc_bind", "primary", ":3" },
        { "openmp.threads", "4096", ":4" } } },
    { "explicit places list",
      "[openmp]\nplaces = {0:4}:2:4,!{8},{9,10,11},{12:4:-1}\n",
      { 0 },
      false,
      { { "openmp.places", "{0:4}:2:4,!{8},{9,10,11},{12:4:-1}", ":2" } } },
    { "file template with every placeholder",
      "[output]\nfile = out/%k-%i-%j-%t-100%%.h5\n",
      { 0 },
      false,
      { { "output.file", "out/%k-%i-%j-%t-100%%.h5", ":2" } } },
    { "--set overrides the file and is recorded",
      "[stencil]\nnx = 100\nny = 50\n",
      { "stencil.nx=200", " run.kernel = stencil3d " },
      false,
      { { "stencil.nx", "200", "--set #1" },
        { "run.kernel", "stencil3d", "--set #2" },
        { "stencil.ny", "50", ":3" } } },
    { "the later --set wins",
      NULL,
      { "stencil.nx=200", "stencil.nx=3e2" },
      false,
      { { "stencil.nx", "300", "--set #2" } } },
    { "--set before the file still wins",
      "[stencil]\nnx = 100\n",
      { "stencil.nx=200" },
      true,
      { { "stencil.nx", "200", "--set #1" } } },
    { "--set value may contain '=' and '.'",
      NULL,
      { "output.file=a=b.c-%k.h5" },
      false,
      { { "output.file", "a=b.c-%k.h5", "--set #1" } } },
    { "CR-only line endings (old Mac)",
      "[run]\rkernel = triad\riterations = 7\r\r[triad]\rn = 5\r",
      { 0 },
      false,
      { { "run.kernel", "triad", ":2" }, { "run.iterations", "7", ":3" }, { "triad.n", "5", ":6" } } },
    { "mixed line endings, last line without one",
      "[run]\r\nkernel = sum\r\n\n[sum]\rn = 9",
      { 0 },
      false,
      { { "run.kernel", "sum", ":2" }, { "sum.n", "9", ":5" } } },
    { "':' separates like '='",
      "[run]\nkernel: sum\niterations : 4\n",
      { 0 },
      false,
      { { "run.kernel", "sum", ":2" }, { "run.iterations", "4", ":3" } } },
    { "UTF-8 byte order mark", "\xef\xbb\xbf[run]\nkernel = sum\n", { 0 }, false, { { "run.kernel", "sum", ":2" } } },
    { "comments after section headers",
      "[run] ; the run\nkernel = sum\n[sum]\t# the sum\nn = 5\n[triad]\n",
      { 0 },
      false,
      { { "run.kernel", "sum", ":2" }, { "sum.n", "5", ":4" } } },
    /* After a section's ']' a comment needs no blank before it, ';' or '#' alike. */
    { "comments right after section headers",
      "[run];the run\nkernel = sum\n[sum]#the sum\nn = 5\n[triad];\n[init]#\n",
      { 0 },
      false,
      { { "run.kernel", "sum", ":2" }, { "sum.n", "5", ":4" } } },
    { "UTF-8 text in comments and values",
      "; caf\xc3\xa9 \xe2\x9c\x93\n[output]\nfile = r\xc3\xa9sultat-%k.h5\n",
      { 0 },
      false,
      { { "output.file", "r\xc3\xa9sultat-%k.h5", ":3" } } },
    { "'#' and quotes inside a value",
      "[output]\nfile = run#1-\"a\".h5\n",
      { 0 },
      false,
      { { "output.file", "run#1-\"a\".h5", ":2" } } },
    { "an indented key right after its section",
      "[run]\n  kernel = sum\n",
      { 0 },
      false,
      { { "run.kernel", "sum", ":2" } } },
};

static void check_expect(const char *name, const struct ts_config *cfg, const struct expect *e, const char *path)
{
    char value[1200], origin[4200], want_origin[4200];
    size_t k = key_index(e->key);
    ts_config_value_string(cfg, k, value, sizeof value);
    ts_config_origin_string(cfg, k, origin, sizeof origin);
    snprintf(want_origin, sizeof want_origin, "%s%s", e->origin[0] == ':' ? path : "", e->origin);
    if (strcmp(value, e->value) != 0)
        FAIL("%s: %s is '%s', expected '%s'", name, e->key, value, e->value);
    if (strcmp(origin, want_origin) != 0)
        FAIL("%s: %s comes from '%s', expected '%s'", name, e->key, origin, want_origin);
}

static void test_good(void)
{
    for (size_t c = 0; c < sizeof good_cases / sizeof good_cases[0]; c++) {
        const struct good_case *g = &good_cases[c];
        struct ts_config cfg;
        struct ts_error err;
        char path[64];
        int rc = run_case(&cfg, g->ini, NULL, g->sets, 0, g->sets_first, path, &err);
        if (rc != TS_OK) {
            FAIL("%s: expected success, got status %d: %s", g->name, rc, err.message);
        } else {
            for (size_t i = 0; i < 6 && g->expect[i].key; i++)
                check_expect(g->name, &cfg, &g->expect[i], path);
            int n_sets = 0;
            while (n_sets < MAX_SETS && g->sets[n_sets])
                n_sets++;
            if (cfg.n_sets != n_sets)
                FAIL("%s: %d --set arguments recorded, expected %d", g->name, cfg.n_sets, n_sets);
            for (int i = 0; i < n_sets && i < cfg.n_sets; i++)
                if (strcmp(cfg.sets[i], g->sets[i]) != 0)
                    FAIL("%s: --set #%d recorded as '%s', expected '%s'", g->name, i + 1, cfg.sets[i], g->sets[i]);
            if (g->ini && (!cfg.text || strcmp(cfg.text, g->ini) != 0))
                FAIL("%s: cfg->text does not hold the file's text", g->name);
        }
        ts_config_free(&cfg);
    }
}

/* ---- bad inputs: status 2 and a message naming where and what ---- */

#define LONG_COMMENT_10 "0123456789"
#define LONG_COMMENT_100                                                                                               \
    LONG_COMMENT_10 LONG_COMMENT_10 LONG_COMMENT_10 LONG_COMMENT_10 LONG_COMMENT_10 LONG_COMMENT_10 LONG_COMMENT_10    \
        LONG_COMMENT_10 LONG_COMMENT_10 LONG_COMMENT_10
#define LONG_COMMENT LONG_COMMENT_100 LONG_COMMENT_100 LONG_COMMENT_100
#define FIVE_BAD_KEYS(d) "k" d "1 = 1\nk" d "2 = 1\nk" d "3 = 1\nk" d "4 = 1\nk" d "5 = 1\n"
#define TWENTY_FIVE_BAD_KEYS                                                                                           \
    FIVE_BAD_KEYS("a") FIVE_BAD_KEYS("b") FIVE_BAD_KEYS("c") FIVE_BAD_KEYS("d") FIVE_BAD_KEYS("e")

struct bad_case {
    const char *name;
    const char *ini;  /* written to a temp file; NULL for none */
    const char *path; /* a fixed path instead of a temp file */
    const char *sets[MAX_SETS];
    int repeat;            /* apply the sets this many times */
    const char *expect[2]; /* substrings of the message; %f is the file's path */
};

static char long_line[400];

static const struct bad_case bad_cases[] = {
    { "missing file",
      NULL,
      "/nonexistent-ts-dir/nope.ini",
      { 0 },
      0,
      { "/nonexistent-ts-dir/nope.ini: cannot read config: No such file or directory" } },
    { "directory as config", NULL, "/tmp", { 0 }, 0, { "/tmp: cannot read config: Is a directory" } },
    { "unknown section",
      "[run]\nkernel = sum\n[stencl]\nnx = 5\n",
      NULL,
      { 0 },
      0,
      { "%f:3: unknown section [stencl] (known sections: run, sum, triad, stencil, init, openmp, output, "
        "placement, check, mpi)" } },
    { "section names are case-sensitive", "[RUN]\nkernel = sum\n", NULL, { 0 }, 0, { "%f:1: unknown section [RUN]" } },
    /* A section is refused at its header, keys or not (inih only reports sections with keys). */
    { "unknown section without keys",
      "[run]\nkernel = sum\n\n[bogus]\n; nothing here\n",
      NULL,
      { 0 },
      0,
      { "%f:4: unknown section [bogus]" } },
    { "unknown section with a comment after it",
      "[bogus] ; a note\n[run]\nkernel = sum\n",
      NULL,
      { 0 },
      0,
      { "%f:1: unknown section [bogus]" } },
    { "empty section name", "[]\nkernel = sum\n", NULL, { 0 }, 0, { "%f:1: unknown section []" } },
    { "blanks inside the brackets", "[ run ]\nkernel = sum\n", NULL, { 0 }, 0, { "%f:1: unknown section [ run ]" } },
    /* Text after ']' that inih would drop without a word. */
    { "a key after a section header",
      "[run] kernel = sum\n",
      NULL,
      { 0 },
      0,
      { "%f:1: text after the section header [run]: 'kernel = sum'" } },
    { "junk after a section header",
      "[run]\nkernel = sum\n[stencil]junk\nnx = 64\n",
      NULL,
      { 0 },
      0,
      { "%f:3: text after the section header [stencil]: 'junk'" } },
    { "a second ']'", "[run]]\nkernel = sum\n", NULL, { 0 }, 0, { "%f:1: text after the section header [run]: ']'" } },
    { "text after ']' on a CR-only line",
      "[run]\rkernel = sum\r[sum] n = 5\r",
      NULL,
      { 0 },
      0,
      { "%f:3: text after the section header [sum]: 'n = 5'" } },
    /* Lines end at CR, LF and CRLF alike, for line numbers too. */
    { "error line in a CR-only file",
      "[run]\rkernel = sum\riterations = 0\r",
      NULL,
      { 0 },
      0,
      { "%f:3: [run] iterations = 0: out of range" } },
    { "error line with mixed line ends",
      "[run]\r\nkernel = sum\n\riterations = x\r",
      NULL,
      { 0 },
      0,
      { "%f:4: [run] iterations = x: not an integer" } },
    { "syntax error shown in a CR-only file",
      "[run]\rkernel = sum\riterations 5\r[sum]\r",
      NULL,
      { 0 },
      0,
      { "%f:3: syntax error (expected 'key = value' or '[section]'): iterations 5" } },
    /* inih reads an indented line after a key as more of its value, even past blank lines. */
    { "indented section line after a key",
      "[run]\nkernel = sum\n  [sum]\nn = 5\n",
      NULL,
      { 0 },
      0,
      { "%f:3: indented line continues the value of [run] kernel from line 2" } },
    { "indented line after a blank line",
      "[run]\nkernel = sum\n\n  iterations = 5\n",
      NULL,
      { 0 },
      0,
      { "%f:4: indented line continues the value of [run] kernel from line 2" } },
    { "quoted value",
      "[output]\nfile = \"run.h5\"\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [output] file = \"run.h5\": quotes are part of the value" } },
    { "'#' comment after a file name",
      "[output]\nfile = run.h5  # my run\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [output] file = run.h5  # my run: '#' after a blank" } },
    /* The text goes into the run file as UTF-8. */
    { "Latin-1 comment",
      "[run]\n; caf\xe9 au lait\nkernel = sum\n",
      NULL,
      { 0 },
      0,
      { "%f:2: not valid UTF-8 at column 6 (byte 0xe9, offset 11 in the file)" } },
    { "UTF-8 surrogate",
      "[run]\rkernel = sum ; \xed\xa0\x80\r",
      NULL,
      { 0 },
      0,
      { "%f:2: not valid UTF-8 at column 16" } },
    { "overlong UTF-8", "\xc0\xaf", NULL, { 0 }, 0, { "%f:1: not valid UTF-8 at column 1 (byte 0xc0, offset 0" } },
    { "UTF-8 cut short at the end",
      "[run]\nkernel = sum\n; \xe2\x9c",
      NULL,
      { 0 },
      0,
      { "%f:3: not valid UTF-8 at column 3" } },
    { "NUL byte",
      NULL,
      "/proc/self/cmdline",
      { 0 },
      0,
      { "/proc/self/cmdline: not a config file (contains NUL bytes)" } },
    { "--set value not UTF-8",
      NULL,
      NULL,
      { "output.file=caf\xe9.h5" },
      0,
      { "--set output.file=caf\\xe9.h5: not valid UTF-8 at byte 16 (0xe9)" } },
    { "--set value quoted",
      NULL,
      NULL,
      { "output.file='run.h5'" },
      0,
      { "--set output.file='run.h5': [output] file = 'run.h5': quotes are part of the value" } },
    { "--set value with ' #'",
      NULL,
      NULL,
      { "output.file=run.h5 #1" },
      0,
      { "--set output.file=run.h5 #1: [output] file = run.h5 #1: '#' after a blank" } },
    { "unknown key",
      "[stencil]\nnxx = 5\n",
      NULL,
      { 0 },
      0,
      { "%f:2: unknown key 'nxx' in section [stencil] (known keys: nx, ny, nz, alpha, nontemporal, time_block, "
        "block_y)" } },
    { "key before any section",
      "; settings\nkernel = sum\n",
      NULL,
      { 0 },
      0,
      { "%f:2: key 'kernel' outside any section" } },
    { "duplicate key",
      "[run]\nkernel = sum\n\n[run]\nkernel = triad\n",
      NULL,
      { 0 },
      0,
      { "%f:5: duplicate key [run] kernel (first set at line 2)" } },
    { "indented continuation line",
      "[run]\nkernel = sum\n  iterations = 5\n",
      NULL,
      { 0 },
      0,
      { "%f:3: indented line continues the value of [run] kernel from line 2" } },
    { "syntax error: no '='",
      "[run]\nkernel = sum\niterations 5\n",
      NULL,
      { 0 },
      0,
      { "%f:3: syntax error (expected 'key = value' or '[section]'): iterations 5" } },
    { "syntax error: unclosed section", "[run\nkernel = sum\n", NULL, { 0 }, 0, { "%f:1: syntax error" } },
    /* Every error of a file at once, in line order: the first as a single error reads, each
     * other on a line of its own below it. */
    { "every error: syntax before value",
      "[stencil]\nny 5\nnx = abc\n",
      NULL,
      { 0 },
      0,
      { "%f:2: syntax error", "\n  %f:3: [stencil] nx = abc: not an integer" } },
    { "every error: value before syntax",
      "[stencil]\nnx = abc\nny 5\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] nx = abc: not an integer", "\n  %f:3: syntax error (expected 'key = value'" } },
    { "every error: after a long line",
      "[stencil]\nnx = abc\n; " LONG_COMMENT "\n[run]\nkernel = none\n",
      NULL,
      { 0 },
      0,
      { "\n  %f:3: line too long", "\n  %f:5: [run] kernel = none: unknown value" } },
    { "every error: after text after a section header",
      "[run] x\nkernel = none\n[sum]\nn = 0\n",
      NULL,
      { 0 },
      0,
      { "%f:1: text after the section header [run]: 'x'", "\n  %f:2: [run] kernel = none" } },
    { "every error: keys of an unknown section are not refused one by one",
      "[bogus]\na = 1\nb = 2\n[run]\nwarmup = x\n",
      NULL,
      { 0 },
      0,
      { "%f:1: unknown section [bogus] (known sections: run, sum, triad, stencil, init, openmp, output, placement, "
        "check, mpi)\n  %f:5: [run] warmup = x",
        NULL } },
    { "every error: an unclosed section header, its keys skipped",
      "[stencil\nnx = abc\n[run]\nkernel = none\n",
      NULL,
      { 0 },
      0,
      { "%f:1: syntax error (a section header without its ']'): [stencil\n  %f:4: [run] kernel = none", NULL } },
    { "every error: at most 20 listed, the rest counted",
      "[mpi]\n" TWENTY_FIVE_BAD_KEYS,
      NULL,
      { 0 },
      0,
      { "\n  %f:21: unknown key 'kd5'", "'kd5' in section [mpi] (known keys: dims)\n  ... and 5 more errors in %f" } },
    { "line too long", long_line, NULL, { 0 }, 0, { "%f:2: line too long" } },
    { "empty value",
      "[stencil]\nnx =\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] nx = : empty value, must be 3..16777216" } },
    { "empty file name", "[output]\nfile =\n", NULL, { 0 }, 0, { "%f:2: [output] file = : empty value" } },
    { "not a number",
      "[stencil]\nnx = abc\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] nx = abc: not an integer, must be 3..16777216" } },
    { "trailing garbage",
      "[stencil]\nny = 100x\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] ny = 100x: trailing characters after the number" } },
    { "'#' is not an inline comment",
      "[run]\niterations = 10 # more\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [run] iterations = 10 # more: '#' after a blank" } },
    { "hex is not decimal",
      "[run]\niterations = 0x10\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [run] iterations = 0x10: trailing" } },
    { "fraction for an integer",
      "[stencil]\nnx = 100.5\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] nx = 100.5: not a whole number" } },
    { "fraction in scientific notation",
      "[run]\nwarmup = 15e-1\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [run] warmup = 15e-1: not a whole number" } },
    { "overflow of 64 bits",
      "[init]\nseed = 9223372036854775808\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [init] seed = 9223372036854775808: out of range, must be 0..9223372036854775807" } },
    { "overflow in scientific notation",
      "[sum]\nn = 1e30\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [sum] n = 1e30: out of range, must be 1..1099511627776" } },
    { "nx below its minimum",
      "[stencil]\nnx = 2\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] nx = 2: out of range, must be 3..16777216" } },
    { "ny above its maximum",
      "[stencil]\nny = 16777217\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] ny = 16777217: out of range, must be 3..16777216" } },
    { "nz above its maximum",
      "[stencil]\nnz = 1048577\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] nz = 1048577: out of range, must be 3..1048576" } },
    { "zero iterations",
      "[run]\niterations = 0\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [run] iterations = 0: out of range, must be 1..1000000000" } },
    { "negative warmup",
      "[run]\nwarmup = -1\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [run] warmup = -1: out of range, must be 0..1000000" } },
    { "too many threads",
      "[openmp]\nthreads = 4097\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [openmp] threads = 4097: out of range, must be 0..4096" } },
    { "sum n above 2^40",
      "[sum]\nn = 1099511627777\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [sum] n = 1099511627777: out of range" } },
    { "triad n zero",
      "[triad]\nn = 0\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [triad] n = 0: out of range, must be 1..1099511627776" } },
    { "negative seed", "[init]\nseed = -5\n", NULL, { 0 }, 0, { "%f:2: [init] seed = -5: out of range" } },
    { "alpha zero",
      "[stencil]\nalpha = 0\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] alpha = 0: out of range, must be > 0" } },
    { "alpha not a number",
      "[stencil]\nalpha = fast\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [stencil] alpha = fast: not a number" } },
    { "scalar nan",
      "[triad]\nscalar = nan\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [triad] scalar = nan: not a finite number, must be any finite number" } },
    { "scalar overflows a double",
      "[triad]\nscalar = 1e400\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [triad] scalar = 1e400: not a finite" } },
    { "scalar trailing garbage",
      "[triad]\nscalar = 3.0.0\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [triad] scalar = 3.0.0: trailing" } },
    { "bad kernel",
      "[run]\nkernel = stencil4d\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [run] kernel = stencil4d: unknown value, must be sum|triad|stencil2d|stencil3d" } },
    { "enums are case-sensitive",
      "[run]\nkernel = Sum\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [run] kernel = Sum: unknown value" } },
    { "bad init mode",
      "[init]\nmode = random\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [init] mode = random: unknown value, must be parallel|serial" } },
    { "bad bool",
      "[output]\nwrite_field = maybe\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [output] write_field = maybe: not a boolean, must be true|false|yes|no|on|off|1|0" } },
    { "places: unknown name",
      "[openmp]\nplaces = core\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [openmp] places = core: invalid OMP_PLACES syntax at 'core'" } },
    { "places: zero count",
      "[openmp]\nplaces = cores(0)\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [openmp] places = cores(0): invalid" } },
    { "places: unclosed brace",
      "[openmp]\nplaces = {0:4\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [openmp] places = {0:4: invalid OMP_PLACES syntax: unexpected end" } },
    { "places: empty resource",
      "[openmp]\nplaces = {0,,1}\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [openmp] places = {0,,1}: invalid OMP_PLACES syntax at ',1}'" } },
    { "places: garbage after a name",
      "[openmp]\nplaces = cores x\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [openmp] places = cores x" } },
    { "bad proc_bind",
      "[openmp]\nproc_bind = closest\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [openmp] proc_bind = closest: unknown value, must be close|spread|master|primary|true|false" } },
    { "unknown memory policy",
      "[init]\npolicy = spread\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [init] policy = spread: unknown policy, must be firsttouch|interleave|bind:N|preferred:N" } },
    { "bind without a node",
      "[init]\npolicy = bind\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [init] policy = bind: unknown policy" } },
    { "bind to a non-number",
      "[init]\npolicy = bind:one\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [init] policy = bind:one: 'bind' needs a NUMA node number after ':'" } },
    { "preferred to a negative node",
      "[init]\npolicy = preferred:-1\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [init] policy = preferred:-1: 'preferred' needs a NUMA node number" } },
    { "sample stride negative",
      "[placement]\nsample_stride = -2\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [placement] sample_stride = -2: out of range, must be 0..1073741824" } },
    { "unknown file placeholder",
      "[output]\nfile = run-%x.h5\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [output] file = run-%x.h5: unknown placeholder '%x'" } },
    { "lone % ending the file name",
      "[output]\nfile = run-%\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [output] file = run-%: lone '%' at the end" } },
    { "alpha unstable for stencil2d",
      "[stencil]\nalpha = 0.3\n",
      NULL,
      { 0 },
      0,
      { "[stencil] alpha = 0.3 (%f:2) is unstable for kernel stencil2d (default)", "alpha <= 0.25" } },
    { "alpha unstable for stencil3d",
      "[run]\nkernel = stencil3d\n[stencil]\nalpha = 0.2\n",
      NULL,
      { 0 },
      0,
      { "[stencil] alpha = 0.2 (%f:4) is unstable for kernel stencil3d (%f:2)", "alpha <= 1/6" } },
    { "alpha unstable after --set",
      NULL,
      NULL,
      { "run.kernel=stencil3d", "stencil.alpha=0.25" },
      0,
      { "alpha = 0.25 (--set #2) is unstable for kernel stencil3d (--set #1)" } },
    { "rank grid with one axis",
      "[mpi]\ndims = 4\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [mpi] dims = 4: one axis; give AxB (stencil2d) or AxBxC (stencil3d), must be auto|AxB|AxBxC" } },
    { "rank grid with a zero",
      "[mpi]\ndims = 2x0\n",
      NULL,
      { 0 },
      0,
      { "%f:2: [mpi] dims = 2x0: ranks per axis must be 1..1048576" } },
    { "rank grid of 3 axes for stencil2d",
      "[run]\nkernel = stencil2d\n[mpi]\ndims = 2x1x3\n",
      NULL,
      { 0 },
      0,
      { "[mpi] dims = 2x1x3 (%f:4) has 3 axes, kernel stencil2d (%f:2) needs 2: ranks along x and y, like 2x2" } },
    { "rank grid of 2 axes for stencil3d by --set",
      NULL,
      NULL,
      { "run.kernel=stencil3d", "mpi.dims=2x2" },
      0,
      { "[mpi] dims = 2x2 (--set #2) has 2 axes, kernel stencil3d (--set #1) needs 3: ranks along x and y and z" } },
    { "--set without a dot", NULL, NULL, { "nx=5" }, 0, { "--set nx=5: expected section.key=value" } },
    { "--set without '='", NULL, NULL, { "stencil.nx" }, 0, { "--set stencil.nx: expected section.key=value" } },
    { "--set without a key", NULL, NULL, { "stencil.=5" }, 0, { "--set stencil.=5: expected section.key=value" } },
    { "--set unknown key",
      NULL,
      NULL,
      { "stencil.nxx=5" },
      0,
      { "--set stencil.nxx=5: unknown key 'nxx' in section [stencil]" } },
    { "--set unknown section", NULL, NULL, { "stencl.nx=5" }, 0, { "--set stencl.nx=5: unknown section [stencl]" } },
    { "--set bad value",
      NULL,
      NULL,
      { "stencil.nx=abc" },
      0,
      { "--set stencil.nx=abc: [stencil] nx = abc: not an integer" } },
    { "--set empty value", NULL, NULL, { "run.kernel=" }, 0, { "--set run.kernel=: [run] kernel = : empty value" } },
    { "too many --set",
      NULL,
      NULL,
      { "run.iterations=5" },
      TS_CONFIG_MAX_SETS + 1,
      { "--set run.iterations=5: too many --set arguments (at most 64)" } },
};

static void test_bad(void)
{
    /* inih's line buffer is 200 bytes by default; a longer line must fail, not be split. */
    snprintf(long_line, sizeof long_line, "[output]\nfile = %0300d.h5\n", 0);
    for (size_t c = 0; c < sizeof bad_cases / sizeof bad_cases[0]; c++) {
        const struct bad_case *b = &bad_cases[c];
        struct ts_config cfg;
        struct ts_error err;
        char path[64];
        int rc = run_case(&cfg, b->ini, b->path, b->sets, b->repeat, false, path, &err);
        if (rc != TS_BAD_INPUT)
            FAIL("%s: expected status %d, got %d (%s)", b->name, TS_BAD_INPUT, rc, rc ? err.message : "accepted");
        for (size_t i = 0; i < 2 && b->expect[i] && rc != TS_OK; i++) {
            char want[512];
            expand(want, sizeof want, b->expect[i], path);
            if (!strstr(err.message, want))
                FAIL("%s: message '%s' lacks '%s'", b->name, err.message, want);
        }
        ts_config_free(&cfg);
    }
    printf("%zu bad inputs checked\n", sizeof bad_cases / sizeof bad_cases[0]);
}

/* ---- the struct members themselves, not only their text ---- */

static void test_fields(void)
{
    static const char ini[] = "[run]\nkernel = triad\niterations = 1e3\nwarmup = 2\n"
                              "[sum]\nn = 1000\nmode = fast\n[triad]\nn = 2000\nscalar = 0.5\nnontemporal = yes\n"
                              "[stencil]\nnx = 10\nny = 20\nnz = 30\nalpha = 0.125\nnontemporal = 1\n"
                              "time_block = 3\nblock_y = 5\n"
                              "[init]\nmode = serial\nseed = 42\npolicy = bind:1\nhuge_pages = off\n"
                              "[openmp]\nthreads = 8\nplaces = {0:4},{4:4}\nproc_bind = spread\n"
                              "[output]\nfile = x-%k.h5\noverwrite = yes\nwrite_field = on\ncheckpoint_every = 7\n"
                              "[placement]\naudit = off\nsample_stride = 16\nat_end = yes\n"
                              "[check]\nbinding = strict\n[mpi]\ndims = 2x1x3\n";
    const char *const no_sets[MAX_SETS] = { 0 };
    struct ts_config cfg;
    struct ts_error err;
    char path[64];
    const char *name = "all keys land in their struct members";
    if (run_case(&cfg, ini, NULL, no_sets, 0, false, path, &err) != TS_OK) {
        FAIL("%s: load failed: %s", name, err.message);
        return;
    }
    if (strcmp(cfg.kernel, "triad") || cfg.iterations != 1000 || cfg.warmup != 2 || cfg.sum_n != 1000
        || cfg.triad_n != 2000 || cfg.triad_scalar != 0.5 || cfg.nx != 10 || cfg.ny != 20 || cfg.nz != 30
        || cfg.alpha != 0.125 || strcmp(cfg.init_mode, "serial") || cfg.seed != 42 || cfg.threads != 8
        || strcmp(cfg.places, "{0:4},{4:4}") || strcmp(cfg.proc_bind, "spread") || strcmp(cfg.file, "x-%k.h5")
        || !cfg.write_field || cfg.checkpoint_every != 7 || strcmp(cfg.policy, "bind:1") || cfg.placement_audit
        || cfg.sample_stride != 16 || !cfg.placement_at_end || strcmp(cfg.sum_mode, "fast") || !cfg.triad_nontemporal
        || !cfg.stencil_nontemporal || cfg.time_block != 3 || cfg.block_y != 5 || cfg.huge_pages || !cfg.overwrite
        || strcmp(cfg.check_binding, "strict") || strcmp(cfg.dims_text, "2x1x3") || cfg.dims[0] != 2 || cfg.dims[1] != 1
        || cfg.dims[2] != 3)
        FAIL("%s: a member differs from the file (kernel %s, iterations %lld, nx %lld, places %s, file %s)", name,
             cfg.kernel, (long long)cfg.iterations, (long long)cfg.nx, cfg.places, cfg.file);
    for (size_t i = 0; i < ts_config_key_count(); i++)
        if (cfg.origin[i].source != TS_CONFIG_FILE)
            FAIL("%s: %s does not come from the file", name, ts_config_key_name(i));
    if (strcmp(cfg.path, path) != 0)
        FAIL("%s: cfg->path is '%s', expected '%s'", name, cfg.path, path);
    struct ts_error err2;
    if (ts_config_set(&cfg, "stencil.nx=abc", &err2) == TS_OK || cfg.nx != 10)
        FAIL("%s: a rejected --set changed stencil.nx to %lld", name, (long long)cfg.nx);
    /* A value no config line can hold: check could not print it loadably. */
    char too_long[260] = "output.file=";
    memset(too_long + strlen(too_long), 'y', 200);
    if (ts_config_set(&cfg, too_long, &err2) == TS_OK)
        FAIL("%s: --set with a 200-character file name accepted", name);
    else if (!strstr(err2.message, "file=<200 characters> does not fit a config line (at most 198 characters)"))
        FAIL("%s: unexpected message for a 200-character value: %s", name, err2.message);
    /* A ';' after a space starts a comment in a file; inside a word or first it does not. */
    const char *const commented[] = { "output.file=run ;1.h5", "output.file=run\t;1.h5", "output.file=;a ;b.h5" };
    for (size_t i = 0; i < sizeof commented / sizeof commented[0]; i++) {
        if (ts_config_set(&cfg, commented[i], &err2) == TS_OK)
            FAIL("%s: --set %s accepted: a config file would read the value cut at the ';'", name, commented[i]);
        else if (!strstr(err2.message, "starts a comment in a config file") || strcmp(cfg.file, "x-%k.h5") != 0)
            FAIL("%s: --set %s: message '%s', file '%s'", name, commented[i], err2.message, cfg.file);
    }
    if (ts_config_set(&cfg, "output.file=run;1.h5", &err2) != TS_OK || strcmp(cfg.file, "run;1.h5") != 0)
        FAIL("%s: --set output.file=run;1.h5 refused or not stored: %s", name, err2.message);
    if (ts_config_set(&cfg, "output.file= ;run.h5", &err2) != TS_OK || strcmp(cfg.file, ";run.h5") != 0)
        FAIL("%s: --set 'output.file= ;run.h5' refused or not stored as ';run.h5': %s", name, err2.message);
    ts_config_free(&cfg);
}

/* ---- ts_config_print reads back as the same config ---- */

/* ts_config_print into a new temporary file PATH, whose text is also returned. */
static void print_config(const struct ts_config *cfg, char path[64], char *text, size_t len)
{
    snprintf(path, 64, "/tmp/ts-config-print-XXXXXX.ini");
    int fd = mkstemps(path, 4);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w+");
    if (!f) {
        perror("test_config: temporary file");
        exit(2);
    }
    ts_config_print(cfg, f);
    fflush(f);
    rewind(f);
    size_t n = fread(text, 1, len - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* The config printed at PATH loads back to the same values as CFG; PATH is removed. */
static void expect_reads_back(const char *name, const struct ts_config *cfg, const char *path)
{
    struct ts_config again;
    struct ts_error err;
    ts_config_defaults(&again);
    if (ts_config_load(&again, path, &err) != TS_OK || ts_config_validate(&again, &err) != TS_OK) {
        FAIL("%s: printed config does not load: %s", name, err.message);
    } else {
        for (size_t i = 0; i < ts_config_key_count(); i++) {
            char a[1200], b[1200];
            ts_config_value_string(cfg, i, a, sizeof a);
            ts_config_value_string(&again, i, b, sizeof b);
            if (strcmp(a, b) != 0)
                FAIL("%s: %s printed as '%s' reads back as '%s'", name, ts_config_key_name(i), a, b);
        }
    }
    unlink(path);
    ts_config_free(&again);
}

static void test_print(void)
{
    const char *name = "printed config reads back";
    /* A value as long as a config line allows: its origin goes on a line of its own. */
    const char *const sets[MAX_SETS] = {
        "stencil.nx=1e3",
        "output.file=a;b-%t-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.h5",
        "triad.scalar=0.1"
    };
    struct ts_config cfg;
    struct ts_error err;
    char path[64], printed[64];
    if (run_case(&cfg, "[run]\nkernel = stencil3d\n[openmp]\nplaces = {0:2}:4:2\n", NULL, sets, 0, false, path, &err)
        != TS_OK) {
        FAIL("%s: setup failed: %s", name, err.message);
        return;
    }
    char text[8192];
    print_config(&cfg, printed, text, sizeof text);

    char want[256];
    snprintf(want, sizeof want, "kernel = stencil3d              ; %s:2\n", path);
    if (!strstr(text, want))
        FAIL("%s: no line '%s' in:\n%s", name, want, text);
    if (!strstr(text, "nx = 1000                       ; --set #1\n") || !strstr(text, "; default\n")
        || !strstr(text, "\n[openmp]\n"))
        FAIL("%s: origins or sections missing in:\n%s", name, text);

    for (const char *line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != '\0'))
        if (strcspn(line, "\n") > 198)
            FAIL("%s: a printed line of %zu characters, more than a config line holds: %.60s...", name,
                 strcspn(line, "\n"), line);
    if (!strstr(text, "; --set #2\nfile = a;b-%t-xxx"))
        FAIL("%s: the long value's origin is not on the line above it in:\n%s", name, text);

    expect_reads_back(name, &cfg, printed);
    ts_config_free(&cfg);

    /* A value starting with ';' is printed right after the '=' (after a space it is a comment). */
    const char *const semicolon[MAX_SETS] = { "output.file=;x-%k.h5" };
    name = "printed config reads back: a value starting with ';'";
    if (run_case(&cfg, NULL, NULL, semicolon, 0, false, path, &err) != TS_OK) {
        FAIL("%s: setup failed: %s", name, err.message);
        return;
    }
    print_config(&cfg, printed, text, sizeof text);
    if (!strstr(text, "\nfile =;x-%k.h5 "))
        FAIL("%s: no line 'file =;x-%%k.h5' in:\n%s", name, text);
    expect_reads_back(name, &cfg, printed);
    ts_config_free(&cfg);
}

/* ---- the key table as iterated by check, the HDF5 writer and docs/configuration.md ---- */

static void test_keys(void)
{
    const char *name = "key table";
    struct ts_config cfg;
    struct ts_error err;
    ts_config_defaults(&cfg);
    if (ts_config_validate(&cfg, &err) != TS_OK)
        FAIL("%s: the defaults do not validate: %s", name, err.message);
    size_t n = ts_config_key_count();
    if (n != 31 || n > TS_CONFIG_MAX_KEYS)
        FAIL("%s: %zu keys, expected 31", name, n);
    for (size_t i = 0; i < n; i++) {
        const char *key = ts_config_key_name(i), *doc = ts_config_key_doc(i);
        char value[1200], want[1300];
        ts_config_value_string(&cfg, i, value, sizeof value);
        snprintf(want, sizeof want, "(default %s, range ", value);
        if (!strchr(key, '.'))
            FAIL("%s: key name '%s' is not section.key", name, key);
        if (!doc || !strstr(doc, want) || strchr(doc, '\n'))
            FAIL("%s: doc of %s is not one line with '%s': %s", name, key, want, doc ? doc : "(null)");
        for (size_t j = 0; j < i; j++)
            if (strcmp(key, ts_config_key_name(j)) == 0)
                FAIL("%s: key %s appears twice", name, key);
        /* Assigning each default through --set must be accepted: the same parser reads both. */
        char set[1300];
        snprintf(set, sizeof set, "%s=%s", key, value);
        if (ts_config_set(&cfg, set, &err) != TS_OK)
            FAIL("%s: default of %s does not read back: %s", name, key, err.message);
        /* The table's own text of the default: app/binding.c compares the OpenMP keys' values
         * with it to skip judging (and discovering the topology for) a default a file repeats. */
        const char *def = ts_config_key_default(i);
        if (!def)
            FAIL("%s: %s has no default text", name, key);
        else if (strncmp(key, "openmp.", 7) == 0 && strcmp(def, value) != 0)
            FAIL("%s: default text of %s is '%s', its default value reads '%s'", name, key, def, value);
    }
    if (ts_config_key_name(n) || ts_config_key_doc(n) || ts_config_key_default(n))
        FAIL("%s: index %zu past the table has a name, doc or default", name, n);
}

/* ---- every shipped config loads and validates ---- */

static void test_examples(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        FAIL("%s: cannot open %s", "examples", dir);
        return;
    }
    int count = 0;
    bool have_default = false;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        char path[4096], kernel[64];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(kernel, sizeof kernel, "%.*s", (int)(len - 4), e->d_name);
        struct ts_config cfg;
        struct ts_error err;
        ts_config_defaults(&cfg);
        if (ts_config_load(&cfg, path, &err) != TS_OK || ts_config_validate(&cfg, &err) != TS_OK)
            FAIL("%s: %s", e->d_name, err.message);
        /* A file named after a kernel runs that kernel. */
        else if (strstr("|sum|triad|stencil2d|stencil3d|", kernel) && strcmp(cfg.kernel, kernel) != 0)
            FAIL("%s: selects kernel %s, not %s", e->d_name, cfg.kernel, kernel);
        /* A shipped config sets nothing its kernel ignores: `make run` must not warn. */
        char unused[1][TS_CONFIG_NOTE_LEN];
        if (ts_config_unused_keys(&cfg, unused, 1) > 0)
            FAIL("%s: %s", e->d_name, unused[0]);
        have_default |= strcmp(e->d_name, "default.ini") == 0;
        count++;
        ts_config_free(&cfg);
    }
    closedir(d);
    if (count < 5 || !have_default)
        FAIL("%s: %d config files in %s, expected default.ini and one per kernel", "examples", count, dir);
    printf("%d config files checked\n", count);
}

/* ---- every key's documented range, kept here apart from the key table ---- */

/* docs/configuration.md's key table, copied by hand: a bound loosened or tightened in the key table
 * must fail here, not only change a message. */
static const struct int_range {
    const char *key;
    long long min, max;
} int_ranges[] = {
    { "run.iterations", 1, 1000000000 },          /* 1 .. 10^9 */
    { "run.warmup", 0, 1000000 },                 /* 0 .. 10^6 */
    { "sum.n", 1, 1099511627776LL },              /* 1 .. 2^40 */
    { "triad.n", 1, 1099511627776LL },            /* 1 .. 2^40 */
    { "stencil.nx", 3, 16777216 },                /* 3 .. 2^24 */
    { "stencil.ny", 3, 16777216 },                /* 3 .. 2^24 */
    { "stencil.nz", 3, 1048576 },                 /* 3 .. 2^20 */
    { "stencil.time_block", 1, 4096 },            /* 1 .. 4096 */
    { "stencil.block_y", 0, 16777216 },           /* 0 .. 2^24 */
    { "init.seed", 0, 9223372036854775807LL },    /* 0 .. 2^63-1 */
    { "openmp.threads", 0, 4096 },                /* 0 .. 4096 */
    { "output.checkpoint_every", 0, 1000000000 }, /* 0 .. 10^9 */
    { "placement.sample_stride", 0, 1073741824 }, /* 0 .. 2^30 */
};

static const struct word_range {
    const char *key;
    const char *words[8]; /* every accepted word */
} word_ranges[] = {
    { "run.kernel", { "sum", "triad", "stencil2d", "stencil3d" } },
    { "sum.mode", { "reproducible", "fast" } },
    { "init.mode", { "parallel", "serial" } },
    { "init.policy", { "firsttouch", "interleave", "bind:0", "preferred:1" } },
    { "openmp.proc_bind", { "close", "spread", "master", "primary", "true", "false" } },
    { "triad.nontemporal", { "true", "false", "yes", "no", "on", "off", "1", "0" } },
    { "stencil.nontemporal", { "true", "false", "yes", "no", "on", "off", "1", "0" } },
    { "init.huge_pages", { "true", "false", "yes", "no", "on", "off", "1", "0" } },
    { "output.write_field", { "true", "false", "yes", "no", "on", "off", "1", "0" } },
    { "output.overwrite", { "true", "false", "yes", "no", "on", "off", "1", "0" } },
    { "placement.audit", { "true", "false", "yes", "no", "on", "off", "1", "0" } },
    { "placement.at_end", { "true", "false", "yes", "no", "on", "off", "1", "0" } },
    { "check.binding", { "off", "strict" } },
    { "mpi.dims", { "auto", "2x2", "1x1x1", "3x1x4", "1048576x1", "1x1x1048576" } },
};

static const struct double_case {
    const char *key, *value;
    bool accepted;
} double_cases[] = {
    { "stencil.alpha", "5e-324", true }, /* > 0: the smallest positive double */
    { "stencil.alpha", "0", false },
    { "stencil.alpha", "-0.0", false },
    { "stencil.alpha", "-1e-300", false },
    { "triad.scalar", "-1.7976931348623157e308", true }, /* any finite number */
    { "triad.scalar", "1.7976931348623157e308", true },
    { "triad.scalar", "0", true },
    { "triad.scalar", "1e309", false },
    { "triad.scalar", "-inf", false },
    { "triad.scalar", "nan", false },
};

/* Sets key=value through --set and through a file; both must agree with accepted, and a
 * refusal must be TS_BAD_INPUT and leave the value as it was. */
static void expect_value(const char *key, const char *value, bool accepted)
{
    char set[256], ini[256], path[64], before[1200], after[1200];
    const char *dot = strchr(key, '.');
    snprintf(set, sizeof set, "%s=%s", key, value);
    snprintf(ini, sizeof ini, "[%.*s]\n%s = %s\n", (int)(dot - key), key, dot + 1, value);
    size_t k = key_index(key);
    for (int via_file = 0; via_file < 2; via_file++) {
        struct ts_config cfg;
        struct ts_error err;
        ts_config_defaults(&cfg);
        ts_error_clear(&err);
        ts_config_value_string(&cfg, k, before, sizeof before);
        int rc;
        if (via_file) {
            write_temp(path, ini);
            rc = ts_config_load(&cfg, path, &err);
            unlink(path);
        } else {
            rc = ts_config_set(&cfg, set, &err);
        }
        ts_config_value_string(&cfg, k, after, sizeof after);
        const char *how = via_file ? "in a file" : "by --set";
        if (accepted && rc != TS_OK)
            FAIL("%s: %s = %s %s refused (%d): %s", "ranges", key, value, how, rc, err.message);
        else if (!accepted && rc != TS_BAD_INPUT)
            FAIL("%s: %s = %s %s: status %d, expected %d (refused)", "ranges", key, value, how, rc, TS_BAD_INPUT);
        else if (!accepted && strcmp(before, after) != 0)
            FAIL("%s: %s = %s %s refused, but the value changed to %s", "ranges", key, value, how, after);
        ts_config_free(&cfg);
    }
}

/* One value checked by ts_config_validate after a --set of the kernel. */
static void expect_valid(const char *kernel, const char *alpha, bool valid)
{
    struct ts_config cfg;
    struct ts_error err;
    char k[64], a[64];
    snprintf(k, sizeof k, "run.kernel=%s", kernel);
    snprintf(a, sizeof a, "stencil.alpha=%s", alpha);
    ts_config_defaults(&cfg);
    int rc = ts_config_set(&cfg, k, &err);
    if (rc == TS_OK)
        rc = ts_config_set(&cfg, a, &err);
    if (rc == TS_OK)
        rc = ts_config_validate(&cfg, &err);
    if (valid ? rc != TS_OK : rc != TS_BAD_INPUT)
        FAIL("%s: kernel %s with alpha %s: status %d, expected %s", "ranges", kernel, alpha, rc,
             valid ? "valid" : "refused");
    ts_config_free(&cfg);
}

static void test_ranges(void)
{
    char text[32];
    for (size_t i = 0; i < sizeof int_ranges / sizeof int_ranges[0]; i++) {
        const struct int_range *r = &int_ranges[i];
        snprintf(text, sizeof text, "%lld", r->min);
        expect_value(r->key, text, true);
        snprintf(text, sizeof text, "%lld", r->max);
        expect_value(r->key, text, true);
        snprintf(text, sizeof text, "%lld", r->min - 1);
        expect_value(r->key, text, false);
        if (r->max == 9223372036854775807LL)
            snprintf(text, sizeof text, "9223372036854775808");
        else
            snprintf(text, sizeof text, "%lld", r->max + 1);
        expect_value(r->key, text, false);
    }
    for (size_t i = 0; i < sizeof word_ranges / sizeof word_ranges[0]; i++) {
        const struct word_range *r = &word_ranges[i];
        for (size_t w = 0; w < 8 && r->words[w]; w++)
            expect_value(r->key, r->words[w], true);
        expect_value(r->key, "bogus", false);
        expect_value(r->key, "", false);
    }
    for (size_t i = 0; i < sizeof double_cases / sizeof double_cases[0]; i++)
        expect_value(double_cases[i].key, double_cases[i].value, double_cases[i].accepted);
    /* stencil.alpha: stable up to 0.25 for stencil2d and 1/6 for stencil3d (the next doubles fail). */
    expect_valid("stencil2d", "0.25", true);
    expect_valid("stencil2d", "0.25000000000000006", false);
    expect_valid("stencil3d", "0.16666666666666666", true);
    expect_valid("stencil3d", "0.16666666666666669", false);
    expect_valid("sum", "1000", true);
    /* Every key of the table has its range above, so a new key needs one too. */
    size_t covered = sizeof int_ranges / sizeof int_ranges[0] + sizeof word_ranges / sizeof word_ranges[0] + 2;
    size_t free_text = 2; /* openmp.places, output.file: their syntax has cases of its own */
    if (covered + free_text != ts_config_key_count())
        FAIL("%s: %zu keys have a range here, %zu in the table", "ranges", covered + free_text, ts_config_key_count());
}

/* ---- keys that have no effect on the run ---- */

static const struct unused_case {
    const char *name, *ini;
    const char *sets[MAX_SETS];
    int count;
    const char *expect; /* a substring of the first line; %f is the file */
} unused_cases[] = {
    { "defaults", NULL, { 0 }, 0, NULL },
    { "another kernel's key by --set",
      NULL,
      { "run.kernel=sum", "triad.n=1000" },
      1,
      "[triad] n = 1000 (--set #2) has no effect: kernel sum does not read it" },
    { "a --set at the default warns too", NULL, { "run.kernel=sum", "triad.n=20000000" }, 1, "[triad] n = 20000000" },
    { "a file key at its default does not", "[run]\nkernel = sum\n[triad]\nn = 2e7\nscalar = 3.0\n", { 0 }, 0, NULL },
    { "a file key off its default does",
      "[run]\nkernel = sum\n[triad]\nn = 2e7\nscalar = 2\n",
      { 0 },
      1,
      "[triad] scalar = 2 (%f:5) has no effect: kernel sum does not read it" },
    { "stencil keys with sum",
      NULL,
      { "run.kernel=sum", "stencil.nx=64", "stencil.alpha=0.2" },
      2,
      "[stencil] nx = 64 (--set #2) has no effect" },
    { "stencil.nz with stencil2d", NULL, { "stencil.nz=8", "stencil.nx=64" }, 1, "[stencil] nz = 8 (--set #1)" },
    { "stencil.block_y with stencil2d", NULL, { "stencil.block_y=4" }, 1, "kernel stencil2d does not read it" },
    { "stencil.block_y with stencil3d",
      NULL,
      { "run.kernel=stencil3d", "stencil.block_y=4", "stencil.nz=8" },
      0,
      NULL },
    { "stencil.block_y with temporal blocking (the wavefront's tiles)",
      NULL,
      { "run.kernel=stencil3d", "stencil.block_y=4", "stencil.time_block=2" },
      0,
      NULL },
    { "init.seed with a stencil", NULL, { "init.seed=7" }, 1, "[init] seed = 7 (--set #1) has no effect" },
    { "init.seed with triad", NULL, { "run.kernel=triad", "init.seed=7", "triad.n=5" }, 0, NULL },
    { "write_field with sum",
      NULL,
      { "run.kernel=sum", "output.write_field=yes" },
      1,
      "[output] write_field = true (--set #2) has no effect: kernel sum does not read it" },
    { "sample stride without the audit",
      NULL,
      { "placement.audit=off", "placement.sample_stride=8" },
      1,
      "[placement] sample_stride = 8 (--set #2) has no effect: placement.audit = false" },
    { "mpi.dims with triad",
      NULL,
      { "run.kernel=triad", "mpi.dims=2x2x1" },
      1,
      "[mpi] dims = 2x2x1 (--set #2) has no effect: kernel triad does not read it" },
    { "mpi.dims with stencil3d", NULL, { "run.kernel=stencil3d", "mpi.dims=1x2x2" }, 0, NULL },
    { "sum's keys with sum", "[run]\nkernel = sum\n[sum]\nn = 5\nmode = fast\n[init]\nseed = 3\n", { 0 }, 0, NULL },
};

static void test_unused(void)
{
    for (size_t c = 0; c < sizeof unused_cases / sizeof unused_cases[0]; c++) {
        const struct unused_case *u = &unused_cases[c];
        struct ts_config cfg;
        struct ts_error err;
        char path[64], lines[4][TS_CONFIG_NOTE_LEN];
        if (run_case(&cfg, u->ini, NULL, u->sets, 0, false, path, &err) != TS_OK) {
            FAIL("%s: setup failed: %s", u->name, err.message);
            continue;
        }
        size_t n = ts_config_unused_keys(&cfg, lines, 4);
        if (n != (size_t)u->count)
            FAIL("%s: %zu keys without effect, expected %d%s%s", u->name, n, u->count, n ? ": " : "",
                 n ? lines[0] : "");
        char want[512];
        if (u->expect && n > 0) {
            expand(want, sizeof want, u->expect, path);
            if (!strstr(lines[0], want))
                FAIL("%s: '%s' lacks '%s'", u->name, lines[0], want);
        }
        /* max bounds what is written, not the count. */
        if (n > 0 && ts_config_unused_keys(&cfg, lines, 0) != n)
            FAIL("%s: the count depends on max", u->name);
        ts_config_free(&cfg);
    }
}

/* ---- overrides from options: errors name the option as typed ---- */

static void test_options(void)
{
    static const struct {
        const char *assignment, *option, *expect;
    } cases[] = {
        { "openmp.threads=5000", "--threads", "--threads 5000: out of range, must be 0..4096" },
        { "openmp.threads=-1", "--threads", "--threads -1: out of range, must be 0..4096" },
        { "openmp.threads=many", "--threads", "--threads many: not an integer, must be 0..4096" },
        { "output.file=run-%x.h5", "-o", "-o run-%x.h5: unknown placeholder '%x'" },
        { "output.file=run ;1.h5", "--output", "--output run ;1.h5: a ';' after a space starts a comment" },
        { "output.file=caf\xe9.h5", "-o", "-o caf\\xe9.h5: not valid UTF-8 at byte 4 (0xe9)" },
        { "openmp.threads=5000", NULL, "--set openmp.threads=5000: [openmp] threads = 5000: out of range" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct ts_config cfg;
        struct ts_error err;
        ts_config_defaults(&cfg);
        int rc = ts_config_set_option(&cfg, cases[c].assignment, cases[c].option, &err);
        if (rc != TS_BAD_INPUT)
            FAIL("%s: %s as %s: status %d, expected %d", "options", cases[c].assignment,
                 cases[c].option ? cases[c].option : "--set", rc, TS_BAD_INPUT);
        else if (strncmp(err.message, cases[c].expect, strlen(cases[c].expect)) != 0)
            FAIL("%s: message '%s' does not start with '%s'", "options", err.message, cases[c].expect);
        ts_config_free(&cfg);
    }
    struct ts_config cfg;
    struct ts_error err;
    ts_config_defaults(&cfg);
    if (ts_config_set_option(&cfg, "openmp.threads=8", "--threads", &err) != TS_OK || cfg.threads != 8
        || cfg.n_sets != 1 || cfg.origin[key_index("openmp.threads")].source != TS_CONFIG_SET)
        FAIL("%s: --threads 8 not applied and recorded as an override", "options");
    ts_config_free(&cfg);
}

/* ---- the CPUs an explicit OMP_PLACES names (the "places outside the allowed CPUs" warning) ---- */

static void test_places(void)
{
    static const struct {
        const char *places;
        int n; /* -1: not a list of CPUs it can read */
        int cpus[8];
    } cases[] = {
        { "{0:4},{8:2:2}", 6, { 0, 1, 2, 3, 8, 10 } },
        { "{0:2}:3:4", 6, { 0, 1, 4, 5, 8, 9 } },
        { "{6:3:-2}", 3, { 6, 4, 2 } },
        { "{0,!1,2}", 2, { 0, 2 } },
        { "!{0},{1}", 1, { 1 } },
        { "{0}:1000000000000000", 8, { 0, 1, 2, 3, 4, 5, 6, 7 } }, /* cut at the buffer, quickly */
        { "{!0}:1000000000000000000", 0, { 0 } },                  /* an empty place copied: nothing */
        { "cores", -1, { 0 } },
        { "{0", -1, { 0 } },
        /* numbers past int: no CPU has them (strtol saturates to LONG_MAX here) */
        { "{99999999999999999999999:2}", -1, { 0 } },
        { "{2147483647:2}", -1, { 0 } },
        { "{0}:2:4611686018427387904", -1, { 0 } },
        { "{-2147483648:2:-1}", -1, { 0 } },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int cpus[8];
        int n = ts_places_named_cpus(cases[c].places, cpus, 8);
        if (n != cases[c].n) {
            FAIL("%s: %s names %d CPUs, expected %d", "places", cases[c].places, n, cases[c].n);
            continue;
        }
        for (int i = 0; i < n; i++)
            if (cpus[i] != cases[c].cpus[i])
                FAIL("%s: %s: CPU %d is %d, expected %d", "places", cases[c].places, i, cpus[i], cases[c].cpus[i]);
    }
}

/* ---- mpi.dims: the text and the numbers ---- */

static void test_dims(void)
{
    static const struct {
        const char *text;
        int dims[3]; /* all 0: refused (or auto) */
        const char *why;
    } cases[] = {
        { "auto", { 0, 0, 0 }, NULL },
        { "2x2", { 2, 2, 0 }, NULL },
        { "1x1", { 1, 1, 0 }, NULL },
        { "2x1x3", { 2, 1, 3 }, NULL },
        { "007x2", { 7, 2, 0 }, NULL },
        { "1048576x1x1", { 1048576, 1, 1 }, NULL },
        { "Auto", { 0 }, "not auto or ranks per axis" },
        { "2X2", { 0 }, "not auto or ranks per axis" },
        { "2 x 2", { 0 }, "not auto or ranks per axis" },
        { "2x", { 0 }, "not auto or ranks per axis" },
        { "x2", { 0 }, "not auto or ranks per axis" },
        { "2xx2", { 0 }, "not auto or ranks per axis" },
        { "+2x2", { 0 }, "not auto or ranks per axis" },
        { "-1x2", { 0 }, "not auto or ranks per axis" },
        { "2.0x2", { 0 }, "not auto or ranks per axis" },
        { "1e2x1", { 0 }, "not auto or ranks per axis" },
        { "0x4", { 0 }, "ranks per axis must be 1..1048576" },
        { "1048577x1", { 0 }, "ranks per axis must be 1..1048576" },
        { "99999999999999999999x1", { 0 }, "ranks per axis must be 1..1048576" },
        { "2x2x2x2", { 0 }, "more than 3 axes" },
        { "8", { 0 }, "one axis" },
        { "", { 0 }, "not auto or ranks per axis" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int dims[3] = { -1, -1, -1 };
        char why[128] = "";
        bool ok = ts_dims_parse(cases[c].text, dims, why, sizeof why);
        if (ok != !cases[c].why)
            FAIL("%s: '%s' %s", "dims", cases[c].text, ok ? "accepted" : why);
        else if (!ok && !strstr(why, cases[c].why))
            FAIL("%s: '%s' refused with '%s', expected '%s'", "dims", cases[c].text, why, cases[c].why);
        for (int a = 0; a < 3; a++)
            if (dims[a] != cases[c].dims[a])
                FAIL("%s: '%s' gives dims[%d] = %d, expected %d", "dims", cases[c].text, a, dims[a], cases[c].dims[a]);
    }

    /* The numbers follow the text through --set, back to auto included; a refused value leaves both. */
    struct ts_config cfg;
    struct ts_error err;
    ts_config_defaults(&cfg);
    if (strcmp(cfg.dims_text, "auto") || cfg.dims[0] || cfg.dims[1] || cfg.dims[2])
        FAIL("%s: default '%s' as %d,%d,%d", "dims", cfg.dims_text, cfg.dims[0], cfg.dims[1], cfg.dims[2]);
    if (ts_config_set(&cfg, "mpi.dims=3x2", &err) != TS_OK || cfg.dims[0] != 3 || cfg.dims[1] != 2 || cfg.dims[2])
        FAIL("%s: --set mpi.dims=3x2 gives %d,%d,%d", "dims", cfg.dims[0], cfg.dims[1], cfg.dims[2]);
    if (ts_config_set(&cfg, "mpi.dims=3x0", &err) == TS_OK || strcmp(cfg.dims_text, "3x2") || cfg.dims[0] != 3)
        FAIL("%s: a refused --set changed mpi.dims to '%s'", "dims", cfg.dims_text);
    else if (!strstr(err.message, "--set mpi.dims=3x0: [mpi] dims = 3x0: ranks per axis must be 1..1048576"))
        FAIL("%s: unexpected message: %s", "dims", err.message);
    if (ts_config_set(&cfg, "mpi.dims=auto", &err) != TS_OK || cfg.dims[0] || cfg.dims[1] || cfg.dims[2])
        FAIL("%s: --set mpi.dims=auto gives %d,%d,%d", "dims", cfg.dims[0], cfg.dims[1], cfg.dims[2]);
    /* The kernel decides the axes: sum and triad do not read the key, so any grid validates. */
    const char *const valid[][2] = { { "stencil2d", "2x3" },
                                     { "stencil3d", "1x1x5" },
                                     { "sum", "2x2x2" },
                                     { "triad", "2x2" },
                                     { "stencil3d", "auto" } };
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        char k[64], d[64];
        snprintf(k, sizeof k, "run.kernel=%s", valid[i][0]);
        snprintf(d, sizeof d, "mpi.dims=%s", valid[i][1]);
        ts_config_defaults(&cfg);
        if (ts_config_set(&cfg, k, &err) != TS_OK || ts_config_set(&cfg, d, &err) != TS_OK
            || ts_config_validate(&cfg, &err) != TS_OK)
            FAIL("%s: kernel %s with dims %s refused: %s", "dims", valid[i][0], valid[i][1], err.message);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "good") == 0)
        test_good();
    else if (strcmp(what, "bad") == 0)
        test_bad();
    else if (strcmp(what, "fields") == 0)
        test_fields();
    else if (strcmp(what, "print") == 0)
        test_print();
    else if (strcmp(what, "keys") == 0)
        test_keys();
    else if (strcmp(what, "places") == 0)
        test_places();
    else if (strcmp(what, "ranges") == 0)
        test_ranges();
    else if (strcmp(what, "unused") == 0)
        test_unused();
    else if (strcmp(what, "options") == 0)
        test_options();
    else if (strcmp(what, "dims") == 0)
        test_dims();
    else if (strcmp(what, "examples") == 0 && argc > 2)
        test_examples(argv[2]);
    else {
        fprintf(
            stderr,
            "usage: test_config good|bad|fields|print|keys|places|ranges|unused|options|dims|examples <configs dir>\n");
        return 2;
    }
    return ts_test_finish();
}
