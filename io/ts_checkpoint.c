#include "ts_checkpoint.h"

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_h5_util.h"

static int write_checkpoint(struct h5w *w, hid_t file, const void *ctx)
{
    const struct ts_checkpoint *c = ctx;
    const int32_t version = TS_CHECKPOINT_VERSION;
    const struct h5w_num_attr nums[] = {
        { "touchstone_checkpoint", H5T_NATIVE_INT32, &version },
        { "steps_done", H5T_NATIVE_INT64, &c->steps_done },
        { "n_warmup", H5T_NATIVE_INT64, &c->n_warmup },
        { "n_iterations", H5T_NATIVE_INT64, &c->n_iterations },
        { "n_threads", H5T_NATIVE_INT32, &c->n_threads },
    };
    const char *text = c->config_text ? c->config_text : "";
    hid_t config = -1;
    int failed = h5w_attr_str(w, file, "kernel", c->kernel)
              || h5w_attr_nums(w, file, nums, H5W_COUNT(nums))
              || (config = h5w_group(w, file, "config")) < 0
              || h5w_attr_list(w, config, c->config, c->n_config)
              || h5w_dataset(w, config, &(struct h5w_ds){ .name = "text", .type = w->vstr, .data = &text,
                                                          .units = "" })
              || h5w_vector(w, file, "step_times", H5T_NATIVE_DOUBLE, c->steps_done, c->step_times, "s")
              || h5w_dataset(w, file, &(struct h5w_ds){ .name = "thread_times", .type = H5T_NATIVE_DOUBLE,
                                                        .rank = 2,
                                                        .dims = { (hsize_t)c->n_threads, (hsize_t)c->n_iterations },
                                                        .data = c->thread_times, .units = "s",
                                                        .dims_label = "thread, iteration" })
              || (c->field && h5w_dataset(w, file, &(struct h5w_ds){
                                  .name = "field", .type = H5T_NATIVE_DOUBLE, .rank = 3,
                                  .dims = { (hsize_t)c->field_dims[0], (hsize_t)c->field_dims[1],
                                            (hsize_t)c->field_dims[2] },
                                  .data = c->field, .units = "1", .dims_label = "z, y, x" }));
    if (config >= 0)
        H5Gclose(config);
    return failed ? w->err->status : TS_OK;
}

int ts_checkpoint_write(const struct ts_checkpoint *c, const char *path, struct ts_error *err)
{
    return h5w_write_atomic(path, write_checkpoint, c, err);
}

/* ---- reading: the file is untrusted until every fact about it has been checked ---- */

static int read_int_attr(hid_t file, const char *name, int64_t *out)
{
    hid_t a = H5Aexists(file, name) > 0 ? H5Aopen(file, name, H5P_DEFAULT) : -1;
    if (a < 0)
        return -1;
    hid_t type = H5Aget_type(a), space = H5Aget_space(a);
    int ok = H5Tget_class(type) == H5T_INTEGER && H5Sget_simple_extent_npoints(space) == 1
          && H5Aread(a, H5T_NATIVE_INT64, out) >= 0;
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(a);
    return ok ? 0 : -1;
}

/* A string attribute, malloc'd; NULL when absent or not a scalar string. */
static char *read_str_attr(hid_t loc, const char *name)
{
    hid_t a = H5Aexists(loc, name) > 0 ? H5Aopen(loc, name, H5P_DEFAULT) : -1;
    if (a < 0)
        return NULL;
    hid_t type = H5Aget_type(a), space = H5Aget_space(a), mem = H5Tcopy(H5T_C_S1);
    char *value = NULL, *copy = NULL;
    H5Tset_size(mem, H5T_VARIABLE);
    H5Tset_cset(mem, H5Tget_cset(type)); /* HDF5 converts no strings between ASCII and UTF-8 */
    if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0
        && H5Sget_simple_extent_npoints(space) == 1 && H5Aread(a, mem, &value) >= 0 && value) {
        copy = strdup(value);
        H5free_memory(value);
    }
    H5Tclose(mem);
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(a);
    return copy;
}

/* Reads a double dataset only when its rank and every dimension are exactly as expected. */
static int read_doubles(hid_t file, const char *name, int rank, const hsize_t *dims, double *out)
{
    hid_t ds = H5Lexists(file, name, H5P_DEFAULT) > 0 ? H5Dopen2(file, name, H5P_DEFAULT) : -1;
    if (ds < 0)
        return -1;
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    hsize_t found[H5S_MAX_RANK];
    int ok = H5Tget_class(type) == H5T_FLOAT && H5Sget_simple_extent_ndims(space) == rank
          && H5Sget_simple_extent_dims(space, found, NULL) == rank;
    for (int d = 0; ok && d < rank; d++)
        ok = found[d] == dims[d];
    ok = ok && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(ds);
    return ok ? 0 : -1;
}

