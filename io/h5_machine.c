/* The parts that say what ran and where: root, /config, /environment, /topology, /threads, /mpi. */
#include "h5_parts.h"

int h5w_write_root(struct h5w *w, hid_t file, const struct ts_record *rec)
{
    const int32_t schema_version = TS_SCHEMA_VERSION;
    const struct h5w_str_attr strs[] = {
        { "program_version", rec->program_version },
        { "command_line", rec->command_line },
        { "host", rec->host },
        { "start_time", rec->start_time },
    };
    const struct h5w_num_attr nums[] = {
        { "schema_version", H5T_NATIVE_INT32, &schema_version },
        { "complete", H5T_NATIVE_INT32, &rec->complete },
        { "steps_done", H5T_NATIVE_INT64, &rec->steps_done },
        { "steps_planned", H5T_NATIVE_INT64, &rec->steps_planned },
    };
    if (h5w_attr_strs(w, file, strs, H5W_COUNT(strs)) || h5w_attr_nums(w, file, nums, H5W_COUNT(nums)))
        return w->err->status;
    const struct ts_build_rec *b = rec->build;
    if (!b)
        return TS_OK;
    const struct h5w_str_attr build[] = {
        { "build_commit", b->commit }, { "build_compiler", b->compiler }, { "build_openmp", b->openmp },
        { "build_mpi", b->mpi },       { "build_hdf5", b->hdf5 },
    };
    return h5w_attr_strs(w, file, build, H5W_COUNT(build));
}

int h5w_write_job(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const struct ts_job_rec *j = rec->job;
    const struct h5w_str_attr strs[] = {
        { "job_id", j->job_id },
        { "array_job_id", j->array_job_id },
        { "array_task_id", j->array_task_id },
        { "node_list", j->node_list },
        { "cpus_on_node", j->cpus_on_node },
        { "cpus_per_task", j->cpus_per_task },
        { "partition", j->partition },
        { "restart_count", j->restart_count },
        { "cpu_mask", j->cpu_mask },
        { "restarted_from", j->restarted_from },
    };
    const struct h5w_num_attr nums[] = {
        { "under_slurm", H5T_NATIVE_INT32, &j->under_slurm },
        { "restarted", H5T_NATIVE_INT32, &j->restarted },
        { "steps_before_restart", H5T_NATIVE_INT64, &j->steps_before_restart },
    };
    return h5w_attr_strs(w, g, strs, H5W_COUNT(strs)) || h5w_attr_nums(w, g, nums, H5W_COUNT(nums));
}

int h5w_write_config(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const char *text = rec->config_text ? rec->config_text : "";
    const struct h5w_str_attr strs[] = {
        { "file", rec->config_path },
        { "overrides", rec->config_overrides },
    };
    return h5w_attr_list(w, g, rec->config, rec->n_config) || h5w_attr_strs(w, g, strs, H5W_COUNT(strs))
           || h5w_dataset(w, g, &(struct h5w_ds){ .name = "text", .type = w->vstr, .data = &text, .units = "" });
}

int h5w_write_environment(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    return h5w_attr_list(w, g, rec->environment, rec->n_environment);
}

int h5w_write_topology(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const struct ts_topology_rec *t = rec->topology;
    const struct h5w_num_attr nums[] = {
        { "n_packages", H5T_NATIVE_INT32, &t->n_packages },
        { "n_cores", H5T_NATIVE_INT32, &t->n_cores },
        { "n_pus", H5T_NATIVE_INT32, &t->n_pus },
        { "n_numa", H5T_NATIVE_INT32, &t->n_numa },
        { "cache_line_bytes", H5T_NATIVE_UINT32, &t->cache_line_bytes },
    };
    const struct h5w_str_attr strs[] = {
        { "cache_line_source", t->cache_line_source },
        { "hwloc_version", t->hwloc_version },
        { "thp_enabled", t->thp_enabled },
    };
    const struct h5w_member numa[] = {
        H5W_NUM(struct ts_numa_rec, os_index, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_numa_rec, memory_bytes, H5T_NATIVE_UINT64),
        H5W_STR(struct ts_numa_rec, cpus),
    };
    const struct h5w_member cores[] = {
        H5W_NUM(struct ts_core_rec, index, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_core_rec, os_index, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_core_rec, package, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_core_rec, numa, H5T_NATIVE_INT32),
        H5W_STR(struct ts_core_rec, cpus),
    };
    const struct h5w_member caches[] = {
        H5W_NUM(struct ts_cache_rec, level, H5T_NATIVE_INT32),
        H5W_STR(struct ts_cache_rec, type),
        H5W_NUM(struct ts_cache_rec, size_bytes, H5T_NATIVE_UINT64),
        H5W_NUM(struct ts_cache_rec, line_bytes, H5T_NATIVE_UINT32),
        H5W_NUM(struct ts_cache_rec, count, H5T_NATIVE_INT32),
    };
    const hsize_t n = (hsize_t)t->n_numa;
    return h5w_attr_nums(w, g, nums, H5W_COUNT(nums)) || h5w_attr_strs(w, g, strs, H5W_COUNT(strs))
           || h5w_table(w, g, "numa_nodes", sizeof(struct ts_numa_rec), numa, H5W_COUNT(numa), t->n_numa, t->numa,
                        "memory_bytes: bytes")
           || h5w_dataset(w, g,
                          &(struct h5w_ds){ .name = "distances",
                                            .type = H5T_NATIVE_INT32,
                                            .rank = 2,
                                            .dims = { n, n },
                                            .data = t->distances,
                                            .units = "relative (10 = local)",
                                            .dims_label = "node, node" })
           || h5w_table(w, g, "cores", sizeof(struct ts_core_rec), cores, H5W_COUNT(cores), t->n_cores_rec, t->cores,
                        "1")
           || h5w_table(w, g, "caches", sizeof(struct ts_cache_rec), caches, H5W_COUNT(caches), t->n_caches, t->caches,
                        "size_bytes: bytes, line_bytes: bytes");
}

