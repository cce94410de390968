/* Reading a written file back through the plain HDF5 C API, independently of the writer's
 * helpers. Paths are relative to loc ("timings/iteration"); failures count via CHECK. */
#ifndef TOUCHSTONE_TESTS_IO_H5_READ_H
#define TOUCHSTONE_TESTS_IO_H5_READ_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* A variable-length string attribute (what h5py reads as str); NULL when absent or not one.
 * The caller frees it. */
char *rd_str_attr(hid_t loc, const char *obj, const char *name);
/* An integer or float attribute converted to the requested native type; 0 when absent. */
int64_t rd_int_attr(hid_t loc, const char *obj, const char *name);
double rd_f64_attr(hid_t loc, const char *obj, const char *name);

/* Rank of a dataset and its dims (up to 3); -1 when it does not exist. */
int rd_dims(hid_t loc, const char *path, hsize_t *dims);
/* Reads a whole dataset into out (mem_type, at most n elements); 0 on success. */
int rd_all(hid_t loc, const char *path, hid_t mem_type, void *out, hsize_t n);
double rd_scalar(hid_t loc, const char *path);

/* A column of a compound table read into a C struct: numeric (type) or fixed string. */
struct rd_col {
    const char *name;
    size_t offset;
    hid_t type;
    size_t str_size;
};
/* One line each: clang-format 14 spreads a braced initialiser in a macro over four. */
/* clang-format off */
#define RD_NUM(s, f, t) { #f, offsetof(s, f), (t), 0 }
#define RD_STR(s, f) { #f, offsetof(s, f), 0, sizeof(((s *)0)->f) }
/* clang-format on */

/* Checks that the file's compound has exactly these columns (strings fixed-length and
 * null-terminated), then reads up to n_rows rows of row_size bytes; 0 on success. */
int rd_table(hid_t loc, const char *path, size_t row_size, const struct rd_col *cols, size_t n_cols, void *rows,
             hsize_t n_rows);

/* Checks that `path` has units attribute `units`. */
void expect_units(hid_t loc, const char *path, const char *units);
/* Checks a string attribute's value. */
void expect_str_attr(hid_t loc, const char *obj, const char *name, const char *value);

#endif
