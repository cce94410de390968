/* Damages a copy of a run file in one way, through the HDF5 C API, for the bad-file tests:
 *   h5_doctor FILE CASE      (FILE is modified in place; the test copies it first)
 * Each case breaks one rule of the schema (README, "The HDF5 file"), so each test fails for
 * one reason; heap_loop and heap_crash damage bytes HDF5 itself trips over. `h5_doctor NEW
 * foreign` and `h5_doctor NEW checkpoint` write HDF5 files that are not run files;
 * `schema1`, `calm`, `set:/path=VALUE` and `scale:F` edit a good file into another good one
 * (see doctor_schema). */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hid_t file;

static int fail(const char *what)
{
    fprintf(stderr, "h5_doctor: %s failed\n", what);
    return 1;
}

static hsize_t length(const char *path)
{
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT), s = H5Dget_space(d);
    hsize_t n = (hsize_t)H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    H5Dclose(d);
    return n;
}

/* Replaces path with a dataset of the given type and shape (zeros, or left unwritten). */
static int replace(const char *path, hid_t type, int rank, const hsize_t *dims, int write)
{
    if (H5Ldelete(file, path, H5P_DEFAULT) < 0)
        return fail("deleting the dataset");
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t set = H5Dcreate2(file, path, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    double *zeros = calloc(n, sizeof(double));
    int bad = set < 0 || (write && H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros) < 0);
    free(zeros);
    H5Dclose(set);
    H5Sclose(space);
    return bad ? fail("creating the dataset") : 0;
}

static int make_int_attr(const char *obj, const char *name, int value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate_by_name(file, obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int bad = a < 0 || H5Awrite(a, H5T_NATIVE_INT, &value) < 0;
    H5Aclose(a);
    H5Sclose(space);
    return bad ? fail("creating the attribute") : 0;
}

/* Deleted and created anew: HDF5 1.10 fails to rewrite some attributes in place ("can't
 * locate open attribute"). */
static int set_int_attr(const char *obj, const char *name, int value)
{
    if (H5Adelete_by_name(file, obj, name, H5P_DEFAULT) < 0)
        return fail("deleting the attribute");
    return make_int_attr(obj, name, value);
}

/* Element `index` of the dataset, counted in C order (a scalar has only element 0). */
static int set_value(const char *path, hsize_t index, double v)
{
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT), space = H5Dget_space(set), mem = H5Screate(H5S_SCALAR);
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t dims[2] = { 1, 1 }, at[2] = { 0, 0 };
    int bad = rank < 0 || rank > 2 || H5Sget_simple_extent_dims(space, dims, NULL) < 0;
    for (int i = rank - 1; !bad && i >= 0; index /= dims[i--])
        at[i] = index % dims[i];
    bad = bad || (rank > 0 && H5Sselect_elements(space, H5S_SELECT_SET, 1, at) < 0)
       || H5Dwrite(set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &v) < 0;
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(set);
    return bad ? fail("writing the value") : 0;
}

/* /results@kernel as an integer instead of a string. */
static int int_kernel(void)
{
    int zero = 0;
    hid_t space = H5Screate(H5S_SCALAR), a = -1;
    int bad = H5Adelete_by_name(file, "/results", "kernel", H5P_DEFAULT) < 0
           || (a = H5Acreate_by_name(file, "/results", "kernel", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                                     H5P_DEFAULT)) < 0
           || H5Awrite(a, H5T_NATIVE_INT, &zero) < 0;
    H5Aclose(a);
    H5Sclose(space);
    return bad ? fail("retyping /results@kernel") : 0;
}

static int doctor(const char *c)
{
    hsize_t n = length("/timings/iteration");
    if (strcmp(c, "missing_group") == 0)
        return H5Ldelete(file, "/timings", H5P_DEFAULT) < 0 ? fail("deleting /timings") : 0;
    if (strcmp(c, "wrong_type") == 0)
        return replace("/timings/iteration", H5T_STD_I32LE, 2, (hsize_t[]){ 1, n }, 1);
    if (strcmp(c, "wrong_shape") == 0)
        return replace("/timings/iteration", H5T_IEEE_F64LE, 1, (hsize_t[]){ n - 1 }, 1);
    if (strcmp(c, "unwritten") == 0)
        return replace("/timings/iteration", H5T_IEEE_F64LE, 1, (hsize_t[]){ n }, 0);
    if (strcmp(c, "newer_schema") == 0)
        return set_int_attr("/", "schema_version", 3);
    if (strcmp(c, "thread_count") == 0)
        return set_int_attr("/results", "n_threads", 3);
    if (strcmp(c, "negative_time") == 0)
        return set_value("/timings/thread_iteration", 1, -1.0);
    if (strcmp(c, "fraction_range") == 0)
        return set_value("/placement/thread_local_fraction", 0, 1.5);
    if (strcmp(c, "time_min") == 0)
        return set_value("/results/time_min", 0, 0.0);
    if (strcmp(c, "no_schema") == 0)
        return H5Adelete(file, "schema_version") < 0 ? fail("deleting schema_version") : 0;
    if (strcmp(c, "kernel_type") == 0)
        return int_kernel();
    if (strcmp(c, "soft_link") == 0)
        return H5Lmove(file, "/results", file, "/results_moved", H5P_DEFAULT, H5P_DEFAULT) < 0
            || H5Lcreate_soft("/results_moved", file, "/results", H5P_DEFAULT, H5P_DEFAULT) < 0
            ? fail("linking /results") : 0;
    fprintf(stderr, "h5_doctor: unknown case '%s'\n", c);
    return 2;
}

