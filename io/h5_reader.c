/* The reader's errors and object lookup: every message names the file and the path in it. */
#include "h5_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data)
{
    char **reason = data;
    if (n == 0 && e->desc)
        *reason = (char *)e->desc;
    return 0;
}

void ts_h5_error_reason(char *buf, size_t size)
{
    char *desc = NULL;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &desc);
    /* The full description carries addresses and sizes: its head is what a user can act on. */
    size_t len = desc ? strcspn(desc, ":,") : 0;
    if (len == 0) {
        desc = "HDF5 error";
        len = strlen(desc);
    }
    snprintf(buf, size, "%.*s", (int)len, desc);
}

static int fail_as(struct h5r *r, int status, const char *path, const char *fmt, va_list ap)
{
    char what[1536];
    vsnprintf(what, sizeof what, fmt, ap);
    return ts_fail(r->err, status, "%s: %s: %s", r->name, path, what);
}

int h5r_fail(struct h5r *r, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int status = fail_as(r, TS_BAD_INPUT, path, fmt, ap);
    va_end(ap);
    return status;
}

int h5r_out_of_memory(struct h5r *r, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int status = fail_as(r, TS_RESOURCE_ERROR, path, fmt, ap);
    va_end(ap);
    return status;
}

int h5r_known(struct h5r *r, const char *where, const char *value, const char *const *known, const char *what)
{
    char list[512] = "";
    size_t used = 0;
    for (const char *const *k = known; *k; k++) {
        if (strcmp(value, *k) == 0)
            return TS_OK;
        int n = snprintf(list + used, sizeof list - used, "%s%s", k == known ? "" : ", ", *k);
        if (n > 0 && (size_t)n < sizeof list - used)
            used += (size_t)n;
    }
    return h5r_fail(r, where, "'%s' is not %s touchstone knows (%s)", value, what, list);
}

int h5r_fail_hdf5(struct h5r *r, const char *path, const char *doing)
{
    char reason[160];
    ts_h5_error_reason(reason, sizeof reason);
    return h5r_fail(r, path, "%s (%s): the file is truncated or corrupted", doing, reason);
}

static void type_name(hid_t type, char *buf, size_t size)
{
    size_t bits = H5Tget_size(type) * 8;
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: snprintf(buf, size, "%sint%zu", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", bits); break;
    case H5T_FLOAT: snprintf(buf, size, "%s", bits == 64 ? "double" : bits == 32 ? "float" : "floating-point"); break;
    case H5T_STRING: snprintf(buf, size, "string"); break;
    case H5T_COMPOUND: snprintf(buf, size, "compound"); break;
    case H5T_ENUM: snprintf(buf, size, "enum"); break;
    case H5T_ARRAY: snprintf(buf, size, "array"); break;
    case H5T_VLEN: snprintf(buf, size, "variable-length sequence"); break;
    case H5T_REFERENCE: snprintf(buf, size, "reference"); break;
    default: snprintf(buf, size, "opaque or unknown type"); break;
    }
}

/* "2-D int32 [2 x 20]", "scalar string", ... */
static void describe(hid_t type, hid_t space, char *buf, size_t size)
{
    char t[48];
    type_name(type, t, sizeof t);
    H5S_class_t cls = H5Sget_simple_extent_type(space);
    int rank = cls == H5S_SIMPLE ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t dims[H5S_MAX_RANK];
    if (cls == H5S_SCALAR) {
        snprintf(buf, size, "scalar %s", t);
    } else if (rank < 0 || rank > H5S_MAX_RANK || H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        snprintf(buf, size, "%s with an empty or unreadable dataspace", t);
    } else {
        int used = snprintf(buf, size, "%d-D %s [", rank, t);
        for (int i = 0; i < rank && used > 0 && (size_t)used < size; i++)
            used += snprintf(buf + used, size - (size_t)used, "%s%llu", i ? " x " : "", (unsigned long long)dims[i]);
        if (used > 0 && (size_t)used < size)
            snprintf(buf + used, size - (size_t)used, "]");
    }
}

int h5r_mismatch(struct h5r *r, const char *path, const char *expected, hid_t type, hid_t space)
{
    char found[160];
    describe(type, space, found, sizeof found);
    return h5r_fail(r, path, "expected %s, found %s", expected, found);
}

static const char *kind_name(H5I_type_t t)
{
    return t == H5I_GROUP ? "group" : t == H5I_DATASET ? "dataset" : t == H5I_DATATYPE ? "named datatype" : "object";
}

int h5r_has(struct h5r *r, const char *path, H5I_type_t type)
{
    char prefix[512];
    size_t len = strlen(path);
    if (len >= sizeof prefix || path[0] != '/')
        return h5r_fail(r, path, "not a path this reader asks for"), -1;
    /* Every component in turn: H5Lexists needs its parent to exist, and only hard links
     * are followed (a soft or external link could point anywhere, even to another file). */
    for (size_t i = 1; i <= len && len > 1; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        memcpy(prefix, path, i);
        prefix[i] = '\0';
        htri_t exists = H5Lexists(r->file, prefix, H5P_DEFAULT);
        if (exists == 0)
            return 0;
        H5L_info_t link;
        if (exists < 0 || H5Lget_info(r->file, prefix, &link, H5P_DEFAULT) < 0)
            return h5r_fail_hdf5(r, prefix, "cannot look up"), -1;
        if (link.type != H5L_TYPE_HARD)
            return h5r_fail(r, prefix, "is a %s link, not an object stored in the file",
                            link.type == H5L_TYPE_SOFT ? "soft" : "external"),
                   -1;
    }
    hid_t obj = H5Oopen(r->file, path, H5P_DEFAULT);
    if (obj < 0)
        return h5r_fail_hdf5(r, path, "cannot open"), -1;
    H5I_type_t found = H5Iget_type(obj);
    H5Oclose(obj);
    if (type != H5I_BADID && found != type)
        return h5r_fail(r, path, "expected a %s, found a %s", kind_name(type), kind_name(found)), -1;
    return 1;
}

int h5r_group(struct h5r *r, const char *path)
{
    int has = h5r_has(r, path, H5I_GROUP);
    if (has == 0)
        return h5r_fail(r, path, "missing group");
    return has < 0 ? r->err->status : TS_OK;
}

int h5r_has_attr(struct h5r *r, const char *obj, const char *name)
{
    int has = h5r_has(r, obj, H5I_BADID);
    if (has == 0)
        h5r_fail(r, obj, "missing");
    if (has <= 0)
        return -1;
    htri_t exists = H5Aexists_by_name(r->file, obj, name, H5P_DEFAULT);
    if (exists < 0)
        return h5r_fail_hdf5(r, obj, "cannot list the attributes"), -1;
    return exists > 0;
}
