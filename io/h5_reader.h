/* Reading HDF5 files as untrusted input: the one validation layer every reader goes through.
 * Each call checks that the object exists (through hard links only: an external link would
 * make HDF5 open some other file), that its class, rank and shape are what the schema says,
 * and that every value is in range, before anything reaches the caller. Any problem becomes
 * TS_BAD_INPUT with a message "FILE: /path: what was expected, what was found" (memory
 * running out while reading, TS_RESOURCE_ERROR; a file that cannot be opened, the status of
 * its errno, ts_file_status); attributes
 * are named /object@attribute. HDF5 never prints: its error stack is turned into messages. */
#ifndef TOUCHSTONE_IO_H5_READER_H
#define TOUCHSTONE_IO_H5_READER_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"

struct h5r {
    const char *name; /* the file as the user named it: first in every message */
    hid_t file;
    struct ts_error *err;
    hsize_t file_bytes; /* the file's size, which bounds what it may inflate to */
    hsize_t inflated;   /* bytes of deflated datasets read so far (h5r_inflate_ok) */
};

/* Opens path read-only into r->file (r->name is set to path). Missing or unreadable files
 * fail with the errno text, anything that is not HDF5 or that HDF5 cannot open (truncated,
 * corrupted superblock) with HDF5's reason. */
int h5r_open_path(struct h5r *r, const char *path, struct ts_error *err);

/* The same for a file image in memory (copied; the caller keeps bytes). name is only used in
 * messages. One image is open at a time per process (they share the core driver's name). */
int h5r_open_image(struct h5r *r, const void *bytes, size_t n, const char *name, struct ts_error *err);

/* The transfer properties of every H5Dread here: HDF5's default conversion buffer is 1 MiB,
 * allocated and zeroed for each read that converts (every table and string), which made
 * reading a small run file mostly memset (plot and report of 1,000 files). 64 KiB holds
 * hundreds of rows; larger reads go through it in pieces. H5P_DEFAULT when it cannot be made. */
hid_t h5r_xfer(void);

/* Makes every variable-length string read from now on fail (HDF5: "a variable-length string
 * longer than the file it is in") when its stored length exceeds file_bytes, before HDF5
 * sizes anything from it. h5r_open_* call it with the file's size. 0, or -1 when HDF5 would
 * not take the guard. */
int h5r_bound_strings(hsize_t file_bytes);

/* Closes the file and everything still open in it. */
void h5r_close(struct h5r *r);

