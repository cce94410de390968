/* Small HDF5 writing helpers shared by the group writers (internal to ts_io).
 * Every helper closes what it opened and, on failure, fills w->err with the final path,
 * the object being written and the OS error HDF5 met, then returns nonzero. */
#ifndef TOUCHSTONE_IO_H5_UTIL_H
#define TOUCHSTONE_IO_H5_UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_file_place.h"
#include "ts_h5_write.h"
#include "ts_record.h"

struct h5w {
    const char *final_path; /* named in every message: the temp file means nothing to users */
    struct ts_error *err;
    hid_t vstr; /* variable-length UTF-8 string type, shared by all string writes */
    hid_t xfer; /* dataset transfer properties of every write; 0 reads as H5P_DEFAULT */
};

#define H5W_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Records that `doing` ("writing dataset") `name` under loc failed; with loc < 0, name stands
 * alone. Must run before any other HDF5 call: the next API call clears the stack it reads. */
int h5w_fail(struct h5w *w, hid_t loc, const char *doing, const char *name);

hid_t h5w_group(struct h5w *w, hid_t loc, const char *name);

/* value NULL is written as "" so a missing optional string never aborts a run's output. */
int h5w_attr_str(struct h5w *w, hid_t loc, const char *name, const char *value);
int h5w_attr_num(struct h5w *w, hid_t loc, const char *name, hid_t type, const void *value);
int h5w_attr_list(struct h5w *w, hid_t loc, const struct ts_attr *attrs, int32_t n);

struct h5w_str_attr {
    const char *name;
    const char *value;
};
struct h5w_num_attr {
    const char *name;
    hid_t type;
    const void *value;
};
int h5w_attr_strs(struct h5w *w, hid_t loc, const struct h5w_str_attr *a, size_t n);
int h5w_attr_nums(struct h5w *w, hid_t loc, const struct h5w_num_attr *a, size_t n);

/* One dataset; rank 0 is a scalar. Compound types are packed in the file. */
struct h5w_ds {
    const char *name;
    hid_t type; /* memory type of data */
    int rank;
    hsize_t dims[3];
    const void *data;       /* may be NULL when the dataset is empty */
    int later;              /* created, values not written: the ranks write them (ts_h5_write_blocks) */
    const char *units;      /* always written: readers may rely on every dataset having one */
    const char *dims_label; /* optional "dims" attribute naming the axes */
    hid_t dcpl;             /* 0 (H5P_DEFAULT) or chunking and filters */
};
int h5w_dataset(struct h5w *w, hid_t loc, const struct h5w_ds *ds);

/* Creation properties of a field (a grid of doubles): chunked, Fletcher32-checksummed so that
 * HDF5 refuses to read a chunk whose bytes changed on disk, deflated when compress is set and
 * the library can. -1 on failure; the caller closes it. */
hid_t h5w_field_dcpl(int rank, const hsize_t *dims, int compress);

/* Scalar double datasets; skip_nan leaves out values that do not apply to this run. */
struct h5w_value {
    const char *name;
    double value;
    const char *units;
    int skip_nan;
};
int h5w_scalars(struct h5w *w, hid_t loc, const struct h5w_value *v, size_t n);
int h5w_vector(struct h5w *w, hid_t loc, const char *name, hid_t type, int64_t n, const void *data, const char *units);

/* A compound member: numeric (type set) or a fixed-length null-terminated string (str_size). */
struct h5w_member {
    const char *name;
    size_t offset;
    hid_t type;
    size_t str_size;
};
/* One line each: clang-format 14 spreads a braced initialiser in a macro over four. */
/* clang-format off */
#define H5W_NUM(rec, field, h5type) { #field, offsetof(rec, field), (h5type), 0 }
#define H5W_STR(rec, field) { #field, offsetof(rec, field), 0, sizeof(((rec *)0)->field) }
/* clang-format on */

/* A compound type (memory layout) of the members; -1 on failure, the caller closes it. */
hid_t h5w_compound(size_t struct_size, const struct h5w_member *m, size_t n);

/* A 1D table of n structs of struct_size bytes. */
int h5w_table(struct h5w *w, hid_t loc, const char *name, size_t struct_size, const struct h5w_member *members,
              size_t n_members, int64_t n, const void *rows, const char *units);

/* The same of the compound type (taken: closed here; -1 says it could not be made), its values
 * not written when later (the ranks write their rows: ts_h5_write_blocks). */
int h5w_table_type(struct h5w *w, hid_t loc, const char *name, hid_t type, int64_t n, const void *rows, int later,
                   const char *units);

/* The types of the rows the ranks write themselves, as their tables are written: a thread's row
 * of /threads/table (struct ts_thread_rec) and a counter row (struct ts_counter_row). -1 on
 * failure; the caller closes them. */
hid_t h5w_thread_row_type(void);
hid_t h5w_counter_row_type(void);

/* Fills the in-memory file; returns nonzero after filling w->err. */
typedef int h5w_build_fn(struct h5w *w, hid_t file, const void *ctx);

/* Builds a file in memory with build(ctx), then writes it to a temporary file next to
 * final_path, syncs it, lets fill (when not NULL) complete it, syncs it again and gives it its
 * name as place says (ts_file_place; NULL: renamed over final_path): a final name only ever
 * holds a complete file, and any failure leaves it untouched and no temporary file behind. */
int h5w_write_atomic(const char *final_path, h5w_build_fn *build, const void *ctx, struct ts_place *place,
                     const struct ts_h5_fill *fill, struct ts_error *err);

#endif
