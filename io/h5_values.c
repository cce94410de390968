/* Reading values: scalar attributes (integers, strings) and floating-point datasets, each
 * checked for class, shape, storage and range before the caller sees it. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_digest.h"
#include "h5_reader.h"
#include "ts_text_safe.h"

/* Strings longer than this are refused before any buffer is sized from the file. */
#define MAX_FIXED_STRING ((size_t)1 << 16)

/* Opens obj@name, which must exist; where receives the name used in messages. */
static hid_t open_attr(struct h5r *r, const char *obj, const char *name, const char *expected, char *where, size_t size)
{
    snprintf(where, size, "%s@%s", obj, name);
    int has = h5r_has_attr(r, obj, name);
    if (has == 0)
        h5r_fail(r, where, "missing (expected %s attribute)", expected);
    if (has <= 0)
        return -1;
    hid_t a = H5Aopen_by_name(r->file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        h5r_fail_hdf5(r, where, "cannot open");
    return a;
}

int h5r_int_attr(struct h5r *r, const char *obj, const char *name, int64_t min, int64_t max, int64_t *out)
{
    char where[256];
    hid_t a = open_attr(r, obj, name, "a scalar integer", where, sizeof where);
    if (a < 0)
        return r->err->status;
    int st = TS_OK;
    hid_t type = H5Aget_type(a), space = H5Aget_space(a);
    if (type < 0 || space < 0)
        st = h5r_fail_hdf5(r, where, "cannot read");
    else if (H5Tget_class(type) != H5T_INTEGER || H5Tget_size(type) > 8
             || H5Sget_simple_extent_type(space) != H5S_SCALAR)
        st = h5r_mismatch(r, where, "a scalar integer", type, space);
    else if (H5Aread(a, H5T_NATIVE_INT64, out) < 0)
        st = h5r_fail_hdf5(r, where, "cannot read");
    else if (*out < min || *out > max)
        st = h5r_fail(r, where, "%lld is out of range, expected %lld..%lld", (long long)*out, (long long)min,
                      (long long)max);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(a);
    return st;
}

int h5r_double_attr(struct h5r *r, const char *obj, const char *name, double min, double max, int nan_ok, double *out)
{
    char where[256];
    hid_t a = open_attr(r, obj, name, "a scalar floating-point", where, sizeof where);
    if (a < 0)
        return r->err->status;
    int st = TS_OK;
    hid_t type = H5Aget_type(a), space = H5Aget_space(a);
    if (type < 0 || space < 0)
        st = h5r_fail_hdf5(r, where, "cannot read");
    else if (H5Tget_class(type) != H5T_FLOAT || H5Tget_size(type) > 8 || H5Sget_simple_extent_type(space) != H5S_SCALAR)
        st = h5r_mismatch(r, where, "a scalar floating-point", type, space);
    else if (H5Aread(a, H5T_NATIVE_DOUBLE, out) < 0)
        st = h5r_fail_hdf5(r, where, "cannot read");
    else if (isnan(*out) ? !nan_ok : !(*out >= min && *out <= max))
        st = h5r_fail(r, where, "%g is out of range, expected %g..%g%s", *out, min, max, nan_ok ? " or NaN" : "");
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(a);
    return st;
}

static int read_str(struct h5r *r, const char *where, hid_t a, hid_t ftype, char *buf, size_t size)
{
    hid_t mem = H5Tcopy(ftype);
    if (mem < 0)
        return h5r_fail_hdf5(r, where, "cannot read");
    int st = TS_OK;
    if (H5Tis_variable_str(ftype) > 0) {
        char *value = NULL;
        if (H5Aread(a, mem, &value) < 0)
            st = h5r_fail_hdf5(r, where, "cannot read");
        else
            snprintf(buf, size, "%s", value ? value : "");
        H5free_memory(value);
    } else {
        size_t n = H5Tget_size(ftype);
        char *tmp = n > 0 && n <= MAX_FIXED_STRING ? calloc(n + 1, 1) : NULL;
        if (!tmp)
            st = h5r_fail(r, where, "a fixed string of %zu bytes is not what this file holds", n);
        else if (H5Aread(a, mem, tmp) < 0)
            st = h5r_fail_hdf5(r, where, "cannot read");
        else
            snprintf(buf, size, "%s", tmp); /* tmp[n] is the terminator HDF5 need not write */
        free(tmp);
    }
    H5Tclose(mem);
    if (st == TS_OK)
        ts_sanitize_text(buf);
    return st;
}

int h5r_str_attr(struct h5r *r, const char *obj, const char *name, char *buf, size_t size)
{
    char where[256];
    buf[0] = '\0';
    hid_t a = open_attr(r, obj, name, "a scalar string", where, sizeof where);
    if (a < 0)
        return r->err->status;
    int st = TS_OK;
    hid_t type = H5Aget_type(a), space = H5Aget_space(a);
    if (type < 0 || space < 0)
        st = h5r_fail_hdf5(r, where, "cannot read");
    else if (H5Tget_class(type) != H5T_STRING || H5Sget_simple_extent_type(space) != H5S_SCALAR)
        st = h5r_mismatch(r, where, "a scalar string", type, space);
    else
        st = read_str(r, where, a, type, buf, size);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(a);
    return st;
}

static void expected_doubles(const struct h5r_doubles *w, char *buf, size_t size)
{
    if (w->rank == 0)
        snprintf(buf, size, "scalar double");
    else if (w->rank == 1)
        snprintf(buf, size, "1-D double of %llu values (%s)", (unsigned long long)w->dims[0], w->why);
    else if (w->rank == 2)
        snprintf(buf, size, "2-D double of %llu x %llu values (%s)", (unsigned long long)w->dims[0],
                 (unsigned long long)w->dims[1], w->why);
    else
        snprintf(buf, size, "3-D double of %llu x %llu x %llu values (%s)", (unsigned long long)w->dims[0],
                 (unsigned long long)w->dims[1], (unsigned long long)w->dims[2], w->why);
}

static int shape_matches(hid_t space, const struct h5r_doubles *w)
{
    if (w->rank == 0)
        return H5Sget_simple_extent_type(space) == H5S_SCALAR;
    hsize_t dims[3];
    if (w->rank > 3 || H5Sget_simple_extent_type(space) != H5S_SIMPLE || H5Sget_simple_extent_ndims(space) != w->rank
        || H5Sget_simple_extent_dims(space, dims, NULL) != w->rank)
        return 0;
    for (int d = 0; d < w->rank; d++)
        if (dims[d] != w->dims[d])
            return 0;
    return 1;
}

/* Filters a dataset may be stored with: what HDF5 always has and h5py or h5repack use. Any other
 * is refused before HDF5 would look for a plugin to decode it. */
static const H5Z_filter_t known_filters[] = { H5Z_FILTER_DEFLATE, H5Z_FILTER_SHUFFLE, H5Z_FILTER_FLETCHER32 };

int h5r_storage_ok(struct h5r *r, const char *path, hid_t set, hid_t type, hsize_t count)
{
    hid_t dcpl = H5Dget_create_plist(set);
    if (dcpl < 0)
        return h5r_fail_hdf5(r, path, "cannot read the storage properties");
    const H5D_layout_t layout = H5Pget_layout(dcpl);
    const int externals = H5Pget_external_count(dcpl), n_filters = H5Pget_nfilters(dcpl);
    int deflated = 0, st = TS_OK;
    for (int i = 0; st == TS_OK && i < n_filters; i++) {
        unsigned flags = 0;
        size_t n_values = 0;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &n_values, NULL, 0, NULL, NULL);
        size_t k = 0;
        while (k < sizeof known_filters / sizeof known_filters[0] && known_filters[k] != id)
            k++;
        if (k == sizeof known_filters / sizeof known_filters[0])
            st = h5r_fail(r, path,
                          "stored with filter %d, which touchstone does not read (deflate, shuffle and "
                          "Fletcher32 only)",
                          (int)id);
        else if (id == H5Z_FILTER_DEFLATE && deflated++) /* each pass could multiply the ratio */
            st = h5r_fail(r, path, "deflated more than once, which touchstone does not read");
    }
    H5Pclose(dcpl);
    if (st != TS_OK)
        return st;
    if (externals != 0 || n_filters < 0 || (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED))
        return h5r_fail(r, path,
                        "stored outside the file or in a layout touchstone does not read (external or "
                        "virtual): only compact, contiguous and chunked data in the file itself");
    const hsize_t stored = H5Dget_storage_size(set), needed = count * H5Tget_size(type);
    const hsize_t ratio = deflated ? TS_H5R_MAX_DEFLATE_RATIO : 1;
    if (stored < (needed + ratio - 1) / ratio)
        return h5r_fail(r, path, "holds %llu bytes of data%s for %llu values: never written or cut short",
                        (unsigned long long)stored, deflated ? " (deflated)" : "", (unsigned long long)count);
    return deflated ? h5r_inflate_ok(r, path, set, type, count) : TS_OK;
}

