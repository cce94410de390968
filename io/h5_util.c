#include "h5_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts_utf8.h"

/* What HDF5 said about its innermost failure: a short reason and, when an OS call failed
 * under it, that call's errno (HDF5 formats it as "errno = N" in the description). */
struct h5_cause {
    char reason[160];
    int os_errno;
};

static herr_t read_cause(unsigned n, const H5E_error2_t *e, void *data)
{
    struct h5_cause *c = data;
    const char *desc = e->desc ? e->desc : "";
    const char *num = strstr(desc, "errno = ");
    if (num && c->os_errno == 0)
        c->os_errno = atoi(num + strlen("errno = "));
    if (n == 0) {
        /* The full description carries timestamps, buffers and offsets: keep its head. */
        size_t len = strcspn(desc, ":,");
        if (len >= sizeof c->reason)
            len = sizeof c->reason - 1;
        memcpy(c->reason, desc, len);
        c->reason[len] = '\0';
    }
    return 0;
}

int h5w_fail(struct h5w *w, hid_t loc, const char *doing, const char *name)
{
    struct h5_cause cause = { "", 0 };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, read_cause, &cause);
    if (cause.reason[0] == '\0')
        strcpy(cause.reason, "HDF5 error");

    char where[512] = "";
    if (loc >= 0) {
        if (H5Iget_name(loc, where, sizeof where - 1) <= 0)
            strcpy(where, "?");
        size_t used = strlen(where);
        if (where[used - 1] != '/')
            strcpy(where + used, "/");
    }
    const char *fmt = "cannot write output %s: %s %s%s failed (%s)";
    /* The file is assembled in memory (the core driver): HDF5 fails there for memory, or for
     * a bug of ours or its own. */
    int status = cause.os_errno == ENOMEM || strstr(cause.reason, "memory") || strstr(cause.reason, "alloc")
                     ? TS_RESOURCE_ERROR
                     : TS_INTERNAL_ERROR;
    if (cause.os_errno != 0)
        return ts_fail_errno(w->err, status, cause.os_errno, fmt, w->final_path, doing, where, name, cause.reason);
    return ts_fail(w->err, status, fmt, w->final_path, doing, where, name, cause.reason);
}

/* Creation properties (of class cls, or a copy of base unless it is H5P_DEFAULT) that leave
 * out the objects' modification times: the same record then gives the same bytes (two runs'
 * files differ only where the runs did; the fuzzers' seeds are reproducible). -1 on failure. */
static hid_t untimed(hid_t cls, hid_t base)
{
    hid_t p = base != H5P_DEFAULT ? H5Pcopy(base) : H5Pcreate(cls);
    if (p >= 0 && H5Pset_obj_track_times(p, 0) < 0) {
        H5Pclose(p);
        p = -1;
    }
    return p;
}