/* Records "FILE: PATH: message" in r->err and returns TS_BAD_INPUT. */
int h5r_fail(struct h5r *r, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same message for memory the reader could not get: returns TS_RESOURCE_ERROR. */
int h5r_out_of_memory(struct h5r *r, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1 when path ("/placement", "/results/glups_median") is reached through hard links and is
 * an object of that type (H5I_GROUP, H5I_DATASET; H5I_BADID for either), 0 when it is
 * absent, -1 (err filled) when it is something else or cannot be looked up. h5r_has_attr:
 * the same for attribute name of the object obj, which must exist. */
int h5r_has(struct h5r *r, const char *path, H5I_type_t type);
int h5r_has_attr(struct h5r *r, const char *obj, const char *name);

/* TS_OK when value is one of known (NULL-terminated); else "FILE: where: 'value' is not WHAT
 * touchstone knows (a, b, c)", TS_BAD_INPUT: an enumerated attribute of the schema. */
int h5r_known(struct h5r *r, const char *where, const char *value, const char *const *known, const char *what);

/* Required items: absent is an error. */
int h5r_group(struct h5r *r, const char *path);

/* A scalar string attribute (variable or fixed length), cut to size - 1 bytes. Control
 * characters and invalid UTF-8 become '?', so what is read can go to a terminal or to JSON. */
int h5r_str_attr(struct h5r *r, const char *obj, const char *name, char *buf, size_t size);

/* A scalar integer attribute in [min, max]. */
int h5r_int_attr(struct h5r *r, const char *obj, const char *name, int64_t min, int64_t max, int64_t *out);

/* A scalar floating-point attribute in [min, max], or NaN when nan_ok. */
int h5r_double_attr(struct h5r *r, const char *obj, const char *name, double min, double max, int nan_ok, double *out);

/* What a floating-point dataset must look like. dims[i] come from counts read earlier and
 * why names them for the message ("n_threads x n_iterations"). */
struct h5r_doubles {
    const char *path;
    int rank; /* 0: scalar, up to 3 */
    hsize_t dims[3];
    const char *why; /* NULL for scalars */
    double min, max; /* every value in [min, max] */
    int nan_ok;      /* NaN allowed ("does not apply") */
    /* Only for files that must be exactly as touchstone wrote them (checkpoints): */
    int exact;            /* stored as IEEE f64 little-endian */
    const hsize_t *chunk; /* non-NULL: chunked with these dims, a Fletcher32 checksum its only filter */
    const char *digest;   /* non-NULL: this uint64 attribute of the dataset holds ts_digest64 of the
                             values as doubles in C order (common/ts_digest.h), */
    int digest_points;    /*   or with digest_points, their ts_digest_points from position 0 */
    /* A block (start, count per axis, both non-NULL): only its values are read, into out as an
     * array of count; the dataset is checked whole all the same. Its digest cannot be checked
     * from a block: the stored one goes to *digest_read (not NULL then) for the caller. */
    const hsize_t *start, *count;
    uint64_t *digest_read;
};

/* Filters a dataset the readers take may be stored with: deflate, shuffle, Fletcher32 (anything
 * else is refused before HDF5 would look for a plugin). Deflated data holds at most this many
 * bytes per stored byte (zlib's limit), which bounds what a small file can make a reader
 * allocate. */
#define TS_H5R_MAX_DEFLATE_RATIO 1032

/* What the deflated datasets of one file may inflate to in all: this floor plus this many times
 * the file's size. Real timings deflate by less than 4; only a deflate bomb comes near zlib's
 * 1032 (touchstone writes none of what the readers take deflated: these are copies someone
 * compressed). */
#define TS_H5R_INFLATE_FLOOR ((hsize_t)16 << 20)
#define TS_H5R_INFLATE_RATIO 16

/* Reads the whole dataset (or w's block) into out, which holds the product of dims (count) values. Before anything is
 * read, the dataset must really store that many values (docs/reliability.md, "Reading files safely"): a
 * contiguous or compact one at least their bytes, a chunked one the bytes of the chunks written
 * (divided by TS_H5R_MAX_DEFLATE_RATIO when deflated); nothing stored outside the file. */
int h5r_read_doubles(struct h5r *r, const struct h5r_doubles *w, double *out);

/* The same into a buffer it allocates after every check but the values' (freed and NULL on
 * failure), so that a file can make the reader allocate only what it really stores. */
int h5r_read_doubles_alloc(struct h5r *r, const struct h5r_doubles *w, double **out);

/* The length of a 1-D dataset of class cls (expected describes it for messages), without
 * reading it. */
int h5r_length(struct h5r *r, const char *path, H5T_class_t cls, const char *expected, hsize_t *n);

/* A 1-D string dataset (variable or fixed length) of at most max_lines strings, each cut to
 * max_line bytes and made safe as h5r_str_attr does, joined by '\n' into *text (malloc'd,
 * NUL-terminated, *bytes counting the NUL; NULL and 0 when the dataset is empty); *n is
 * how many strings it holds. More than max_lines is an error. */
int h5r_read_lines(struct h5r *r, const char *path, hsize_t max_lines, size_t max_line, char **text, size_t *bytes,
                   hsize_t *n);

/* The integer field `field` of every row of the 1-D compound dataset path, which must have
 * n rows, into out (n values), each in [min, max]. */
int h5r_read_int_field(struct h5r *r, const char *path, const char *field, hsize_t n, int64_t min, int64_t max,
                       int64_t *out);

/* A column of a compound table read into the caller's row structs (h5r_read_table): an integer
 * (type H5T_NATIVE_INT32 or H5T_NATIVE_INT64) or a double (H5T_NATIVE_DOUBLE) in [min, max],
 * or a fixed-length string (type 0) into a buffer of str_size bytes. */
struct h5r_col {
    const char *name;
    size_t offset;
    hid_t type;
    size_t str_size;
    double min, max;
    int nan_ok; /* doubles: NaN allowed */
};

/* 1 when the dataset path is a compound with a member called field, 0 when not (columns a
 * later writer added: older files lack them), -1 on a failed HDF5 call (r->err filled). */
int h5r_has_field(struct h5r *r, const char *path, const char *field);

/* The rows of the 1-D compound dataset path, which must have n rows (why names n for the
 * message) and at least these columns (strings of fixed length), into rows (n structs of
 * row_size bytes). Strings are cut to their buffer and made safe as h5r_str_attr does; with
 * raw_strings, they are left as stored (cut and terminated only), for the caller to compare
 * bytes before it calls ts_sanitize_text. */
int h5r_read_table(struct h5r *r, const char *path, hsize_t n, const char *why, size_t row_size,
                   const struct h5r_col *cols, size_t n_cols, int raw_strings, void *rows);

/* For the value readers: a failed HDF5 call on an object that passed every check (the bytes
 * behind it are bad), and an object of the wrong class or shape. Both return TS_BAD_INPUT. */
int h5r_fail_hdf5(struct h5r *r, const char *path, const char *doing);

/* Whether the bytes the file really stores can hold count values of type (docs/reliability.md, "Reading files
 * safely"): HDF5 reads data that was never written (a contiguous dataset cut short, chunks never
 * written) as fill values without any error, and would first allocate what the shape says. Also
 * refuses filters other than deflate, shuffle and Fletcher32 and storage outside the file. TS_OK
 * or TS_BAD_INPUT, with the reason in r; call before reading the dataset set at path. */
int h5r_storage_ok(struct h5r *r, const char *path, hid_t set, hid_t type, hsize_t count);

/* For a deflated dataset (h5r_storage_ok calls it; string datasets, whose size in the file is
 * not their values', call it alone): chunks of at most 16 MiB, each chunk's stream yielding no
 * more than its chunk holds (inflated here into a small buffer before HDF5 would inflate it
 * into whatever the stream asks), and count values of type within what the file may still
 * inflate (TS_H5R_INFLATE_FLOOR, TS_H5R_INFLATE_RATIO). TS_OK for data not deflated. */
int h5r_inflate_ok(struct h5r *r, const char *path, hid_t set, hid_t type, hsize_t count);
int h5r_mismatch(struct h5r *r, const char *path, const char *expected, hid_t type, hid_t space);

/* The head of HDF5's innermost error ("addr overflow"), or "HDF5 error"; call right after
 * the failing HDF5 call, before any other. */
void ts_h5_error_reason(char *buf, size_t size);

#endif