static int check_values(struct h5r *r, const struct h5r_doubles *w, const double *v, hsize_t n)
{
    for (hsize_t i = 0; i < n; i++) {
        if (isnan(v[i]) ? w->nan_ok : v[i] >= w->min && v[i] <= w->max)
            continue;
        char index[48] = "";
        if (w->rank == 1)
            snprintf(index, sizeof index, " [%llu]", (unsigned long long)i);
        else if (w->rank == 2)
            snprintf(index, sizeof index, " [%llu][%llu]", (unsigned long long)(i / w->dims[1]),
                     (unsigned long long)(i % w->dims[1]));
        char range[96];
        if (w->min == -HUGE_VAL && w->max == HUGE_VAL)
            snprintf(range, sizeof range, "a number");
        else if (w->max >= DBL_MAX)
            snprintf(range, sizeof range, "%s>= %g", w->max == DBL_MAX ? "finite and " : "", w->min);
        else
            snprintf(range, sizeof range, "%g..%g", w->min, w->max);
        return h5r_fail(r, w->path, "value%s = %g is out of range, expected %s%s", index, v[i], range,
                        w->nan_ok ? " or NaN" : "");
    }
    return TS_OK;
}

/* What touchstone writes into checkpoints, nothing else: IEEE f64 little-endian, and when w->chunk
 * is set, chunked exactly so with Fletcher32 as the only filter (docs/how-it-works.md,
 * "Checkpoint and restart"). A copy rewritten with another type, chunking or filter is not the file that was
 * written, even where its values read the same. */
