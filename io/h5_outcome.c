/* The parts that say what the run measured: /timings, /results, /verification, /field,
 * /warnings, /summary. */
#include <time.h>

#include "h5_chunk.h"
#include "h5_parts.h"

int h5w_write_timings(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const struct ts_timings_rec *t = rec->timings;
    const struct h5w_value phases[] = {
        { "allocation", t->allocation, "s", 0 }, { "init", t->init, "s", 0 },
        { "kernel", t->kernel, "s", 0 },         { "combine", t->combine, "s", 0 },
        { "result", t->result, "s", 0 },         { "verify", t->verify, "s", 0 },
        { "placement", t->placement, "s", 0 },   { "write", t->write, "s", 0 },
        { "total", t->total, "s", 0 },           { "timer_resolution", t->timer_resolution, "s", 0 },
        { "startup", t->startup, "s", 0 },       { "reexec", t->reexec, "s", 0 },
        { "setup", t->setup, "s", 0 },           { "plan", t->plan, "s", 0 },
        { "finish", t->finish, "s", 0 },         { "wall", t->wall, "s", 0 },
        { "checkpoint", t->checkpoint, "s", 0 },
    };
    const struct h5w_num_attr counts[] = {
        { "n_iterations", H5T_NATIVE_INT64, &t->n_iterations },
        { "n_warmup", H5T_NATIVE_INT64, &t->n_warmup },
    };
    const hsize_t threads = (hsize_t)rec->results->n_threads;
    return h5w_scalars(w, g, phases, H5W_COUNT(phases)) || h5w_attr_nums(w, g, counts, H5W_COUNT(counts))
           || h5w_vector(w, g, "iteration", H5T_NATIVE_DOUBLE, t->n_iterations, t->iteration, "s")
           || h5w_vector(w, g, "warmup", H5T_NATIVE_DOUBLE, t->n_warmup, t->warmup, "s")
           || h5w_dataset(w, g,
                          &(struct h5w_ds){ .name = "thread_iteration",
                                            .type = H5T_NATIVE_DOUBLE,
                                            .rank = 2,
                                            .dims = { threads, (hsize_t)t->n_iterations },
                                            .data = t->thread_iteration,
                                            .later = t->thread_iteration_later,
                                            .units = "s",
                                            .dims_label = "thread, iteration" });
}

int h5w_write_timings_write(struct h5w *w, hid_t file, const struct ts_record *rec)
{
    if (!(rec->timings->write_from > 0))
        return TS_OK;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double took = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec - rec->timings->write_from;
    hid_t d = H5Dopen2(file, "/timings/write", H5P_DEFAULT);
    int failed = d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &took) < 0;
    if (d >= 0)
        H5Dclose(d);
    return failed ? h5w_fail(w, -1, "writing", "/timings/write") : TS_OK;
}

/* A vector of /results, its values not written when later (the ranks write their rows). */
static int partials(struct h5w *w, hid_t g, const char *name, hid_t type, int64_t n, const void *data, int later)
{
    return h5w_dataset(w, g,
                       &(struct h5w_ds){ .name = name,
                                         .type = type,
                                         .rank = 1,
                                         .dims = { (hsize_t)n },
                                         .data = data,
                                         .later = later,
                                         .units = "1" });
}

int h5w_write_results(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const struct ts_results_rec *r = rec->results;
    const struct h5w_str_attr strs[] = {
        { "kernel", r->kernel },           { "unit", r->unit },
        { "byte_model", r->byte_model },   { "variant", r->variant ? r->variant : "" },
        { "result_name", r->result_name }, { "init_mode", r->init_mode },
    };
    const struct h5w_num_attr nums[] = {
        { "n", H5T_NATIVE_INT64, &r->n },
        { "nx", H5T_NATIVE_INT64, &r->nx },
        { "ny", H5T_NATIVE_INT64, &r->ny },
        { "nz", H5T_NATIVE_INT64, &r->nz },
        { "n_threads", H5T_NATIVE_INT32, &r->n_threads },
        { "units_per_iteration", H5T_NATIVE_INT64, &r->units_per_iteration },
        { "block_y", H5T_NATIVE_INT64, &r->block_y },
        { "working_set_bytes", H5T_NATIVE_INT64, &r->working_set_bytes },
        { "llc_bytes", H5T_NATIVE_INT64, &r->llc_bytes },
        { "bytes_per_unit", H5T_NATIVE_DOUBLE, &r->bytes_per_unit },
        { "flops_per_unit", H5T_NATIVE_DOUBLE, &r->flops_per_unit },
    };
    const struct h5w_value metrics[] = {
        { "global", r->global, "1", 0 },
        { "time_min", r->time_min, "s", 0 },
        { "time_median", r->time_median, "s", 0 },
        { "time_max", r->time_max, "s", 0 },
        { "gbs_best", r->gbs_best, "GB/s", 0 },
        { "gbs_median", r->gbs_median, "GB/s", 0 },
        { "gflops_best", r->gflops_best, "GFLOP/s", 0 },
        { "gflops_median", r->gflops_median, "GFLOP/s", 0 },
        { "glups_best", r->glups_best, "GLUP/s", 1 },
        { "glups_median", r->glups_median, "GLUP/s", 1 },
    };
    return h5w_attr_strs(w, g, strs, H5W_COUNT(strs)) || h5w_attr_nums(w, g, nums, H5W_COUNT(nums))
           || h5w_scalars(w, g, metrics, H5W_COUNT(metrics))
           || partials(w, g, "thread_partials", H5T_NATIVE_DOUBLE, r->n_threads, r->thread_partials, r->rows_later)
           || partials(w, g, "node_partials", H5T_NATIVE_DOUBLE, r->n_nodes, r->node_partials, r->rows_later)
           || partials(w, g, "node_ids", H5T_NATIVE_INT32, r->n_nodes, r->node_ids, r->rows_later);
}