hid_t h5w_thread_row_type(void)
{
    const struct h5w_member cols[] = {
        H5W_NUM(struct ts_thread_rec, thread, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_thread_rec, place, H5T_NATIVE_INT32),
        H5W_STR(struct ts_thread_rec, place_cpus),
        H5W_STR(struct ts_thread_rec, affinity),
        H5W_NUM(struct ts_thread_rec, cpu_start, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_thread_rec, cpu_end, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_thread_rec, core, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_thread_rec, node, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_thread_rec, counted_for_node, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_thread_rec, item_begin, H5T_NATIVE_INT64),
        H5W_NUM(struct ts_thread_rec, item_end, H5T_NATIVE_INT64),
        H5W_NUM(struct ts_thread_rec, rank, H5T_NATIVE_INT32),
        H5W_NUM(struct ts_thread_rec, local_rank, H5T_NATIVE_INT32),
        H5W_STR(struct ts_thread_rec, host),
    };
    return h5w_compound(sizeof(struct ts_thread_rec), cols, H5W_COUNT(cols));
}

int h5w_write_threads(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    return h5w_attr_list(w, g, rec->binding, rec->n_binding)
           || h5w_table_type(w, g, "table", h5w_thread_row_type(), rec->n_threads, rec->threads, rec->threads_later,
                             "1");
}

/* Three columns name_x, name_y, name_z for an array of 3 in a row: what h5py, h5dump and
 * h5_get read as plain fields (docs/hdf5-schema.md, "/mpi"). */
/* clang-format off */
#define H5W_XYZ(rec, field, h5type)                                                       \
    { #field "_x", offsetof(rec, field), (h5type), 0 },                                   \
    { #field "_y", offsetof(rec, field) + sizeof(((rec *)0)->field[0]), (h5type), 0 },    \
    { #field "_z", offsetof(rec, field) + 2 * sizeof(((rec *)0)->field[0]), (h5type), 0 }
/* clang-format on */

/* Every time column of /mpi/ranks is in seconds (docs/hdf5-schema.md). */
#define RANK_UNITS                                                                                                     \
    "time_min: s, time_median: s, time_max: s, halo: s, reduction: s, allocation: s, init: s, kernel: s, combine: s, " \
    "result: s, verify: s, placement: s, total: s"

int h5w_write_mpi(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const struct ts_mpi_rec *m = rec->mpi;
    const struct h5w_str_attr strs[] = {
        { "launcher", m->launcher },
        { "library", m->library },
        { "thread_level", m->thread_level },
        { "decomposition", m->decomposition },
    };
    const struct h5w_num_attr nums[] = {
        { "size", H5T_NATIVE_INT32, &m->size },
        { "n_hosts", H5T_NATIVE_INT32, &m->n_hosts },
        { "shared_kernel", H5T_NATIVE_INT32, &m->shared_kernel },
    };
    typedef struct ts_rank_rec R;
    const struct h5w_member cols[] = {
        H5W_NUM(R, rank, H5T_NATIVE_INT32),
        H5W_NUM(R, local_rank, H5T_NATIVE_INT32),
        H5W_STR(R, host),
        H5W_STR(R, boot_id),
        H5W_NUM(R, n_threads, H5T_NATIVE_INT32),
        H5W_NUM(R, first_thread, H5T_NATIVE_INT32),
        H5W_XYZ(R, coords, H5T_NATIVE_INT32),
        H5W_XYZ(R, own_begin, H5T_NATIVE_INT64),
        H5W_XYZ(R, own_end, H5T_NATIVE_INT64),
        H5W_NUM(R, partial, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, time_min, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, time_median, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, time_max, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, halo, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, reduction, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, allocation, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, init, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, kernel, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, combine, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, result, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, verify, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, placement, H5T_NATIVE_DOUBLE),
        H5W_NUM(R, total, H5T_NATIVE_DOUBLE),
    };
    const hsize_t dims[2] = { (hsize_t)m->size, (hsize_t)m->n_iterations };
    return h5w_attr_nums(w, g, nums, H5W_COUNT(nums)) || h5w_attr_strs(w, g, strs, H5W_COUNT(strs))
           || h5w_table(w, g, "ranks", sizeof(R), cols, H5W_COUNT(cols), m->size, m->ranks, RANK_UNITS)
           || h5w_dataset(w, g,
                          &(struct h5w_ds){ .name = "rank_iteration",
                                            .type = H5T_NATIVE_DOUBLE,
                                            .rank = 2,
                                            .dims = { dims[0], dims[1] },
                                            .data = m->rank_iteration,
                                            .later = m->rows_later,
                                            .units = "s",
                                            .dims_label = "rank, iteration" })
           || h5w_dataset(w, g,
                          &(struct h5w_ds){ .name = "rank_halo_iteration",
                                            .type = H5T_NATIVE_DOUBLE,
                                            .rank = 2,
                                            .dims = { dims[0], dims[1] },
                                            .data = m->rank_halo_iteration,
                                            .later = m->rows_later,
                                            .units = "s",
                                            .dims_label = "rank, iteration" });
}