/* Multiplies every value of a double dataset by f. */
static int scale_dataset(const char *path, double f)
{
    hsize_t n = length(path);
    double *v = calloc(n ? n : 1, sizeof *v);
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT);
    int bad = !v || set < 0 || H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    for (hsize_t i = 0; !bad && i < n; i++)
        v[i] *= f;
    bad = bad || H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    H5Dclose(set);
    free(v);
    return bad ? fail("scaling a dataset") : 0;
}

/* Zeros one integer field of every row of a compound table (HDF5 keeps the other fields). */
static int zero_field(const char *path, const char *field)
{
    hsize_t n = length(path);
    int64_t *zeros = calloc(n ? n : 1, sizeof *zeros);
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT), mem = H5Tcreate(H5T_COMPOUND, sizeof(int64_t));
    int bad = !zeros || set < 0 || mem < 0 || H5Tinsert(mem, field, 0, H5T_NATIVE_INT64) < 0
           || H5Dwrite(set, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros) < 0;
    H5Tclose(mem);
    H5Dclose(set);
    free(zeros);
    return bad ? fail("zeroing a field") : 0;
}

/* Not damage, for the compare and show tests; each leaves a file the reader accepts:
 *   schema1          what touchstone wrote before schema 2: no /summary, no /counters/machine
 *   calm             counters of an undisturbed run: no involuntary switches, nothing else on
 *                    the CPUs, load 0 (whatever the machine did during the test)
 *   set:/path=VALUE  a scalar dataset (a machine counter) set to VALUE
 *   scale:F          every time per iteration (and /timings/kernel) F times longer */
static int doctor_schema(const char *c)
{
    if (strcmp(c, "schema1") == 0)
        return H5Ldelete(file, "/summary", H5P_DEFAULT) < 0 || H5Ldelete(file, "/counters/machine", H5P_DEFAULT) < 0
            ? fail("deleting what schema 2 added") : set_int_attr("/", "schema_version", 1);
    if (strcmp(c, "calm") == 0) {
        static const char *const zero[] = { "/counters/machine/others_cpu", "/counters/machine/steal",
                                            "/counters/machine/load_start", "/counters/machine/load_end" };
        for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
            if (set_value(zero[i], 0, 0.0))
                return 1;
        return zero_field("/counters/kernel", "involuntary_switches");
    }
    if (strncmp(c, "scale:", 6) == 0) {
        static const char *const times[] = { "/timings/iteration", "/timings/thread_iteration", "/timings/kernel",
                                             "/results/time_min", "/results/time_median", "/results/time_max" };
        double f = strtod(c + 6, NULL);
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
            if (scale_dataset(times[i], f))
                return 1;
        return 0;
    }
    char path[256];
    const char *eq = strchr(c, '=');
    if (strncmp(c, "set:", 4) != 0 || !eq || eq - c - 4 >= (long)sizeof path)
        return fprintf(stderr, "h5_doctor: unknown case '%s'\n", c), 2;
    snprintf(path, sizeof path, "%.*s", (int)(eq - c - 4), c + 4);
    return set_value(path, 0, strtod(eq + 1, NULL));
}

/* HDF5 1.10 does not check the objects in a global heap collection (where variable-length
 * strings live): a free-space object of size 0 makes it loop forever, a huge size makes it
 * read out of bounds. Written into the first object after the "GCOL" signature. */
static int damage_heap(const char *path, const char *c)
{
    static const unsigned char loop[16] = { 0 };
    static const unsigned char crash[16] = { 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40 };
    FILE *f = fopen(path, "r+b");
    unsigned char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    size_t at = 0;
    while (at + 32 <= n && memcmp(buf + at, "GCOL", 4) != 0)
        at++;
    int bad = !f || at + 32 > n || fseek(f, (long)at + 16, SEEK_SET) != 0
           || fwrite(strcmp(c, "heap_loop") == 0 ? loop : crash, 16, 1, f) != 1;
    if (f && fclose(f) != 0)
        bad = 1;
    return bad ? fail("damaging the global heap") : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: h5_doctor FILE CASE\n"), 2;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (strcmp(argv[2], "foreign") == 0 || strcmp(argv[2], "checkpoint") == 0) {
        file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t g = file < 0 ? -1 : H5Gcreate2(file, "/data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(g);
        /* A checkpoint says so in its root attribute touchstone_checkpoint (io/ts_checkpoint.c). */
        int st = g < 0 || (argv[2][0] == 'c' && make_int_attr("/", "touchstone_checkpoint", 1));
        return H5Fclose(file) < 0 || st ? fail("writing the file") : 0;
    }
    if (strncmp(argv[2], "heap_", 5) == 0)
        return damage_heap(argv[1], argv[2]);
    file = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
    if (file < 0)
        return fail("opening the file");
    int st = strcmp(argv[2], "schema1") == 0 || strcmp(argv[2], "calm") == 0 || strncmp(argv[2], "set:", 4) == 0
                  || strncmp(argv[2], "scale:", 6) == 0
               ? doctor_schema(argv[2])
               : doctor(argv[2]);
    return H5Fclose(file) < 0 ? fail("closing the file") : st;
}
