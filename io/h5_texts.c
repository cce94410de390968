/* Reading lists: string datasets (/warnings, /summary), one integer field of a compound
 * table (/counters/kernel) and whole tables (/mpi/ranks), checked like every other value before
 * the caller sees it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_reader.h"
#include "ts_text_safe.h"

/* Fixed-length strings longer than this, or a dataset of them larger than MAX_FIXED_BYTES,
 * are refused before any buffer is sized from them. */
#define MAX_FIXED_STRING ((size_t)1 << 16)
#define MAX_FIXED_BYTES ((size_t)4 << 20)

/* Appends s (cut to max_line bytes, made safe) and a '\n' to the growing text. */
static int append(char **text, size_t *used, size_t *cap, const char *s, size_t max_line)
{
    size_t len = strnlen(s, max_line);
    if (*used + len + 2 > *cap) {
        size_t cap2 = (*cap ? 2 * *cap : 1024) + len + 2;
        char *more = realloc(*text, cap2);
        if (!more)
            return -1;
        *text = more;
        *cap = cap2;
    }
    memcpy(*text + *used, s, len);
    (*text)[*used + len] = '\0';
    ts_sanitize_text(*text + *used); /* a cut UTF-8 sequence becomes '?' too */
    *used += strlen(*text + *used);
    (*text)[(*used)++] = '\n';
    (*text)[*used] = '\0';
    return 0;
}

/* Reads the n strings of set into *text; fixed or variable length, as the file has them. */
static int read_strings(struct h5r *r, const char *path, hid_t set, hid_t type, hsize_t n, size_t max_line, char **text,
                        size_t *used)
{
    size_t cap = 0;
    int st = TS_OK;
    hid_t mem = H5Tcopy(type);
    if (mem < 0)
        return h5r_fail_hdf5(r, path, "cannot read");
    if (H5Tis_variable_str(type) > 0) {
        char **s = calloc(n, sizeof *s);
        hid_t space = H5Dget_space(set);
        if (!s)
            st = h5r_out_of_memory(r, path, "out of memory for %llu strings", (unsigned long long)n);
        else if (space < 0 || H5Dread(set, mem, H5S_ALL, H5S_ALL, h5r_xfer(), s) < 0)
            st = h5r_fail_hdf5(r, path, "cannot read");
        /* An element never written reads back as NULL: an empty line. */
        for (hsize_t i = 0; st == TS_OK && i < n; i++)
            if (append(text, used, &cap, s[i] ? s[i] : "", max_line) != 0)
                st = h5r_out_of_memory(r, path, "out of memory for its text");
        if (s && space >= 0 && H5Dvlen_reclaim(mem, space, H5P_DEFAULT, s) < 0 && st == TS_OK)
            st = h5r_fail_hdf5(r, path, "cannot read");
        if (space >= 0)
            H5Sclose(space);
        free(s);
    } else {
        size_t size = H5Tget_size(type);
        char *all = size > 0 && size <= MAX_FIXED_STRING && n * size <= MAX_FIXED_BYTES ? calloc(n, size) : NULL;
        char *one = all ? calloc(size + 1, 1) : NULL;
        if (!one)
            st = h5r_fail(r, path, "%llu fixed strings of %zu bytes are not what this file holds",
                          (unsigned long long)n, size);
        else if (H5Dread(set, mem, H5S_ALL, H5S_ALL, h5r_xfer(), all) < 0)
            st = h5r_fail_hdf5(r, path, "cannot read");
        for (hsize_t i = 0; st == TS_OK && i < n; i++) {
            memcpy(one, all + i * size, size); /* one[size] terminates what HDF5 need not */
            if (append(text, used, &cap, one, max_line) != 0)
                st = h5r_out_of_memory(r, path, "out of memory for its text");
        }
        free(one);
        free(all);
    }
    H5Tclose(mem);
    return st;
}

int h5r_read_lines(struct h5r *r, const char *path, hsize_t max_lines, size_t max_line, char **text, size_t *bytes,
                   hsize_t *n)
{
    *text = NULL;
    *bytes = 0;
    if (h5r_length(r, path, H5T_STRING, "1-D string dataset", n))
        return r->err->status;
    if (*n > max_lines)
        return h5r_fail(r, path, "%llu strings, more than the %llu touchstone reads", (unsigned long long)*n,
                        (unsigned long long)max_lines);
    if (*n == 0)
        return TS_OK;
    hid_t set = H5Dopen2(r->file, path, H5P_DEFAULT), type = set < 0 ? -1 : H5Dget_type(set);
    size_t used = 0;
    int st = set < 0 || type < 0 ? h5r_fail_hdf5(r, path, "cannot open") : h5r_inflate_ok(r, path, set, type, *n);
    if (st == TS_OK)
        st = read_strings(r, path, set, type, *n, max_line, text, &used);
    if (type >= 0)
        H5Tclose(type);
    if (set >= 0)
        H5Dclose(set);
    if (st != TS_OK) {
        free(*text);
        *text = NULL;
        return st;
    }
    (*text)[used - 1] = '\0'; /* no '\n' after the last line */
    *bytes = used;
    return TS_OK;
}

