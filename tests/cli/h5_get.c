/* Prints values from a run file through the HDF5 C API, one per line, for the shell tests:
 *   h5_get FILE /path            a dataset (any rank, flattened; numbers exact as %a with -x)
 *   h5_get FILE /path@attr       an attribute of a group or dataset
 *   h5_get FILE /path:field      one field of a compound dataset
 * Numbers print as %.17g (or %a with -x, for bitwise comparisons); exit 1 when absent. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex;

static void print_numbers(const double *v, hssize_t n)
{
    for (hssize_t i = 0; i < n; i++)
        printf(hex ? "%a\n" : "%.17g\n", v[i]);
}

/* Reads n values of an object (dataset or attribute) as doubles or as strings. */
static int print_values(hid_t obj, hid_t file_type, hssize_t n, int is_attr)
{
    if (H5Tget_class(file_type) == H5T_STRING && H5Tis_variable_str(file_type) <= 0) { /* fixed length */
        const size_t size = H5Tget_size(file_type);
        hid_t str = H5Tcopy(file_type);
        char *s = calloc((size_t)(n > 0 ? n : 1), size ? size : 1);
        int rc = is_attr ? H5Aread(obj, str, s) : H5Dread(obj, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
        for (hssize_t i = 0; rc >= 0 && i < n; i++)
            printf("%.*s\n", (int)strnlen(s + (size_t)i * size, size), s + (size_t)i * size);
        H5Tclose(str);
        free(s);
        return rc < 0;
    }
    if (H5Tget_class(file_type) == H5T_STRING) {
        hid_t str = H5Tcopy(H5T_C_S1);
        H5Tset_size(str, H5T_VARIABLE);
        H5Tset_cset(str, H5Tget_cset(file_type));
        char **s = calloc((size_t)(n > 0 ? n : 1), sizeof *s);
        int rc = is_attr ? H5Aread(obj, str, s) : H5Dread(obj, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
        for (hssize_t i = 0; rc >= 0 && i < n; i++) {
            printf("%s\n", s[i] ? s[i] : "");
            H5free_memory(s[i]); /* HDF5 allocated each variable-length string */
        }
        H5Tclose(str);
        free(s);
        return rc < 0;
    }
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    int rc = is_attr ? H5Aread(obj, H5T_NATIVE_DOUBLE, v)
                     : H5Dread(obj, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    if (rc >= 0)
        print_numbers(v, n);
    free(v);
    return rc < 0;
}

/* A field the table does not have fails: HDF5 would read it as zeros. */
static int print_field(hid_t ds, const char *field, hssize_t n)
{
    hid_t type = H5Dget_type(ds);
    int has = type >= 0 && H5Tget_class(type) == H5T_COMPOUND && H5Tget_member_index(type, field) >= 0;
    H5Tclose(type);
    if (!has)
        return fprintf(stderr, "h5_get: no field %s in the table\n", field), 1;
    hid_t mem = H5Tcreate(H5T_COMPOUND, sizeof(double));
    H5Tinsert(mem, field, 0, H5T_NATIVE_DOUBLE);
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    int rc = H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    if (rc >= 0)
        print_numbers(v, n);
    free(v);
    H5Tclose(mem);
    return rc < 0;
}

int main(int argc, char **argv)
{
    int arg = 1;
    if (argc > 1 && strcmp(argv[1], "-x") == 0) {
        hex = 1;
        arg++;
    }
    if (argc - arg != 2)
        return fprintf(stderr, "usage: h5_get [-x] FILE /path[@attr|:field]\n"), 2;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(argv[arg], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return fprintf(stderr, "h5_get: cannot open %s as HDF5\n", argv[arg]), 1;
    char path[1024];
    snprintf(path, sizeof path, "%s", argv[arg + 1]);
    char *attr = strchr(path, '@'), *field = strchr(path, ':');
    if (attr)
        *attr++ = '\0';
    if (field)
        *field++ = '\0';

    int bad = 1;
    if (attr) {
        hid_t a = H5Aopen_by_name(file, path, attr, H5P_DEFAULT, H5P_DEFAULT);
        if (a >= 0) {
            hid_t type = H5Aget_type(a), space = H5Aget_space(a);
            bad = print_values(a, type, H5Sget_simple_extent_npoints(space), 1);
            H5Sclose(space);
            H5Tclose(type);
            H5Aclose(a);
        }
    } else {
        hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
        if (ds >= 0) {
            hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
            hssize_t n = H5Sget_simple_extent_npoints(space);
            bad = field ? print_field(ds, field, n) : print_values(ds, type, n, 0);
            H5Sclose(space);
            H5Tclose(type);
            H5Dclose(ds);
        }
    }
    H5Fclose(file);
    if (bad)
        fprintf(stderr, "h5_get: %s has no %s\n", argv[arg], argv[arg + 1]);
    return bad;
}
