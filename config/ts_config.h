/* The run configuration: one table of keys (section, name, type, default, range, doc)
 * drives parsing (libinih), --set overrides, validation, `touchstone check`, the
 * /config group of the HDF5 file and docs/configuration.md's key list. */
#ifndef TOUCHSTONE_CONFIG_TS_CONFIG_H
#define TOUCHSTONE_CONFIG_TS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ts_error.h"

/* Where a key's value came from. */
enum ts_config_source {
    TS_CONFIG_DEFAULT,
    TS_CONFIG_FILE, /* line holds the line number in the config file */
    TS_CONFIG_SET   /* line holds the 1-based index of the --set argument */
};

struct ts_config_origin {
    enum ts_config_source source;
    int line;
};

#define TS_CONFIG_MAX_KEYS 32

/* output.file's default: a run with it never fails for a name taken, it picks a free one. */
#define TS_OUTPUT_FILE_DEFAULT "touchstone-%k-%i-%j-%t.h5"
#define TS_CONFIG_MAX_SETS 64

struct ts_config {
    /* [run] */
    char kernel[16];    /* sum | triad | stencil2d | stencil3d */
    int64_t iterations; /* timed iterations */
    int64_t warmup;     /* untimed iterations before them */
    /* [sum] */
    int64_t sum_n;
    char sum_mode[16]; /* reproducible | fast */
    /* [triad] */
    int64_t triad_n;
    double triad_scalar;
    bool triad_nontemporal;
    /* [stencil] */
    int64_t nx, ny, nz;
    double alpha;
    bool stencil_nontemporal;
    int64_t time_block; /* time steps per iteration */
    int64_t block_y;    /* stencil3d rows per spatial block, 0: automatic */
    /* [init] */
    char init_mode[16]; /* parallel | serial */
    int64_t seed;
    char policy[32]; /* firsttouch | interleave | bind:N | preferred:N */
    bool huge_pages; /* transparent huge pages for the arrays (madvise), when big enough */
    /* [openmp] */
    int64_t threads;    /* 0: the OpenMP default (OMP_NUM_THREADS or all CPUs) */
    char places[256];   /* OMP_PLACES syntax */
    char proc_bind[16]; /* OMP_PROC_BIND value */
    /* [output] */
    char file[1024]; /* name template: %k kernel, %i init mode, %j Slurm job id or "local", %t timestamp,
                              %h host, %p process id, %% */
    bool overwrite;  /* an existing output (and its checkpoint) may be replaced */
    bool write_field;
    int64_t checkpoint_every; /* iterations between checkpoints, 0: only on a signal */
    /* [placement] */
    bool placement_audit;
    int64_t sample_stride; /* 0: automatic */
    bool placement_at_end;
    /* [check] */
    char check_binding[16]; /* off | strict */
    /* [mpi] */
    char dims_text[32]; /* the rank grid of the stencils as given: auto | AxB | AxBxC (x first) */
    int dims[3];        /* the same as numbers, x, y, z: all 0 for auto, dims[2] = 0 for AxB */

    /* Bookkeeping, filled by the loader. */
    char path[4096];                                    /* the config file, "" before loading */
    char *text;                                         /* its full text (owned; freed by ts_config_free) */
    struct ts_config_origin origin[TS_CONFIG_MAX_KEYS]; /* indexed like the key table */
    char sets[TS_CONFIG_MAX_SETS][1200];                /* the --set arguments, in order */
    int n_sets;
};

/* Every key at its documented default; path and text empty. */
void ts_config_defaults(struct ts_config *cfg);

/* Reads the INI file at path (once: see ts_config_read) and parses it over the current values.
 * Errors (TS_BAD_INPUT) name "path:line" and the key: unknown section (at its header line) or
 * key, duplicate key, unparsable or out-of-range value, syntax errors, text after a section's
 * ']', text that is not UTF-8, and a file that cannot be read (with the errno text; its status
 * is the errno's, ts_file_status). TS_RESOURCE_ERROR when memory runs out, TS_INTERNAL_ERROR
 * when cfg holds a file already. */
int ts_config_load(struct ts_config *cfg, const char *path, struct ts_error *err);

/* Reads a config file's text, exactly once and never blocking without a bound (common/ts_read.h:
 * a file that is not a regular file must reach its end within TOUCHSTONE_CONFIG_TIMEOUT seconds,
 * default 10). *text is malloc'd and NUL-terminated, *len its length. Fails (TS_BAD_INPUT) with
 * the path and what happened: cannot open (errno text), a directory or socket, larger than
 * 1 MiB, the time limit; a failed open or read has the status of its errno (ts_file_status),
 * memory running out TS_RESOURCE_ERROR. */
int ts_config_read(const char *path, char **text, size_t *len, struct ts_error *err);

/* Parses text (len bytes, read elsewhere, e.g. handed over by the binding re-exec) as the
 * config file at path: path is what messages and origins name. Errors as ts_config_load. */
int ts_config_load_text(struct ts_config *cfg, const char *path, const char *text, size_t len, struct ts_error *err);

/* Applies one --set argument "section.key=value" (recorded in cfg->sets). Errors name the
 * argument: "--set stencil.nx=abc: [stencil] nx = abc: not an integer, must be 3..16777216". */
int ts_config_set(struct ts_config *cfg, const char *assignment, struct ts_error *err);

/* The same for an assignment a command-line option stands for (option "--threads" for
 * "openmp.threads=5000"): errors name the option as typed, "--threads 5000: out of range, must
 * be 0..4096". option NULL is ts_config_set. */
int ts_config_set_option(struct ts_config *cfg, const char *assignment, const char *option, struct ts_error *err);

/* Checks the rules that span several keys (e.g. stencil.alpha against the kernel's
 * stability limit); errors name where the offending key was set. */
int ts_config_validate(const struct ts_config *cfg, struct ts_error *err);

void ts_config_free(struct ts_config *cfg);

/* Keys that were set (by --set, or in the file to something other than their default) but
 * that this run never reads: a section of another kernel (triad.n with kernel sum), a key of
 * the other stencil (stencil.nz with stencil2d), or a key another key switches off
 * (placement.sample_stride with placement.audit = false). Writes up to max lines such as
 * "[triad] n = 1000 (--set #1) has no effect: kernel sum does not read it" and returns how
 * many keys there are. */
#define TS_CONFIG_NOTE_LEN 640
size_t ts_config_unused_keys(const struct ts_config *cfg, char (*lines)[TS_CONFIG_NOTE_LEN], size_t max);

/* The key table, for iteration: "section.key", its current value as text, and where it came
 * from ("default", "<path>:<line>", "--set #<n>"). */
size_t ts_config_key_count(void);
const char *ts_config_key_name(size_t index);
const char *ts_config_key_doc(size_t index);     /* one line: meaning, default, range */
const char *ts_config_key_default(size_t index); /* the built-in default as the table writes it ("cores") */
/* The values of a key that come from a closed set, as words separated by single spaces, for a
 * shell to complete (`check --keys`): an enum's choices, true and false, the abstract places,
 * the policies ("bind:" and "preferred:" ask for a node after them), auto; "" for a key whose
 * values are open (numbers, names, lists). From the tables the parsers read. */
void ts_config_key_values(size_t index, char *buf, size_t len);
void ts_config_value_string(const struct ts_config *cfg, size_t index, char *buf, size_t len);
void ts_config_origin_string(const struct ts_config *cfg, size_t index, char *buf, size_t len);

/* The resolved config as INI text with each key's origin as a comment (for `check`). */
void ts_config_print(const struct ts_config *cfg, FILE *out);

#endif