int h5r_read_int_field(struct h5r *r, const char *path, const char *field, hsize_t n, int64_t min, int64_t max,
                       int64_t *out)
{
    char where[256], expected[160];
    snprintf(where, sizeof where, "%s:%s", path, field);
    snprintf(expected, sizeof expected, "1-D compound of %llu rows (n_threads) with an integer field %s",
             (unsigned long long)n, field);
    int has = h5r_has(r, path, H5I_DATASET);
    if (has <= 0)
        return has == 0 ? h5r_fail(r, path, "missing (expected %s)", expected) : r->err->status;
    hid_t set = H5Dopen2(r->file, path, H5P_DEFAULT);
    hid_t type = set < 0 ? -1 : H5Dget_type(set), space = set < 0 ? -1 : H5Dget_space(set), mem = -1;
    hsize_t dims[1] = { 0 };
    int st = TS_OK, member = -1;
    if (set < 0 || type < 0 || space < 0)
        st = h5r_fail_hdf5(r, path, "cannot open");
    else if (H5Tget_class(type) != H5T_COMPOUND || H5Sget_simple_extent_type(space) != H5S_SIMPLE
             || H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, dims, NULL) != 1
             || dims[0] != n || (member = H5Tget_member_index(type, field)) < 0
             || H5Tget_member_class(type, (unsigned)member) != H5T_INTEGER)
        st = h5r_mismatch(r, path, expected, type, space);
    else
        st = h5r_storage_ok(r, path, set, type, n);
    if (st == TS_OK && n > 0) {
        /* A memory type of this one field: HDF5 picks it out of each row by name. */
        if ((mem = H5Tcreate(H5T_COMPOUND, sizeof(int64_t))) < 0 || H5Tinsert(mem, field, 0, H5T_NATIVE_INT64) < 0
            || H5Dread(set, mem, H5S_ALL, H5S_ALL, h5r_xfer(), out) < 0)
            st = h5r_fail_hdf5(r, where, "cannot read");
        for (hsize_t i = 0; st == TS_OK && i < n; i++)
            if (out[i] < min || out[i] > max)
                st = h5r_fail(r, where, "value [%llu] = %lld is out of range, expected %lld..%lld",
                              (unsigned long long)i, (long long)out[i], (long long)min, (long long)max);
    }
    if (mem >= 0)
        H5Tclose(mem);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (set >= 0)
        H5Dclose(set);
    return st;
}

/* The memory type of the columns: each at its offset, strings of the file's character set
 * (HDF5 converts neither ASCII to UTF-8 nor back). -1 and r->err filled when the file's type
 * lacks a column or holds it as another class. */
static hid_t table_mem_type(struct h5r *r, const char *path, hid_t ftype, size_t row_size, const struct h5r_col *cols,
                            size_t n_cols, const char *expected, hid_t space)
{
    hid_t mem = H5Tcreate(H5T_COMPOUND, row_size);
    if (mem < 0) {
        h5r_fail_hdf5(r, path, "cannot read");
        return -1;
    }
    for (size_t c = 0; c < n_cols; c++) {
        int member = H5Tget_member_index(ftype, cols[c].name);
        hid_t mtype = member < 0 ? -1 : H5Tget_member_type(ftype, (unsigned)member);
        H5T_class_t want = cols[c].type == 0 ? H5T_STRING : cols[c].type == H5T_NATIVE_DOUBLE ? H5T_FLOAT : H5T_INTEGER;
        int ok = mtype >= 0 && H5Tget_class(mtype) == want
                 && H5Tget_size(mtype) <= (want == H5T_STRING ? MAX_FIXED_STRING : 16)
                 && (want != H5T_STRING || H5Tis_variable_str(mtype) == 0);
        hid_t col = -1;
        if (ok && want == H5T_STRING) {
            H5T_cset_t cset = H5Tget_cset(mtype);
            col = H5Tcopy(H5T_C_S1);
            ok = col >= 0 && H5Tset_size(col, cols[c].str_size) >= 0 && H5Tset_strpad(col, H5T_STR_NULLTERM) >= 0
                 && H5Tset_cset(col, cset) >= 0;
        }
        ok = ok && H5Tinsert(mem, cols[c].name, cols[c].offset, col >= 0 ? col : cols[c].type) >= 0;
        if (col >= 0)
            H5Tclose(col);
        if (mtype >= 0)
            H5Tclose(mtype);
        if (!ok) {
            char what[256];
            snprintf(what, sizeof what, "%s (field %s: %s)", expected, cols[c].name,
                     want == H5T_STRING  ? "a fixed-length string"
                     : want == H5T_FLOAT ? "a float"
                                         : "an integer");
            h5r_mismatch(r, path, what, ftype, space);
            H5Tclose(mem);
            return -1;
        }
    }
    return mem;
}

