/* Damages a copy of a run file in one way, through the HDF5 C API, for the bad-file tests:
 *   h5_doctor FILE CASE      (FILE is modified in place; the test copies it first)
 * Each case breaks one rule of the schema (docs/hdf5-schema.md), so each test fails for
 * one reason; heap_loop and heap_crash damage bytes HDF5 itself trips over. `h5_doctor NEW
 * foreign` and `h5_doctor NEW checkpoint` write HDF5 files that are not run files;
 * `schema1`, `calm`, `no_init`, `set:/path=VALUE` and `scale:F` edit a good file into another good one
 * (see doctor_schema); `set_str:/obj@name=VALUE` sets a string attribute (an unknown kernel). */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ts_digest.h"

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
                                        H5P_DEFAULT))
                     < 0
              || H5Awrite(a, H5T_NATIVE_INT, &zero) < 0;
    H5Aclose(a);
    H5Sclose(space);
    return bad ? fail("retyping /results@kernel") : 0;
}

/* Swaps the stored bytes of the first and the last chunk of /field: each keeps its valid
 * Fletcher32 checksum, only the field as a whole is wrong. */
static int swap_chunks(void)
{
    hid_t set = H5Dopen2(file, "/field", H5P_DEFAULT), space = H5Dget_space(set), dcpl = H5Dget_create_plist(set);
    hsize_t dims[3], chunk[3], first[3] = { 0, 0, 0 }, last[3];
    int bad = H5Sget_simple_extent_dims(space, dims, NULL) != 3 || H5Pget_chunk(dcpl, 3, chunk) != 3;
    for (int d = 0; d < 3 && !bad; d++)
        last[d] = (dims[d] - 1) / chunk[d] * chunk[d];
    hsize_t size_a = 0, size_b = 0;
    bad = bad || H5Dget_chunk_storage_size(set, first, &size_a) < 0 || H5Dget_chunk_storage_size(set, last, &size_b) < 0
          || size_a != size_b || memcmp(first, last, sizeof first) == 0;
    unsigned char *a = bad ? NULL : malloc(size_a), *b = bad ? NULL : malloc(size_b);
    uint32_t fa = 0, fb = 0;
    bad = bad || !a || !b || H5Dread_chunk(set, H5P_DEFAULT, first, &fa, a) < 0
          || H5Dread_chunk(set, H5P_DEFAULT, last, &fb, b) < 0 || memcmp(a, b, size_a) == 0
          || H5Dwrite_chunk(set, H5P_DEFAULT, fb, first, size_b, b) < 0
          || H5Dwrite_chunk(set, H5P_DEFAULT, fa, last, size_a, a) < 0;
    free(a);
    free(b);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Dclose(set);
    return bad ? fail("swapping two chunks of /field (the field needs two different chunks)") : 0;
}