static int check_header(hid_t file, const char *path, const struct ts_checkpoint_expect *e, int64_t *steps,
                        int64_t *threads, struct ts_error *err)
{
    int64_t version, warmup, iterations;
    if (read_int_attr(file, "touchstone_checkpoint", &version) != 0)
        return ts_fail(err, TS_BAD_INPUT, "%s: not a touchstone checkpoint (no touchstone_checkpoint attribute)", path);
    if (version != TS_CHECKPOINT_VERSION)
        return ts_fail(err, TS_BAD_INPUT, "%s: checkpoint version %lld, this touchstone reads %d", path,
                       (long long)version, TS_CHECKPOINT_VERSION);
    char *kernel = read_str_attr(file, "kernel");
    int same = kernel && strcmp(kernel, e->kernel) == 0;
    int rc = same ? TS_OK
                  : ts_fail(err, TS_BAD_INPUT, "%s: checkpoint of kernel %s, this run is %s", path,
                            kernel ? kernel : "(none)", e->kernel);
    free(kernel);
    if (rc)
        return rc;
    if (read_int_attr(file, "steps_done", steps) || read_int_attr(file, "n_warmup", &warmup)
        || read_int_attr(file, "n_iterations", &iterations) || read_int_attr(file, "n_threads", threads))
        return ts_fail(err, TS_BAD_INPUT, "%s: checkpoint lacks steps_done, n_warmup, n_iterations or n_threads",
                       path);
    if (warmup != e->n_warmup || iterations != e->n_iterations)
        return ts_fail(err, TS_BAD_INPUT, "%s: checkpoint of %lld + %lld iterations, this run has %lld + %lld",
                       path, (long long)warmup, (long long)iterations, (long long)e->n_warmup,
                       (long long)e->n_iterations);
    if (*steps < 0 || *steps >= warmup + iterations || *threads < 1 || *threads > 65536)
        return ts_fail(err, TS_BAD_INPUT, "%s: checkpoint says %lld of %lld steps done by %lld threads: nothing a restart could continue", path,
                       (long long)*steps, (long long)(warmup + iterations), (long long)*threads);
    return TS_OK;
}

static int check_config(hid_t file, const char *path, const struct ts_checkpoint_expect *e, struct ts_error *err)
{
    hid_t config = H5Lexists(file, "config", H5P_DEFAULT) > 0 ? H5Gopen2(file, "config", H5P_DEFAULT) : -1;
    if (config < 0)
        return ts_fail(err, TS_BAD_INPUT, "%s: checkpoint has no /config", path);
    int rc = TS_OK;
    for (int32_t i = 0; i < e->n_must_match && rc == TS_OK; i++) {
        char *value = read_str_attr(config, e->must_match[i].name);
        if (!value || strcmp(value, e->must_match[i].value) != 0)
            rc = ts_fail(err, TS_BAD_INPUT,
                         "%s: checkpoint was written for %s = %s, this run has %s = %s; refusing to restart", path,
                         e->must_match[i].name, value ? value : "(missing)", e->must_match[i].name,
                         e->must_match[i].value);
        free(value);
    }
    H5Gclose(config);
    return rc;
}

int ts_checkpoint_restore(const char *path, const struct ts_checkpoint_expect *e, int64_t *steps_done,
                          int *thread_times_restored, struct ts_error *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    *thread_times_restored = 0;
    hid_t file = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    if (file < 0) {
        FILE *f = fopen(path, "rb");
        if (!f)
            return ts_fail_errno(err, TS_BAD_INPUT, errno, "cannot read checkpoint %s", path);
        fclose(f);
        return ts_fail(err, TS_BAD_INPUT, "cannot read checkpoint %s: not an HDF5 file (truncated or corrupted?)", path);
    }
    int64_t steps = 0, threads = 0;
    int rc = check_header(file, path, e, &steps, &threads, err);
    if (rc == TS_OK)
        rc = check_config(file, path, e, err);
    hsize_t step_dims[1] = { (hsize_t)steps };
    if (rc == TS_OK && steps > 0 && read_doubles(file, "step_times", 1, step_dims, e->step_times) != 0)
        rc = ts_fail(err, TS_BAD_INPUT, "%s: /step_times is not %lld doubles", path, (long long)steps);
    hsize_t field_dims[3] = { (hsize_t)e->field_dims[0], (hsize_t)e->field_dims[1], (hsize_t)e->field_dims[2] };
    double *field = e->field[steps % 2];
    if (rc == TS_OK && field && read_doubles(file, "field", 3, field_dims, field) != 0)
        rc = ts_fail(err, TS_BAD_INPUT, "%s: /field is not a %lld x %lld x %lld double grid", path,
                     (long long)e->field_dims[0], (long long)e->field_dims[1], (long long)e->field_dims[2]);
    hsize_t time_dims[2] = { (hsize_t)threads, (hsize_t)e->n_iterations };
    if (rc == TS_OK && threads == e->n_threads && e->n_iterations > 0)
        *thread_times_restored = read_doubles(file, "thread_times", 2, time_dims, e->thread_times) == 0;
    H5Fclose(file);
    if (rc == TS_OK)
        *steps_done = steps;
    return rc;
}