int h5w_write_verification(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const struct ts_verification_rec *v = rec->verification;
    const struct h5w_value values[] = {
        { "expected", v->expected, "1", 0 },
        { "observed", v->observed, "1", 0 },
        { "error", v->error, "1", 0 },
        { "tolerance", v->tolerance, "1", 0 },
    };
    const struct h5w_num_attr nums[] = {
        { "passed", H5T_NATIVE_INT32, &v->passed },
        { "checked", H5T_NATIVE_INT64, &v->checked },
        { "failures", H5T_NATIVE_INT64, &v->failures },
    };
    return h5w_scalars(w, g, values, H5W_COUNT(values)) || h5w_attr_nums(w, g, nums, H5W_COUNT(nums))
           || h5w_attr_str(w, g, "method", v->method);
}

/* Only when the library can encode: a build without zlib writes uncompressed, still valid. */
static int deflate_can_encode(void)
{
    unsigned flags = 0;
    return H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zget_filter_info(H5Z_FILTER_DEFLATE, &flags) >= 0
           && (flags & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
}

int h5w_write_field(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const int64_t *d = rec->field_dims;
    const int rank = d[0] == 1 ? 2 : 3;
    struct h5w_ds ds = { .name = "u",
                         .type = H5T_NATIVE_DOUBLE,
                         .rank = rank,
                         .data = rec->field,
                         .later = rec->field_later,
                         .units = "1",
                         .dims_label = rank == 2 ? "y, x" : "z, y, x" };
    for (int i = 0; i < rank; i++)
        ds.dims[i] = (hsize_t)d[3 - rank + i];
    int st;
    if ((ds.dcpl = h5w_field_dcpl(rank, ds.dims, 1)) < 0)
        st = h5w_fail(w, g, "writing dataset", ds.name);
    else
        st = h5w_dataset(w, g, &ds);
    if (ds.dcpl >= 0)
        H5Pclose(ds.dcpl);
    return st;
}

hid_t h5w_field_dcpl(int rank, const hsize_t *dims, int compress)
{
    hsize_t chunk[3];
    ts_h5_field_chunk(rank, dims, chunk);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* The checksum filter goes last: it covers the bytes as stored, after compression. */
    if (dcpl >= 0
        && (H5Pset_chunk(dcpl, rank, chunk) < 0 || (compress && deflate_can_encode() && H5Pset_deflate(dcpl, 4) < 0)
            || H5Pset_fletcher32(dcpl) < 0)) {
        H5Pclose(dcpl);
        dcpl = -1;
    }
    return dcpl;
}

int h5w_write_warnings(struct h5w *w, hid_t file, const struct ts_record *rec)
{
    const char *name = "warnings";
    if (h5w_vector(w, file, name, w->vstr, rec->n_warnings, rec->warnings, ""))
        return w->err->status;
    /* The count repeats the shape for readers that look at attributes only. */
    hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
    if (set < 0)
        return h5w_fail(w, file, "writing dataset", name);
    int st = h5w_attr_num(w, set, "count", H5T_NATIVE_INT32, &rec->n_warnings);
    H5Dclose(set);
    return st;
}

int h5w_write_summary(struct h5w *w, hid_t file, const struct ts_record *rec)
{
    return h5w_vector(w, file, "summary", w->vstr, rec->n_summary, rec->summary, "");
}