/* Copies attribute name, when there is one, from one object to another. */
static int copy_attr(hid_t from, hid_t to, const char *name)
{
    if (H5Aexists(from, name) == 0)
        return 0;
    hid_t a = H5Aopen(from, name, H5P_DEFAULT), type = H5Aget_type(a), space = H5Aget_space(a);
    unsigned char value[64];
    hid_t b = -1;
    int bad = a < 0 || H5Tget_size(type) > sizeof value || H5Aread(a, type, value) < 0
              || (b = H5Acreate2(to, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 || H5Awrite(b, type, value) < 0;
    if (!bad && H5Tis_variable_str(type) > 0) { /* HDF5 allocated the string read */
        char *text;
        memcpy(&text, value, sizeof text);
        H5free_memory(text);
    }
    H5Aclose(b);
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(a);
    return bad;
}

/* Rewrites the dataset at path with the same values and attributes (digest, units), stored as
 * type with the creation properties edit makes of the original ones. */
static int rewrite(const char *path, hid_t type, int (*edit)(hid_t dcpl, hid_t space))
{
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT), space = H5Dget_space(set), dcpl = H5Dget_create_plist(set);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    double *v = n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
    int bad = !v || H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0 || edit(dcpl, space)
              || H5Lmove(file, path, file, "/rewritten_old", H5P_DEFAULT, H5P_DEFAULT) < 0;
    hid_t copy = bad ? -1 : H5Dcreate2(file, path, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    bad = bad || copy < 0 || H5Dwrite(copy, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0
          || copy_attr(set, copy, "digest") || copy_attr(set, copy, "units");
    H5Dclose(copy);
    free(v);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Dclose(set);
    return bad || H5Ldelete(file, "/rewritten_old", H5P_DEFAULT) < 0 ? fail("rewriting the dataset") : 0;
}

static int rewrite_field(hid_t type, int (*edit)(hid_t dcpl, hid_t space))
{
    return rewrite("/field", type, edit);
}

/* Chunked as one chunk, for the filters below. */
static int one_chunk(hid_t dcpl, hid_t space)
{
    hsize_t dims[3];
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    return rank < 1 || H5Pset_chunk(dcpl, rank, dims) < 0;
}

static int deflated(hid_t dcpl, hid_t space)
{
    return one_chunk(dcpl, space) || H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 6) < 0;
}

static int deflated_twice(hid_t dcpl, hid_t space)
{
    return deflated(dcpl, space) || H5Pset_deflate(dcpl, 6) < 0;
}

static int scale_offset(hid_t dcpl, hid_t space)
{
    return one_chunk(dcpl, space) || H5Pset_scaleoffset(dcpl, H5Z_SO_FLOAT_DSCALE, 3) < 0;
}

/* The values in another file (here /dev/null): HDF5 would read whatever file that names. */
static int external(hid_t dcpl, hid_t space)
{
    (void)space;
    return H5Pset_external(dcpl, "/dev/null", 0, H5F_UNLIMITED) < 0;
}

static int keep(hid_t dcpl, hid_t space)
{
    (void)dcpl;
    (void)space;
    return 0;
}

static int no_checksum(hid_t dcpl, hid_t space)
{
    (void)space;
    return H5Premove_filter(dcpl, H5Z_FILTER_FLETCHER32) < 0;
}

static int other_chunks(hid_t dcpl, hid_t space)
{
    (void)space;
    hsize_t chunk[3];
    if (H5Pget_chunk(dcpl, 3, chunk) != 3)
        return 1;
    chunk[2] = chunk[2] > 1 ? chunk[2] / 2 : 1;
    return H5Pset_chunk(dcpl, 3, chunk) < 0;
}

/* Multiplies element index of a 1-D or 2-D dataset by 2: a plausible time, not the one written. */
static int double_value(const char *path, hsize_t index)
{
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT), space = H5Dget_space(set);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    double *v = n > 0 ? malloc((size_t)n * sizeof *v) : NULL;
    int bad = !v || (hsize_t)n <= index || H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    if (!bad) {
        v[index] *= 2;
        bad = H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    }
    free(v);
    H5Sclose(space);
    H5Dclose(set);
    return bad ? fail("altering a time") : 0;
}

/* A checkpoint as format 3 wrote it: its thread_times' digest ts_digest64 of the whole array
 * (format 4's is ts_digest_points, which ranks add up from their rows). */
static int format3_checkpoint(void)
{
    hid_t set = H5Dopen2(file, "/thread_times", H5P_DEFAULT), space = H5Dget_space(set), a = -1;
    hssize_t n = H5Sget_simple_extent_npoints(space);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    int bad = !v || n < 0 || H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    uint64_t digest = bad ? 0 : ts_digest64(v, (size_t)n * sizeof *v);
    bad = bad || (a = H5Aopen(set, "digest", H5P_DEFAULT)) < 0 || H5Awrite(a, H5T_NATIVE_UINT64, &digest) < 0;
    if (a >= 0)
        H5Aclose(a);
    free(v);
    H5Sclose(space);
    H5Dclose(set);
    return bad ? fail("rewriting the digest") : set_int_attr("/", "touchstone_checkpoint", 3);
}

static int set_i64_attr(const char *obj, const char *name, int64_t value)
{
    hid_t space = H5Screate(H5S_SCALAR), a = -1;
    int bad =
        H5Adelete_by_name(file, obj, name, H5P_DEFAULT) < 0
        || (a = H5Acreate_by_name(file, obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0
        || H5Awrite(a, H5T_NATIVE_INT64, &value) < 0;
    H5Aclose(a);
    H5Sclose(space);
    return bad ? fail("rewriting the attribute") : 0;
}

static int64_t i64_attr(const char *obj, const char *name)
{
    int64_t v = -1;
    hid_t a = H5Aopen_by_name(file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_INT64, &v) < 0)
        v = -1;
    H5Aclose(a);
    return v;
}

/* Replaces path with a chunked dataset of doubles whose chunks are never written: a small file
 * whose shape asks for as many values as it likes. */
static int replace_unwritten(const char *path, int rank, const hsize_t *dims)
{
    const hsize_t chunk[2] = { 1, (hsize_t)1 << 16 };
    hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    int bad = H5Ldelete(file, path, H5P_DEFAULT) < 0 || H5Pset_chunk(dcpl, rank, rank == 1 ? chunk + 1 : chunk) < 0;
    hid_t set = bad ? -1 : H5Dcreate2(file, path, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dclose(set);
    H5Pclose(dcpl);
    H5Sclose(space);
    return bad || set < 0 ? fail("creating the unwritten dataset") : 0;
}

/* 2^28 iterations of one thread, in chunks never written (issue 12: report spent 78 s and
 * 9.4 GB on such a file). */
static int crafted_huge(void)
{
    const hsize_t n = (hsize_t)1 << 28;
    return set_i64_attr("/timings", "n_iterations", (int64_t)n) || set_int_attr("/results", "n_threads", 1)
           || replace_unwritten("/timings/iteration", 1, &n)
           || replace_unwritten("/timings/thread_iteration", 2, (hsize_t[]){ 1, n });
}

/* path as a deflated dataset of dims whose chunks (of chunk values) all hold the deflate stream
 * of `inflates` zero bytes, written as stored bytes (H5Dwrite_chunk): a deflate bomb. */
static int replace_bomb(const char *path, int rank, const hsize_t *dims, hsize_t chunk, size_t inflates)
{
    unsigned char *zeros = calloc(inflates, 1);
    uLongf packed_size = compressBound((uLong)inflates);
    unsigned char *packed = malloc(packed_size);
    hsize_t chunks[2] = { 1, chunk }, n_chunks = (dims[rank - 1] + chunk - 1) / chunk * (rank == 2 ? dims[0] : 1);
    hid_t space = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), set = -1;
    int bad = !zeros || !packed || compress2(packed, &packed_size, zeros, (uLong)inflates, 9) != Z_OK
              || H5Ldelete(file, path, H5P_DEFAULT) < 0 || H5Pset_chunk(dcpl, rank, chunks + 2 - rank) < 0
              || H5Pset_deflate(dcpl, 9) < 0
              || (set = H5Dcreate2(file, path, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0;
    for (hsize_t c = 0; !bad && c < n_chunks; c++) {
        hsize_t row = rank == 2 ? c / ((dims[rank - 1] + chunk - 1) / chunk) : 0;
        hsize_t col = (rank == 2 ? c % ((dims[rank - 1] + chunk - 1) / chunk) : c) * chunk;
        hsize_t at[2] = { row, col };
        bad = H5Dwrite_chunk(set, H5P_DEFAULT, 0, rank == 2 ? at : at + 1, packed_size, packed) < 0;
    }
    H5Dclose(set);
    H5Pclose(dcpl);
    H5Sclose(space);
    free(packed);
    free(zeros);
    return bad ? fail("writing a deflate bomb") : 0;
}

/* 2^22 iterations of one thread in 693 kB, as the bomb that once made show take 725 MB: 1 MiB
 * chunks of zeros, each stored in about a kB. */
static int deflate_bomb(void)
{
    const hsize_t n = (hsize_t)1 << 22, chunk = (hsize_t)1 << 17;
    return set_i64_attr("/timings", "n_iterations", (int64_t)n) || set_int_attr("/results", "n_threads", 1)
           || replace_bomb("/timings/iteration", 1, &n, chunk, chunk * sizeof(double))
           || replace_bomb("/timings/thread_iteration", 2, (hsize_t[]){ 1, n }, chunk, chunk * sizeof(double));
}

/* /timings/iteration the size it should be, in one chunk whose stream inflates to 64 MiB. */
static int chunk_bomb(void)
{
    hsize_t n = length("/timings/iteration");
    return replace_bomb("/timings/iteration", 1, &n, n, (size_t)64 << 20);
}

/* A scalar variable-length string attribute obj@name set to value ("set_str:/obj@name=value"). */
static int set_str_attr(const char *spec)
{
    char obj[256], name[128];
    const char *at = strchr(spec, '@'), *eq = at ? strchr(at, '=') : NULL;
    if (!at || !eq || at - spec >= (long)sizeof obj || eq - at - 1 >= (long)sizeof name)
        return fprintf(stderr, "h5_doctor: set_str:/OBJ@NAME=VALUE, not '%s'\n", spec), 2;
    snprintf(obj, sizeof obj, "%.*s", (int)(at - spec), spec);
    snprintf(name, sizeof name, "%.*s", (int)(eq - at - 1), at + 1);
    const char *value = eq + 1;
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), a = -1;
    int bad = type < 0 || H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0
              || H5Adelete_by_name(file, obj, name, H5P_DEFAULT) < 0
              || (a = H5Acreate_by_name(file, obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0
              || H5Awrite(a, type, &value) < 0;
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return bad ? fail("setting the string attribute") : 0;
}

/* Every thread's time of iteration i is NaN, or only the first thread's. */
static int nan_column(hsize_t i, int all)
{
    hid_t set = H5Dopen2(file, "/timings/thread_iteration", H5P_DEFAULT), space = H5Dget_space(set);
    hsize_t dims[2] = { 0, 0 };
    int bad = H5Sget_simple_extent_dims(space, dims, NULL) != 2 || i >= dims[1];
    for (hsize_t t = 0; !bad && t < (all ? dims[0] : 1); t++)
        bad = set_value("/timings/thread_iteration", t * dims[1] + i, NAN);
    H5Sclose(space);
    H5Dclose(set);
    return bad ? fail("writing NaN") : 0;
}

static double scalar(const char *path)
{
    double v = NAN;
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT);
    if (set < 0 || H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0)
        v = NAN;
    H5Dclose(set);
    return v;
}

/* Values a run can write at the edges, which must read: the fastest iteration faster than the
 * clock could tell (0 s, so infinite rates), and no thread owning a page (NaN local fractions). */
static int writer_extremes(void)
{
    hsize_t n = length("/timings/iteration"), fastest = 0;
    double *v = n ? malloc(n * sizeof *v) : NULL;
    hid_t set = H5Dopen2(file, "/timings/iteration", H5P_DEFAULT);
    int bad = !v || H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    H5Dclose(set);
    for (hsize_t i = 1; !bad && i < n; i++)
        fastest = v[i] < v[fastest] ? i : fastest;
    free(v);
    bad = bad || set_value("/timings/iteration", fastest, 0.0) || set_value("/results/time_min", 0, 0.0)
          || set_value("/results/gbs_best", 0, INFINITY) || set_value("/timings/thread_iteration", fastest, 0.0)
          || (H5Lexists(file, "/results/glups_best", H5P_DEFAULT) > 0 && set_value("/results/glups_best", 0, INFINITY))
          || set_value("/placement/local_fraction", 0, NAN) || set_value("/placement/thread_local_fraction", 0, NAN);
    return bad ? fail("writing the extremes") : 0;
}

/* One point of a checkpoint's field (z, y, x) near its far corner changed by +1, through
 * HDF5, so its chunk's Fletcher32 checksum is right: only the field's digest tells. */
static int field_point_changed(void)
{
    hid_t set = H5Dopen2(file, "/field", H5P_DEFAULT), space = H5Dget_space(set), mem = H5Screate(H5S_SCALAR);
    hsize_t dims[3] = { 0, 0, 0 };
    int bad = H5Sget_simple_extent_ndims(space) != 3 || H5Sget_simple_extent_dims(space, dims, NULL) != 3;
    hsize_t at[3] = { dims[0] - 1, dims[1] > 2 ? dims[1] - 2 : 0, dims[2] > 2 ? dims[2] - 2 : 0 };
    double v = 0;
    bad = bad || H5Sselect_elements(space, H5S_SELECT_SET, 1, at) < 0
          || H5Dread(set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &v) < 0;
    v += 1.0;
    bad = bad || H5Dwrite(set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &v) < 0;
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(set);
    return bad ? fail("changing a point of /field") : 0;
}

/* A checkpoint altered in one way; 2 when c is not a checkpoint case. */
static int ckpt_doctor(const char *c)
{
    if (strcmp(c, "ckpt_swap_chunks") == 0)
        return swap_chunks();
    if (strcmp(c, "ckpt_float32") == 0)
        return rewrite_field(H5T_IEEE_F32LE, keep);
    if (strcmp(c, "ckpt_no_checksum") == 0)
        return rewrite_field(H5T_IEEE_F64LE, no_checksum);
    if (strcmp(c, "ckpt_other_chunks") == 0)
        return rewrite_field(H5T_IEEE_F64LE, other_chunks);
    if (strcmp(c, "ckpt_step_time") == 0)
        return double_value("/step_times", 0);
    if (strcmp(c, "ckpt_thread_time") == 0)
        return double_value("/thread_times", 0);
    if (strcmp(c, "ckpt_tiny_time") == 0) /* what damaged bytes made of a time: 1.9e-159 s */
        return set_value("/step_times", 0, 1.9e-159);
    if (strcmp(c, "ckpt_steps_all") == 0)
        return set_i64_attr("/", "steps_done", i64_attr("/", "n_warmup") + i64_attr("/", "n_iterations"));
    if (strcmp(c, "ckpt_version1") == 0)
        return set_int_attr("/", "touchstone_checkpoint", 1);
    if (strcmp(c, "ckpt_version2") == 0)
        return set_int_attr("/", "touchstone_checkpoint", 2);
    if (strcmp(c, "ckpt_format3") == 0)
        return format3_checkpoint();
    if (strcmp(c, "ckpt_field_point") == 0)
        return field_point_changed();
    return 2;
}

static int doctor(const char *c)
{
    if (strncmp(c, "ckpt_", 5) == 0) {
        int st = ckpt_doctor(c);
        if (st == 2)
            fprintf(stderr, "h5_doctor: unknown case '%s'\n", c);
        return st;
    }
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
        return set_int_attr("/", "schema_version", 99); /* far past any schema touchstone writes */
    if (strcmp(c, "thread_count") == 0)
        return set_int_attr("/results", "n_threads", 3);
    if (strcmp(c, "negative_time") == 0)
        return set_value("/timings/thread_iteration", 1, -1.0);
    if (strcmp(c, "fraction_range") == 0)
        return set_value("/placement/thread_local_fraction", 0, 1.5);
    if (strcmp(c, "time_min") == 0)
        return set_value("/results/time_min", 0, 0.0);
    if (strcmp(c, "writer_extremes") == 0)
        return writer_extremes();
    if (strcmp(c, "median_outside") == 0) /* above time_max: no median of those times */
        return set_value("/results/time_median", 0, 2 * scalar("/results/time_max"));
    if (strcmp(c, "crafted_huge") == 0)
        return crafted_huge();
    if (strcmp(c, "nan_partial") == 0) /* one thread's time of iteration 0 unmeasured */
        return nan_column(0, 0);
    if (strcmp(c, "nan_first") == 0) /* iteration 0 unmeasured, as if before a restart */
        return nan_column(0, 1);
    if (strcmp(c, "nan_later") == 0) /* iteration 1 unmeasured after a measured one */
        return nan_column(1, 1);
    if (strcmp(c, "zero_iterations") == 0) /* in a complete run */
        return set_i64_attr("/timings", "n_iterations", 0);
    if (strcmp(c, "deflate_bomb") == 0)
        return deflate_bomb();
    if (strcmp(c, "chunk_bomb") == 0)
        return chunk_bomb();
    if (strncmp(c, "set_str:", 8) == 0)
        return set_str_attr(c + 8);
    if (strcmp(c, "deflated") == 0) /* as h5repack -f SHUF -f GZIP=6 leaves it: still read */
        return rewrite("/timings/iteration", H5T_IEEE_F64LE, deflated);
    if (strcmp(c, "deflated_twice") == 0)
        return rewrite("/timings/iteration", H5T_IEEE_F64LE, deflated_twice);
    if (strcmp(c, "scale_offset") == 0)
        return rewrite("/timings/iteration", H5T_IEEE_F64LE, scale_offset);
    if (strcmp(c, "external") == 0)
        return rewrite("/timings/iteration", H5T_IEEE_F64LE, external);
    if (strcmp(c, "no_schema") == 0)
        return H5Adelete(file, "schema_version") < 0 ? fail("deleting schema_version") : 0;
    if (strcmp(c, "kernel_type") == 0)
        return int_kernel();
    if (strcmp(c, "soft_link") == 0)
        return H5Lmove(file, "/results", file, "/results_moved", H5P_DEFAULT, H5P_DEFAULT) < 0
                       || H5Lcreate_soft("/results_moved", file, "/results", H5P_DEFAULT, H5P_DEFAULT) < 0
                   ? fail("linking /results")
                   : 0;
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

/* Sets one double field of every row of a compound table to v (HDF5 keeps the other fields). */
static int set_double_field(const char *path, const char *field, double v)
{
    hsize_t n = length(path);
    double *values = malloc((n ? n : 1) * sizeof *values);
    for (hsize_t i = 0; values && i < n; i++)
        values[i] = v;
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT), mem = H5Tcreate(H5T_COMPOUND, sizeof(double));
    int bad = !values || set < 0 || mem < 0 || H5Tinsert(mem, field, 0, H5T_NATIVE_DOUBLE) < 0
              || H5Dwrite(set, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0;
    H5Tclose(mem);
    H5Dclose(set);
    free(values);
    return bad ? fail("setting a field") : 0;
}

/* Whether the compound dataset path has the column field (files before it do not). */
static int has_field(const char *path, const char *field)
{
    hid_t set = H5Dopen2(file, path, H5P_DEFAULT), type = set < 0 ? -1 : H5Dget_type(set);
    int has = type >= 0 && H5Tget_member_index(type, field) >= 0;
    H5Tclose(type);
    H5Dclose(set);
    return has;
}

/* An int64 attribute obj@name set to value (a count of /counters/init_memory). */
static int set_int64_attr(const char *obj, const char *name, int64_t value)
{
    hid_t space = H5Screate(H5S_SCALAR), a = -1;
    int bad =
        H5Adelete_by_name(file, obj, name, H5P_DEFAULT) < 0
        || (a = H5Acreate_by_name(file, obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0
        || H5Awrite(a, H5T_NATIVE_INT64, &value) < 0;
    H5Aclose(a);
    H5Sclose(space);
    return bad ? fail("setting the attribute") : 0;
}

/* The first touch of a quiet machine: nothing else on the CPUs, no stall, no fallback, no time
 * waiting on memory (files written before /counters/init_* have nothing to calm). */
/* The threads' wait for a CPU in /counters/kernel, 0 where the table has the column. */
static int zero_wait(void)
{
    hid_t set = H5Dopen2(file, "/counters/kernel", H5P_DEFAULT);
    hid_t type = set < 0 ? -1 : H5Dget_type(set);
    int has = type >= 0 && H5Tget_member_index(type, "wait_time") >= 0;
    H5Tclose(type);
    H5Dclose(set);
    return has ? zero_field("/counters/kernel", "wait_time") : 0;
}

static int calm_init(void)
{
    static const char *const zero[] = { "/counters/init_machine/others_cpu", "/counters/init_machine/steal",
                                        "/counters/init_memory/memory_stall" };
    static const char *const counts[] = { "compact_stall", "compact_fail",       "compact_success",
                                          "allocstall",    "thp_fault_fallback", "thp_fault_fallback_charge" };
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        if (H5Lexists(file, "/counters", H5P_DEFAULT) > 0 && H5Lexists(file, zero[i], H5P_DEFAULT) > 0
            && set_value(zero[i], 0, 0.0))
            return 1;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (H5Lexists(file, "/counters", H5P_DEFAULT) > 0 && H5Lexists(file, "/counters/init_memory", H5P_DEFAULT) > 0
            && set_int64_attr("/counters/init_memory", counts[i], 0))
            return 1;
    /* The touching threads barely in the kernel (this VM's hypervisor can make them spend most
     * of the init there). */
    if (H5Lexists(file, "/counters", H5P_DEFAULT) > 0 && has_field("/counters/init", "system_time")
        && set_double_field("/counters/init", "system_time", 0.0))
        return 1;
    return 0;
}

/* The units "1" of a dataset made anew (variable-length UTF-8, as the writer's). */
static int new_units(const char *path)
{
    const char *value = "1";
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), a = -1;
    int bad = type < 0 || H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0
              || (a = H5Acreate_by_name(file, path, "units", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0
              || H5Awrite(a, type, &value) < 0;
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return bad ? fail("writing units") : 0;
}

/* /counters/init or /counters/kernel as written before the threads' CPU times: the five
 * counts only, units "1". */
static int drop_times(const char *path)
{
    static const char *const names[] = { "minor_faults", "major_faults", "voluntary_switches", "involuntary_switches",
                                         "migrations" };
    enum { N = sizeof names / sizeof names[0] };
    hsize_t n = length(path);
    int64_t *rows = calloc((n ? n : 1) * N, sizeof *rows);
    hid_t mem = H5Tcreate(H5T_COMPOUND, N * sizeof(int64_t)), file_type = H5Tcreate(H5T_COMPOUND, N * 8);
    int bad = !rows || mem < 0 || file_type < 0;
    for (size_t i = 0; !bad && i < N; i++)
        bad = H5Tinsert(mem, names[i], i * sizeof(int64_t), H5T_NATIVE_INT64) < 0
              || H5Tinsert(file_type, names[i], i * 8, H5T_STD_I64LE) < 0;
    hid_t set = bad ? -1 : H5Dopen2(file, path, H5P_DEFAULT);
    bad = bad || set < 0 || H5Dread(set, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
    H5Dclose(set);
    hid_t space = H5Screate_simple(1, &n, NULL);
    set = -1;
    bad = bad || H5Ldelete(file, path, H5P_DEFAULT) < 0
          || (set = H5Dcreate2(file, path, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0
          || H5Dwrite(set, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
    H5Dclose(set);
    H5Sclose(space);
    H5Tclose(mem);
    H5Tclose(file_type);
    free(rows);
    return bad ? fail("rewriting a counters table") : new_units(path);
}

/* What a file written before the init counters lacks: the groups, and the threads' CPU times. */
static int drop_init(void)
{
    if (H5Lexists(file, "/counters", H5P_DEFAULT) > 0
        && (drop_times("/counters/init") || drop_times("/counters/kernel")))
        return 1;
    static const char *const groups[] = { "/counters/init_machine", "/counters/init_memory" };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (H5Lexists(file, "/counters", H5P_DEFAULT) > 0 && H5Lexists(file, groups[i], H5P_DEFAULT) > 0
            && H5Ldelete(file, groups[i], H5P_DEFAULT) < 0)
            return fail("deleting the init counters");
    return 0;
}

/* What a file written before the root's build_* lacks: those attributes. */
static int drop_build(void)
{
    static const char *const names[] = { "build_commit", "build_compiler", "build_openmp", "build_mpi", "build_hdf5" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (H5Aexists(file, names[i]) > 0 && H5Adelete(file, names[i]) < 0)
            return fail("deleting the build attributes");
    return 0;
}

/* Not damage, for the compare and show tests; each leaves a file the reader accepts:
 *   schema1          what touchstone wrote before schema 2: no /summary, no /counters/machine
 *                    (nor /counters/init_machine and init_memory, nor the root's build_*,
 *                    which came later)
 *   calm             counters of an undisturbed run: no involuntary switches nor wait for a
 *                    CPU, nothing else on
 *                    the CPUs, load 0; a first touch without stalls, fallbacks or others'
 *                    time (whatever the machine did during the test)
 *   no_init          a file written before /counters/init_machine and init_memory (and the
 *                    threads' user_time and system_time in /counters/init and kernel)
 *   set:/path=VALUE  a scalar dataset (a machine counter) set to VALUE; set:/obj@name=N an
 *                    integer attribute (a count of /counters/init_memory) set to N;
 *                    set:/table:field=VALUE a double column (/counters/init:system_time) set
 *                    to VALUE in every row
 *   scale:F          every time per iteration (and /timings/kernel) F times longer */
static int doctor_schema(const char *c)
{
    if (strcmp(c, "schema1") == 0)
        return H5Ldelete(file, "/summary", H5P_DEFAULT) < 0 || H5Ldelete(file, "/counters/machine", H5P_DEFAULT) < 0
                   ? fail("deleting what schema 2 added")
                   : drop_init() || drop_build() || set_int_attr("/", "schema_version", 1);
    if (strcmp(c, "no_init") == 0)
        return drop_init();
    if (strcmp(c, "calm") == 0) {
        static const char *const zero[] = { "/counters/machine/others_cpu", "/counters/machine/steal",
                                            "/counters/machine/load_start", "/counters/machine/load_end" };
        for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
            if (set_value(zero[i], 0, 0.0))
                return 1;
        return zero_field("/counters/kernel", "involuntary_switches") || zero_wait() || calm_init();
    }
    if (strncmp(c, "scale:", 6) == 0) {
        static const char *const times[] = { "/timings/iteration", "/timings/thread_iteration", "/timings/kernel",
                                             "/results/time_min",  "/results/time_median",      "/results/time_max" };
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
    char *colon = strchr(path, ':');
    if (colon) { /* a column of a table, every row */
        *colon = '\0';
        return set_double_field(path, colon + 1, strtod(eq + 1, NULL));
    }
    char *at = strchr(path, '@');
    if (at) {
        *at = '\0';
        return set_int64_attr(path, at + 1, strtoll(eq + 1, NULL, 10));
    }
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
    int st = strcmp(argv[2], "schema1") == 0 || strcmp(argv[2], "calm") == 0 || strcmp(argv[2], "no_init") == 0
                     || strncmp(argv[2], "set:", 4) == 0 || strncmp(argv[2], "scale:", 6) == 0
                 ? doctor_schema(argv[2])
                 : doctor(argv[2]);
    return H5Fclose(file) < 0 ? fail("closing the file") : st;
}
