#include "ts_checkpoint.h"

#include <hdf5.h>

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
    const hsize_t field_dims[3] = { (hsize_t)c->field_dims[0], (hsize_t)c->field_dims[1], (hsize_t)c->field_dims[2] };
    /* Not compressed: a checkpoint is written while the run waits. Checksummed: a restart
     * from damaged bytes must be refused, not continue from a different field. */
    hid_t config = -1, field_dcpl = c->field ? h5w_field_dcpl(3, field_dims, 0) : 0;
    if (field_dcpl < 0)
        return h5w_fail(w, file, "writing dataset", "field");
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
                                  .dims = { field_dims[0], field_dims[1], field_dims[2] },
                                  .data = c->field, .units = "1", .dims_label = "z, y, x",
                                  .dcpl = field_dcpl }));
    if (config >= 0)
        H5Gclose(config);
    if (field_dcpl > 0)
        H5Pclose(field_dcpl);
    return failed ? w->err->status : TS_OK;
}

int ts_checkpoint_write(const struct ts_checkpoint *c, const char *path, struct ts_error *err)
{
    return h5w_write_atomic(path, write_checkpoint, c, NULL, err);
}

int ts_checkpoint_write_placed(const struct ts_checkpoint *c, struct ts_place *place, struct ts_error *err)
{
    return h5w_write_atomic(place->path, write_checkpoint, c, place, err);
}