static int check_row(struct h5r *r, const char *path, hsize_t i, const struct h5r_col *cols, size_t n_cols, char *row,
                     int raw_strings)
{
    for (size_t c = 0; c < n_cols; c++) {
        const struct h5r_col *k = &cols[c];
        char *at = row + k->offset;
        if (k->type == 0) {
            at[k->str_size - 1] = '\0';
            if (!raw_strings)
                ts_sanitize_text(at);
            continue;
        }
        double v = 0;
        if (k->type == H5T_NATIVE_INT32)
            v = *(int32_t *)(void *)at;
        else if (k->type == H5T_NATIVE_INT64)
            v = (double)*(int64_t *)(void *)at;
        else
            v = *(double *)(void *)at;
        if (isnan(v) ? k->nan_ok : v >= k->min && v <= k->max)
            continue;
        char where[256];
        snprintf(where, sizeof where, "%s:%s", path, k->name);
        return h5r_fail(r, where, "value [%llu] = %.17g is out of range, expected %.17g..%.17g%s",
                        (unsigned long long)i, v, k->min, k->max, k->nan_ok ? " or NaN" : "");
    }
    return TS_OK;
}

int h5r_has_field(struct h5r *r, const char *path, const char *field)
{
    int has = h5r_has(r, path, H5I_DATASET);
    if (has <= 0)
        return has;
    hid_t set = H5Dopen2(r->file, path, H5P_DEFAULT);
    hid_t type = set < 0 ? -1 : H5Dget_type(set);
    int found = -1;
    if (type >= 0)
        found = H5Tget_class(type) == H5T_COMPOUND && H5Tget_member_index(type, field) >= 0;
    else
        h5r_fail_hdf5(r, path, "cannot open");
    if (type >= 0)
        H5Tclose(type);
    if (set >= 0)
        H5Dclose(set);
    return found;
}

int h5r_read_table(struct h5r *r, const char *path, hsize_t n, const char *why, size_t row_size,
                   const struct h5r_col *cols, size_t n_cols, int raw_strings, void *rows)
{
    char expected[160];
    snprintf(expected, sizeof expected, "1-D compound of %llu rows (%s)", (unsigned long long)n, why);
    int has = h5r_has(r, path, H5I_DATASET);
    if (has <= 0)
        return has == 0 ? h5r_fail(r, path, "missing (expected %s)", expected) : r->err->status;
    hid_t set = H5Dopen2(r->file, path, H5P_DEFAULT);
    hid_t type = set < 0 ? -1 : H5Dget_type(set), space = set < 0 ? -1 : H5Dget_space(set), mem = -1;
    hsize_t dims[1] = { 0 };
    int st = TS_OK;
    if (set < 0 || type < 0 || space < 0)
        st = h5r_fail_hdf5(r, path, "cannot open");
    else if (H5Tget_class(type) != H5T_COMPOUND || H5Sget_simple_extent_type(space) != H5S_SIMPLE
             || H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, dims, NULL) != 1
             || dims[0] != n)
        st = h5r_mismatch(r, path, expected, type, space);
    else if ((mem = table_mem_type(r, path, type, row_size, cols, n_cols, expected, space)) < 0)
        st = r->err->status;
    else
        st = h5r_storage_ok(r, path, set, type, n);
    if (st == TS_OK && n > 0) {
        memset(rows, 0, (size_t)n * row_size);
        if (H5Dread(set, mem, H5S_ALL, H5S_ALL, h5r_xfer(), rows) < 0)
            st = h5r_fail_hdf5(r, path, "cannot read");
        for (hsize_t i = 0; st == TS_OK && i < n; i++)
            st = check_row(r, path, i, cols, n_cols, (char *)rows + i * row_size, raw_strings);
    }
    if (mem >= 0)
        H5Tclose(mem);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (set >= 0)
        H5Dclose(set);
    return st;
}
