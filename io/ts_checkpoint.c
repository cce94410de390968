#include "ts_checkpoint.h"

#include <hdf5.h>

#include "ts_digest.h"
#include "h5_util.h"

/* The digest of what the dataset name holds, as its uint64 attribute "digest": Fletcher32
 * checks each chunk alone, so chunks swapped or a rewritten dataset pass it; a restart refuses
 * a dataset whose values do not give this digest. */
static int put_digest(struct h5w *w, hid_t file, const char *name, uint64_t digest)
{
    hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    if (set < 0)
        return h5w_fail(w, file, "writing the digest of", name);
    int st = h5w_attr_num(w, set, "digest", H5T_NATIVE_UINT64, &digest);
    H5Dclose(set);
    return st;
}

static uint64_t doubles_digest(const double *v, int64_t n)
{
    return ts_digest64(v, n > 0 ? (size_t)n * sizeof *v : 0);
}

static int write_checkpoint(struct h5w *w, hid_t file, const void *ctx)
{
    const struct ts_checkpoint *c = ctx;
    const int32_t version = TS_CHECKPOINT_VERSION;
    const struct h5w_num_attr nums[] = {
        { "touchstone_checkpoint", H5T_NATIVE_INT32, &version }, { "steps_done", H5T_NATIVE_INT64, &c->steps_done },
        { "n_warmup", H5T_NATIVE_INT64, &c->n_warmup },          { "n_iterations", H5T_NATIVE_INT64, &c->n_iterations },
        { "n_threads", H5T_NATIVE_INT32, &c->n_threads },
    };
    const char *text = c->config_text ? c->config_text : "";
    const hsize_t field_dims[3] = { (hsize_t)c->field_dims[0], (hsize_t)c->field_dims[1], (hsize_t)c->field_dims[2] };
    /* Not compressed: a checkpoint is written while the run waits. Checksummed: a restart
     * from damaged bytes must be refused, not continue from a different field. */
    const int has_field = c->field || c->field_later;
    const uint64_t field_digest =
        c->field_later
            ? c->field_digest
            : ts_digest_points(c->field, c->field ? (size_t)(field_dims[0] * field_dims[1] * field_dims[2]) : 0, 0);
    const int64_t n_times = (int64_t)c->n_threads * c->n_iterations;
    const uint64_t thread_times_digest = c->thread_times_later
                                             ? c->thread_times_digest
                                             : ts_digest_points(c->thread_times, n_times > 0 ? (size_t)n_times : 0, 0);
    hid_t config = -1, field_dcpl = has_field ? h5w_field_dcpl(3, field_dims, 0) : 0;
    if (field_dcpl < 0)
        return h5w_fail(w, file, "writing dataset", "field");
    int failed =
        h5w_attr_str(w, file, "kernel", c->kernel) || h5w_attr_nums(w, file, nums, H5W_COUNT(nums))
        || (config = h5w_group(w, file, "config")) < 0 || h5w_attr_list(w, config, c->config, c->n_config)
        || h5w_dataset(w, config, &(struct h5w_ds){ .name = "text", .type = w->vstr, .data = &text, .units = "" })
        || h5w_vector(w, file, "step_times", H5T_NATIVE_DOUBLE, c->steps_done, c->step_times, "s")
        || h5w_dataset(w, file,
                       &(struct h5w_ds){ .name = "thread_times",
                                         .type = H5T_NATIVE_DOUBLE,
                                         .rank = 2,
                                         .dims = { (hsize_t)c->n_threads, (hsize_t)c->n_iterations },
                                         .data = c->thread_times,
                                         .later = c->thread_times_later,
                                         .units = "s",
                                         .dims_label = "thread, iteration" })
        || (has_field
            && h5w_dataset(w, file,
                           &(struct h5w_ds){ .name = "field",
                                             .type = H5T_NATIVE_DOUBLE,
                                             .rank = 3,
                                             .dims = { field_dims[0], field_dims[1], field_dims[2] },
                                             .data = c->field,
                                             .later = c->field_later,
                                             .units = "1",
                                             .dims_label = "z, y, x",
                                             .dcpl = field_dcpl }))
        || put_digest(w, file, "step_times", doubles_digest(c->step_times, c->steps_done))
        || put_digest(w, file, "thread_times", thread_times_digest)
        || (has_field && put_digest(w, file, "field", field_digest));
    if (config >= 0)
        H5Gclose(config);
    if (field_dcpl > 0)
        H5Pclose(field_dcpl);
    return failed ? w->err->status : TS_OK;
}

int ts_checkpoint_write(const struct ts_checkpoint *c, const char *path, struct ts_error *err)
{
    return h5w_write_atomic(path, write_checkpoint, c, NULL, NULL, err);
}

int ts_checkpoint_write_placed(const struct ts_checkpoint *c, struct ts_place *place, const struct ts_h5_fill *fill,
                               struct ts_error *err)
{
    if ((c->field_later || c->thread_times_later) && !fill)
        return ts_fail(err, TS_INTERNAL_ERROR,
                       "cannot write checkpoint %s: the field or the times are left to ranks that do not write",
                       place->path);
    return h5w_write_atomic(place->path, write_checkpoint, c, place, fill, err);
}