hid_t h5w_group(struct h5w *w, hid_t loc, const char *name)
{
    hid_t gcpl = untimed(H5P_GROUP_CREATE, H5P_DEFAULT), g = -1;
    if (gcpl < 0 || (g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0)
        h5w_fail(w, loc, "creating group", name);
    if (gcpl >= 0)
        H5Pclose(gcpl);
    return g;
}

/* Strings are stored as UTF-8 and readers decode them (h5py raises on invalid UTF-8), but
 * command lines, paths, host names and the environment are bytes: those that are not valid
 * UTF-8 are stored with the offending bytes escaped as \xNN (docs/hdf5-schema.md, "Conventions").
 * Returns s, or an escaped copy in *owned (freed by the caller); NULL when out of memory. */
static const char *utf8_text(const char *s, char **owned)
{
    *owned = NULL;
    if (ts_utf8_valid_prefix(s, strlen(s)) == strlen(s))
        return s;
    return *owned = ts_utf8_escape(s);
}

int h5w_attr_num(struct h5w *w, hid_t loc, const char *name, hid_t type, const void *value)
{
    int st = TS_OK;
    hid_t space = -1, attr = -1;
    char *owned;
    const char *utf8_name = utf8_text(name, &owned); /* environment variables' names are bytes too */
    if (!utf8_name)
        return ts_fail(w->err, TS_RESOURCE_ERROR, "cannot write output %s: out of memory", w->final_path);
    if ((space = H5Screate(H5S_SCALAR)) < 0
        || (attr = H5Acreate2(loc, utf8_name, type, space, H5P_DEFAULT, H5P_DEFAULT)) < 0
        || H5Awrite(attr, type, value) < 0)
        st = h5w_fail(w, loc, "writing attribute", utf8_name);
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    free(owned);
    return st;
}

int h5w_attr_str(struct h5w *w, hid_t loc, const char *name, const char *value)
{
    char *owned;
    const char *v = utf8_text(value ? value : "", &owned);
    if (!v)
        return ts_fail(w->err, TS_RESOURCE_ERROR, "cannot write output %s: out of memory", w->final_path);
    int st = h5w_attr_num(w, loc, name, w->vstr, &v);
    free(owned);
    return st;
}

int h5w_attr_list(struct h5w *w, hid_t loc, const struct ts_attr *attrs, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (h5w_attr_str(w, loc, attrs[i].name, attrs[i].value))
            return w->err->status;
    return TS_OK;
}

int h5w_attr_strs(struct h5w *w, hid_t loc, const struct h5w_str_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (h5w_attr_str(w, loc, a[i].name, a[i].value))
            return w->err->status;
    return TS_OK;
}

int h5w_attr_nums(struct h5w *w, hid_t loc, const struct h5w_num_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (h5w_attr_num(w, loc, a[i].name, a[i].type, a[i].value))
            return w->err->status;
    return TS_OK;
}

/* Compounds are packed in the file so struct padding (and whatever bytes sit in it) stays
 * out of the file; HDF5 converts member by member. */
static hid_t file_type(hid_t mem_type)
{
    if (H5Tget_class(mem_type) != H5T_COMPOUND)
        return H5Tcopy(mem_type);
    hid_t t = H5Tcopy(mem_type);
    if (t >= 0 && H5Tpack(t) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static int h5w_dataset_as_is(struct h5w *w, hid_t loc, const struct h5w_ds *ds);

/* A dataset of variable-length strings has each string made valid UTF-8 first. */
int h5w_dataset(struct h5w *w, hid_t loc, const struct h5w_ds *ds)
{
    hsize_t n = 1;
    for (int i = 0; i < ds->rank; i++)
        n *= ds->dims[i];
    if (ds->type != w->vstr || n == 0)
        return h5w_dataset_as_is(w, loc, ds);
    const char *const *in = ds->data;
    const char **text = calloc(n, sizeof *text);
    char **owned = calloc(n, sizeof *owned);
    int st = TS_OK;
    for (hsize_t i = 0; text && owned && i < n && st == TS_OK; i++)
        if (!(text[i] = utf8_text(in[i] ? in[i] : "", &owned[i])))
            st = TS_RESOURCE_ERROR;
    if (!text || !owned || st != TS_OK)
        st = ts_fail(w->err, TS_RESOURCE_ERROR, "cannot write output %s: out of memory", w->final_path);
    else {
        struct h5w_ds copy = *ds;
        copy.data = text;
        st = h5w_dataset_as_is(w, loc, &copy);
    }
    for (hsize_t i = 0; owned && i < n; i++)
        free(owned[i]);
    free(owned);
    free(text);
    return st;
}

static int h5w_dataset_as_is(struct h5w *w, hid_t loc, const struct h5w_ds *ds)
{
    hsize_t n = 1;
    for (int i = 0; i < ds->rank; i++)
        n *= ds->dims[i];
    int st = TS_OK;
    hid_t ftype = -1, space = -1, set = -1, dcpl = -1;
    /* Fail right at the failing call: any later HDF5 call would clear the reason. */
    if ((dcpl = untimed(H5P_DATASET_CREATE, ds->dcpl)) < 0 || (ftype = file_type(ds->type)) < 0
        || (space = ds->rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(ds->rank, ds->dims, NULL)) < 0
        || (set = H5Dcreate2(loc, ds->name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0
        /* HDF5 rejects a NULL buffer even for zero elements. */
        || (n > 0 && !ds->later
            && H5Dwrite(set, ds->type, H5S_ALL, H5S_ALL, w->xfer > 0 ? w->xfer : H5P_DEFAULT, ds->data) < 0))
        st = h5w_fail(w, loc, "writing dataset", ds->name);
    else if (h5w_attr_str(w, set, "units", ds->units)
             || (ds->dims_label && h5w_attr_str(w, set, "dims", ds->dims_label)))
        st = w->err->status;
    if (set >= 0)
        H5Dclose(set);
    if (space >= 0)
        H5Sclose(space);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return st;
}

int h5w_scalars(struct h5w *w, hid_t loc, const struct h5w_value *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].skip_nan && isnan(v[i].value))
            continue;
        if (h5w_dataset(w, loc,
                        &(struct h5w_ds){
                            .name = v[i].name, .type = H5T_NATIVE_DOUBLE, .data = &v[i].value, .units = v[i].units }))
            return w->err->status;
    }
    return TS_OK;
}

int h5w_vector(struct h5w *w, hid_t loc, const char *name, hid_t type, int64_t n, const void *data, const char *units)
{
    return h5w_dataset(
        w, loc,
        &(struct h5w_ds){
            .name = name, .type = type, .rank = 1, .dims = { (hsize_t)n }, .data = data, .units = units });
}

/* ASCII: table strings are CPU lists and names, and HDF5 refuses to convert between ASCII
 * and UTF-8 fixed strings, so an ASCII type is what every reader's default type matches. */
static hid_t fixed_string(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)) {
        H5Tclose(t);
        t = -1;
    }
    return t;
}

hid_t h5w_compound(size_t struct_size, const struct h5w_member *m, size_t n)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, struct_size);
    for (size_t i = 0; t >= 0 && i < n; i++) {
        hid_t member = m[i].str_size ? fixed_string(m[i].str_size) : m[i].type;
        herr_t ok = member < 0 ? -1 : H5Tinsert(t, m[i].name, m[i].offset, member);
        if (m[i].str_size && member >= 0)
            H5Tclose(member);
        if (ok < 0) {
            H5Tclose(t);
            t = -1;
        }
    }
    return t;
}

int h5w_table(struct h5w *w, hid_t loc, const char *name, size_t struct_size, const struct h5w_member *members,
              size_t n_members, int64_t n, const void *rows, const char *units)
{
    hid_t t = h5w_compound(struct_size, members, n_members);
    if (t < 0)
        return h5w_fail(w, loc, "writing dataset", name);
    int st = h5w_vector(w, loc, name, t, n, rows, units);
    H5Tclose(t);
    return st;
}

int h5w_table_type(struct h5w *w, hid_t loc, const char *name, hid_t type, int64_t n, const void *rows, int later,
                   const char *units)
{
    if (type < 0)
        return h5w_fail(w, loc, "writing dataset", name);
    int st = h5w_dataset(w, loc,
                         &(struct h5w_ds){ .name = name,
                                           .type = type,
                                           .rank = 1,
                                           .dims = { (hsize_t)n },
                                           .data = rows,
                                           .later = later,
                                           .units = units });
    H5Tclose(type);
    return st;
}