static int exactly_as_written(struct h5r *r, const struct h5r_doubles *w, hid_t set, hid_t type)
{
    if (w->exact && H5Tequal(type, H5T_IEEE_F64LE) <= 0)
        return h5r_fail(r, w->path, "not stored as IEEE 64-bit little-endian doubles, as touchstone writes it");
    if (!w->chunk)
        return TS_OK;
    hid_t dcpl = H5Dget_create_plist(set);
    if (dcpl < 0)
        return h5r_fail_hdf5(r, w->path, "cannot read the storage properties");
    hsize_t chunk[3] = { 0, 0, 0 };
    unsigned flags = 0;
    size_t n_values = 0;
    int chunked = H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 3, chunk) == w->rank;
    for (int d = 0; chunked && d < w->rank; d++)
        chunked = chunk[d] == w->chunk[d];
    int checksummed = H5Pget_nfilters(dcpl) == 1
                      && H5Pget_filter2(dcpl, 0, &flags, &n_values, NULL, 0, NULL, NULL) == H5Z_FILTER_FLETCHER32;
    H5Pclose(dcpl);
    if (!chunked)
        return h5r_fail(r, w->path, "not chunked as touchstone writes it");
    if (!checksummed)
        return h5r_fail(r, w->path,
                        "not stored with a Fletcher32 checksum as its only filter, as touchstone writes it");
    return TS_OK;
}

