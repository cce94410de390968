#include "h5_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_fixture.h"

static hid_t open_attr(hid_t loc, const char *obj, const char *name)
{
    if (H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) <= 0) {
        CHECK(0, "attribute %s of %s is missing", name, obj);
        return -1;
    }
    return H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
}

char *rd_str_attr(hid_t loc, const char *obj, const char *name)
{
    hid_t a = open_attr(loc, obj, name);
    if (a < 0)
        return NULL;
    char *copy = NULL;
    hid_t ftype = H5Aget_type(a);
    if (H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) > 0) {
        hid_t mtype = H5Tcopy(H5T_C_S1);
        H5Tset_size(mtype, H5T_VARIABLE);
        H5Tset_cset(mtype, H5T_CSET_UTF8);
        char *value = NULL;
        if (H5Aread(a, mtype, &value) >= 0 && value) {
            copy = strdup(value);
            H5free_memory(value);
        }
        H5Tclose(mtype);
    }
    CHECK(copy, "attribute %s of %s is not a readable variable-length string", name, obj);
    H5Tclose(ftype);
    H5Aclose(a);
    return copy;
}

static int read_num_attr(hid_t loc, const char *obj, const char *name, hid_t mtype, void *out)
{
    hid_t a = open_attr(loc, obj, name);
    if (a < 0)
        return -1;
    hid_t space = H5Aget_space(a);
    int ok = H5Sget_simple_extent_type(space) == H5S_SCALAR && H5Aread(a, mtype, out) >= 0;
    CHECK(ok, "attribute %s of %s is not a readable scalar number", name, obj);
    H5Sclose(space);
    H5Aclose(a);
    return ok ? 0 : -1;
}

int64_t rd_int_attr(hid_t loc, const char *obj, const char *name)
{
    int64_t v = 0;
    read_num_attr(loc, obj, name, H5T_NATIVE_INT64, &v);
    return v;
}

double rd_f64_attr(hid_t loc, const char *obj, const char *name)
{
    double v = 0;
    read_num_attr(loc, obj, name, H5T_NATIVE_DOUBLE, &v);
    return v;
}

int rd_dims(hid_t loc, const char *path, hsize_t *dims)
{
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0)
        return -1;
    hid_t space = H5Dget_space(d);
    int rank = H5Sget_simple_extent_ndims(space);
    if (rank > 3)
        rank = -1;
    else
        H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    H5Dclose(d);
    return rank;
}

int rd_all(hid_t loc, const char *path, hid_t mem_type, void *out, hsize_t n)
{
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0) {
        CHECK(0, "dataset %s is missing", path);
        return -1;
    }
    hid_t space = H5Dget_space(d);
    hssize_t points = H5Sget_simple_extent_npoints(space);
    int ok = points >= 0 && (hsize_t)points <= n
             && (points == 0 || H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
    CHECK(ok, "dataset %s (%lld points) cannot be read into %llu elements", path, (long long)points,
          (unsigned long long)n);
    H5Sclose(space);
    H5Dclose(d);
    return ok ? 0 : -1;
}

double rd_scalar(hid_t loc, const char *path)
{
    hsize_t dims[3];
    double v = NAN;
    CHECK(rd_dims(loc, path, dims) == 0, "%s is not a scalar dataset", path);
    rd_all(loc, path, H5T_NATIVE_DOUBLE, &v, 1);
    return v;
}

static void expect_columns(hid_t loc, const char *path, const struct rd_col *cols, size_t n)
{
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    hid_t t = d < 0 ? -1 : H5Dget_type(d);
    CHECK(t >= 0 && H5Tget_class(t) == H5T_COMPOUND && H5Tget_nmembers(t) == (int)n,
          "%s is not a compound of %zu members", path, n);
    for (size_t i = 0; t >= 0 && i < n; i++) {
        int idx = H5Tget_member_index(t, cols[i].name);
        CHECK(idx >= 0, "%s has no member %s", path, cols[i].name);
        if (idx < 0 || !cols[i].str_size)
            continue;
        hid_t m = H5Tget_member_type(t, (unsigned)idx);
        CHECK(H5Tget_class(m) == H5T_STRING && H5Tis_variable_str(m) == 0 && H5Tget_strpad(m) == H5T_STR_NULLTERM,
              "%s.%s is not a fixed null-terminated string", path, cols[i].name);
        H5Tclose(m);
    }
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
}

int rd_table(hid_t loc, const char *path, size_t row_size, const struct rd_col *cols, size_t n_cols, void *rows,
             hsize_t n_rows)
{
    expect_columns(loc, path, cols, n_cols);
    hid_t mem = H5Tcreate(H5T_COMPOUND, row_size);
    for (size_t i = 0; i < n_cols; i++) {
        hid_t member = cols[i].type;
        if (cols[i].str_size) {
            member = H5Tcopy(H5T_C_S1);
            H5Tset_size(member, cols[i].str_size);
        }
        H5Tinsert(mem, cols[i].name, cols[i].offset, member);
        if (cols[i].str_size)
            H5Tclose(member);
    }
    int st = rd_all(loc, path, mem, rows, n_rows);
    H5Tclose(mem);
    return st;
}

void expect_str_attr(hid_t loc, const char *obj, const char *name, const char *value)
{
    char *got = rd_str_attr(loc, obj, name);
    CHECK(got && strcmp(got, value) == 0, "attribute %s of %s is \"%s\", expected \"%s\"", name, obj,
          got ? got : "(none)", value);
    free(got);
}

void expect_units(hid_t loc, const char *path, const char *units)
{
    expect_str_attr(loc, path, "units", units);
}
