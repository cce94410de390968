/* Prints a run file's results exactly (hexadecimal floats), through the HDF5 C API, so
 * shell tests can compare runs bitwise: /results/global, thread_partials, node_partials,
 * node_ids and /verification's passed flag. Exit 1 when something is missing. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

static int print_doubles(hid_t file, const char *path)
{
    hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
    if (ds < 0)
        return fprintf(stderr, "missing dataset %s\n", path), 1;
    hid_t space = H5Dget_space(ds);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    int bad = !v || H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    if (!bad) {
        printf("%s", path);
        for (hssize_t i = 0; i < n; i++)
            printf(" %a", v[i]);
        printf("\n");
    }
    free(v);
    H5Sclose(space);
    H5Dclose(ds);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return fprintf(stderr, "usage: h5_results FILE.h5\n"), 2;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return fprintf(stderr, "cannot open %s as HDF5\n", argv[1]), 1;
    int bad = print_doubles(file, "/results/global") + print_doubles(file, "/results/thread_partials")
            + print_doubles(file, "/results/node_partials") + print_doubles(file, "/results/node_ids");
    int passed = -1;
    hid_t attr = H5Aopen_by_name(file, "/verification", "passed", H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Aread(attr, H5T_NATIVE_INT, &passed) < 0)
        bad++;
    else
        printf("/verification/passed %d\n", passed);
    if (attr >= 0)
        H5Aclose(attr);
    H5Fclose(file);
    return bad ? 1 : 0;
}