/* The uint64 attribute w->digest of the dataset must be the digest of the n values read (of
 * the whole dataset); of a block, the stored digest goes to the caller. */
static int digest_matches(struct h5r *r, const struct h5r_doubles *w, hid_t set, const double *v, hsize_t n)
{
    char where[256];
    snprintf(where, sizeof where, "%s@%s", w->path, w->digest);
    htri_t has = H5Aexists(set, w->digest);
    if (has <= 0)
        return has < 0 ? h5r_fail_hdf5(r, where, "cannot list the attributes")
                       : h5r_fail(r, where, "missing (expected the digest of the values)");
    hid_t a = H5Aopen(set, w->digest, H5P_DEFAULT);
    hid_t type = a < 0 ? -1 : H5Aget_type(a), space = a < 0 ? -1 : H5Aget_space(a);
    uint64_t stored = 0;
    int st = TS_OK;
    if (a < 0 || type < 0 || space < 0)
        st = h5r_fail_hdf5(r, where, "cannot open");
    else if (H5Tget_class(type) != H5T_INTEGER || H5Tget_size(type) != 8 || H5Tget_sign(type) != H5T_SGN_NONE
             || H5Sget_simple_extent_type(space) != H5S_SCALAR)
        st = h5r_mismatch(r, where, "a scalar uint64", type, space);
    else if (H5Aread(a, H5T_NATIVE_UINT64, &stored) < 0)
        st = h5r_fail_hdf5(r, where, "cannot read");
    else if (w->digest_read)
        *w->digest_read = stored;
    else if (stored != (w->digest_points ? ts_digest_points(v, (size_t)n, 0) : ts_digest64(v, (size_t)n * sizeof *v)))
        st = h5r_fail(r, w->path, "the values are not those written (their digest differs from %s@%s)", w->path,
                      w->digest);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (a >= 0)
        H5Aclose(a);
    return st;
}

/* Opens w->path and checks everything but the values: class, shape, storage. The dataset and
 * its type, or -1 with r->err filled; *count is the number of values. */
static hid_t open_doubles(struct h5r *r, const struct h5r_doubles *w, hid_t *type, hsize_t *count)
{
    char expected[128];
    expected_doubles(w, expected, sizeof expected);
    *type = -1;
    int has = h5r_has(r, w->path, H5I_DATASET);
    if (has <= 0) {
        if (has == 0)
            h5r_fail(r, w->path, "missing (expected %s)", expected);
        return -1;
    }
    *count = 1;
    for (int i = 0; i < w->rank; i++)
        *count *= w->dims[i];
    int st = TS_OK;
    hid_t set = H5Dopen2(r->file, w->path, H5P_DEFAULT);
    hid_t space = set < 0 ? -1 : H5Dget_space(set);
    *type = set < 0 ? -1 : H5Dget_type(set);
    if (set < 0 || *type < 0 || space < 0)
        st = h5r_fail_hdf5(r, w->path, "cannot open");
    else if (H5Tget_class(*type) != H5T_FLOAT || H5Tget_size(*type) > 16 || !shape_matches(space, w))
        st = h5r_mismatch(r, w->path, expected, *type, space);
    else if ((st = h5r_storage_ok(r, w->path, set, *type, *count)) == TS_OK)
        st = exactly_as_written(r, w, set, *type);
    if (space >= 0)
        H5Sclose(space);
    if (st == TS_OK)
        return set;
    if (*type >= 0)
        H5Tclose(*type);
    if (set >= 0)
        H5Dclose(set);
    *type = -1;
    return -1;
}

/* w's block of the opened dataset into out; *count becomes the block's values. Every block
 * axis within the dataset's (checked against w->dims already). */
static int read_block(struct h5r *r, const struct h5r_doubles *w, hid_t set, hsize_t *count, double *out)
{
    *count = 1;
    for (int i = 0; i < w->rank; i++) {
        if (w->start[i] > w->dims[i] || w->count[i] > w->dims[i] - w->start[i])
            return h5r_fail(r, w->path, "block %llu+%llu of axis %d is outside the dataset's %llu",
                            (unsigned long long)w->start[i], (unsigned long long)w->count[i], i,
                            (unsigned long long)w->dims[i]);
        *count *= w->count[i];
    }
    if (*count == 0)
        return TS_OK;
    hid_t file_space = H5Dget_space(set), memory_space = H5Screate_simple(w->rank, w->count, NULL);
    int st = TS_OK;
    if (file_space < 0 || memory_space < 0
        || H5Sselect_hyperslab(file_space, H5S_SELECT_SET, w->start, NULL, w->count, NULL) < 0
        || H5Dread(set, H5T_NATIVE_DOUBLE, memory_space, file_space, h5r_xfer(), out) < 0)
        st = h5r_fail_hdf5(r, w->path, "cannot read");
    if (memory_space >= 0)
        H5Sclose(memory_space);
    if (file_space >= 0)
        H5Sclose(file_space);
    return st;
}

/* Reads the opened dataset into out and checks the values; closes set and type. */
static int read_opened(struct h5r *r, const struct h5r_doubles *w, hid_t set, hid_t type, hsize_t count, double *out)
{
    int st = TS_OK;
    if (w->start && w->count)
        st = read_block(r, w, set, &count, out);
    else if (count > 0 && H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, h5r_xfer(), out) < 0)
        st = h5r_fail_hdf5(r, w->path, "cannot read");
    if (st == TS_OK && (st = check_values(r, w, out, count)) == TS_OK && w->digest)
        st = digest_matches(r, w, set, out, count);
    H5Tclose(type);
    H5Dclose(set);
    return st;
}

int h5r_read_doubles(struct h5r *r, const struct h5r_doubles *w, double *out)
{
    hid_t type;
    hsize_t count = 0;
    hid_t set = open_doubles(r, w, &type, &count);
    return set < 0 ? r->err->status : read_opened(r, w, set, type, count, out);
}

int h5r_read_doubles_alloc(struct h5r *r, const struct h5r_doubles *w, double **out)
{
    hid_t type;
    hsize_t count = 0;
    *out = NULL;
    hid_t set = open_doubles(r, w, &type, &count);
    if (set < 0)
        return r->err->status;
    /* Never a zero-byte request: malloc(0) may return NULL, which is no failure. */
    *out = malloc((count > 0 ? (size_t)count : 1) * sizeof **out);
    if (!*out) {
        H5Tclose(type);
        H5Dclose(set);
        return h5r_out_of_memory(r, w->path, "out of memory for %llu values", (unsigned long long)count);
    }
    int st = read_opened(r, w, set, type, count, *out);
    if (st != TS_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

int h5r_length(struct h5r *r, const char *path, H5T_class_t cls, const char *expected, hsize_t *n)
{
    int has = h5r_has(r, path, H5I_DATASET);
    if (has <= 0)
        return has == 0 ? h5r_fail(r, path, "missing (expected %s)", expected) : r->err->status;
    int st = TS_OK;
    hid_t set = H5Dopen2(r->file, path, H5P_DEFAULT);
    hid_t type = set < 0 ? -1 : H5Dget_type(set), space = set < 0 ? -1 : H5Dget_space(set);
    if (set < 0 || type < 0 || space < 0)
        st = h5r_fail_hdf5(r, path, "cannot open");
    else if (H5Tget_class(type) != cls || H5Sget_simple_extent_type(space) != H5S_SIMPLE
             || H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, n, NULL) != 1)
        st = h5r_mismatch(r, path, expected, type, space);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (set >= 0)
        H5Dclose(set);
    return st;
}
