/* The parts that say where pages and threads really were: /placement (and /placement/end)
 * and /counters. */
#include <math.h>
#include <stdlib.h>

#include "h5_parts.h"

/* A per-thread vector of p, its values not written when later (the ranks write them). */
static int rows(struct h5w *w, hid_t g, const char *name, hid_t type, const struct ts_placement_rec *p,
                const void *data, int later, const char *units)
{
    return h5w_dataset(w, g,
                       &(struct h5w_ds){ .name = name,
                                         .type = type,
                                         .rank = 1,
                                         .dims = { (hsize_t)p->n_threads },
                                         .data = data,
                                         .later = later,
                                         .units = units });
}

/* thread_rank: each thread's rank; zeros when the record has none (not launched). */
static int write_thread_rank(struct h5w *w, hid_t g, const struct ts_placement_rec *p)
{
    int32_t *zeros = NULL;
    const int32_t *ranks = p->thread_rank;
    if (p->rows_later)
        return rows(w, g, "thread_rank", H5T_NATIVE_INT32, p, NULL, 1, "1");
    if (!ranks && p->n_threads > 0 && !(ranks = zeros = calloc((size_t)p->n_threads, sizeof *zeros)))
        return ts_fail(w->err, TS_RESOURCE_ERROR, "cannot write output %s: out of memory", w->final_path);
    int st = h5w_vector(w, g, "thread_rank", H5T_NATIVE_INT32, p->n_threads, ranks, "1");
    free(zeros);
    return st;
}

static int write_placement(struct h5w *w, hid_t g, const struct ts_placement_rec *p)
{
    const struct h5w_str_attr strs[] = {
        { "measured_after", p->measured_after },
        { "policy", p->policy },
        { "madvise", p->madvise },
    };
    const struct h5w_num_attr nums[] = {
        { "sample_stride", H5T_NATIVE_INT64, &p->sample_stride },
        { "page_size", H5T_NATIVE_INT64, &p->page_size },
        { "granule_bytes", H5T_NATIVE_INT64, &p->granule_bytes },
        { "requested_page_size", H5T_NATIVE_INT64, &p->requested_page_size },
    };
    const struct h5w_value scalars[] = {
        { "local_fraction", p->local_fraction, "1", 0 },
        { "time", p->time, "s", 0 },
    };
    const hsize_t threads = (hsize_t)p->n_threads, nodes = (hsize_t)p->n_nodes, arrays = (hsize_t)p->n_arrays;
    return h5w_attr_strs(w, g, strs, H5W_COUNT(strs)) || h5w_attr_nums(w, g, nums, H5W_COUNT(nums))
           || h5w_scalars(w, g, scalars, H5W_COUNT(scalars))
           || h5w_vector(w, g, "node_ids", H5T_NATIVE_INT32, p->n_nodes, p->node_ids, "1")
           || rows(w, g, "thread_node", H5T_NATIVE_INT32, p, p->thread_node, p->rows_later, "1")
           || write_thread_rank(w, g, p)
           || rows(w, g, "thread_pages", H5T_NATIVE_INT64, p, p->thread_pages, p->rows_later, "pages")
           || rows(w, g, "thread_local_pages", H5T_NATIVE_INT64, p, p->thread_local_pages, p->rows_later, "pages")
           || rows(w, g, "thread_local_fraction", H5T_NATIVE_DOUBLE, p, p->thread_local_fraction, p->rows_later, "1")
           || h5w_dataset(w, g,
                          &(struct h5w_ds){ .name = "thread_node_pages",
                                            .type = H5T_NATIVE_INT64,
                                            .rank = 2,
                                            .dims = { threads, nodes },
                                            .data = p->thread_node_pages,
                                            .later = p->rows_later,
                                            .units = "pages",
                                            .dims_label = "thread, node" })
           || h5w_dataset(w, g,
                          &(struct h5w_ds){ .name = "array_node_pages",
                                            .type = H5T_NATIVE_INT64,
                                            .rank = 2,
                                            .dims = { arrays, nodes },
                                            .data = p->array_node_pages,
                                            .units = "pages",
                                            .dims_label = "array, node" })
           || h5w_vector(w, g, "array_absent_pages", H5T_NATIVE_INT64, p->n_arrays, p->array_absent_pages, "pages")
           || h5w_vector(w, g, "array_error_pages", H5T_NATIVE_INT64, p->n_arrays, p->array_error_pages, "pages");
}

int h5w_write_placement(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    if (write_placement(w, g, rec->placement))
        return w->err->status;
    if (!rec->placement_end)
        return TS_OK;
    hid_t end = h5w_group(w, g, "end");
    if (end < 0)
        return w->err->status;
    const struct h5w_num_attr moved = { "pages_moved", H5T_NATIVE_INT64, &rec->placement_end->pages_moved };
    int failed = write_placement(w, end, rec->placement_end) || h5w_attr_nums(w, end, &moved, 1);
    H5Gclose(end);
    return failed ? w->err->status : TS_OK;
}

/* /counters/machine: what else the machine did during the iterations; /counters/init_machine
 * the same during the first touch (docs/hdf5-schema.md, "/counters"). */
static int write_machine(struct h5w *w, hid_t counters, const char *name, const struct ts_machine_rec *m)
{
    const struct h5w_value values[] = {
        { "elapsed", m->elapsed, "s", 0 },
        { "own_cpu", m->own_cpu, "s", 0 },
        { "busy", m->busy, "s", 0 },
        { "others_cpu", m->others_cpu, "s", 0 },
        { "steal", m->steal, "s", 0 },
        { "clock_tick", m->clock_tick, "s", 0 },
        { "load_start", m->load_start, "1", 0 },
        { "load_end", m->load_end, "1", 0 },
    };
    const struct h5w_num_attr nums[] = {
        { "n_cpus", H5T_NATIVE_INT32, &m->n_cpus },
        { "online_cpus", H5T_NATIVE_INT32, &m->online_cpus },
    };
    hid_t g = h5w_group(w, counters, name);
    if (g < 0)
        return w->err->status;
    int failed = h5w_attr_str(w, g, "cpus", m->cpus) || h5w_attr_nums(w, g, nums, H5W_COUNT(nums))
                 || h5w_scalars(w, g, values, H5W_COUNT(values));
    H5Gclose(g);
    return failed ? w->err->status : TS_OK;
}

/* /counters/init_memory: the kernel's memory management during the first touch; the counts
 * are attributes (numbers without a unit), the seconds datasets. memory_stall is left out
 * when the kernel has no PSI (-1). */
static int write_init_memory(struct h5w *w, hid_t counters, const struct ts_init_memory_rec *m)
{
    const struct h5w_num_attr counts[] = {
        { "thp_fault_alloc", H5T_NATIVE_INT64, &m->thp_fault_alloc },
        { "thp_fault_fallback", H5T_NATIVE_INT64, &m->thp_fault_fallback },
        { "thp_fault_fallback_charge", H5T_NATIVE_INT64, &m->thp_fault_fallback_charge },
        { "compact_stall", H5T_NATIVE_INT64, &m->compact_stall },
        { "compact_fail", H5T_NATIVE_INT64, &m->compact_fail },
        { "compact_success", H5T_NATIVE_INT64, &m->compact_success },
        { "allocstall", H5T_NATIVE_INT64, &m->allocstall },
        { "pgfault", H5T_NATIVE_INT64, &m->pgfault },
        { "pgmajfault", H5T_NATIVE_INT64, &m->pgmajfault },
    };
    const struct h5w_value seconds[] = {
        { "elapsed", m->elapsed, "s", 0 },
        { "memory_stall", m->memory_stall >= 0 ? m->memory_stall : NAN, "s", 1 },
    };
    hid_t g = h5w_group(w, counters, "init_memory");
    if (g < 0)
        return w->err->status;
    int failed = h5w_attr_str(w, g, "source", "/proc/vmstat, /proc/pressure/memory: the whole machine")
                 || h5w_attr_nums(w, g, counts, H5W_COUNT(counts)) || h5w_scalars(w, g, seconds, H5W_COUNT(seconds));
    H5Gclose(g);
    return failed ? w->err->status : TS_OK;
}

hid_t h5w_counter_row_type(void)
{
    const struct h5w_member cols[] = {
        H5W_NUM(struct ts_counter_row, minor_faults, H5T_NATIVE_INT64),
        H5W_NUM(struct ts_counter_row, major_faults, H5T_NATIVE_INT64),
        H5W_NUM(struct ts_counter_row, voluntary_switches, H5T_NATIVE_INT64),
        H5W_NUM(struct ts_counter_row, involuntary_switches, H5T_NATIVE_INT64),
        H5W_NUM(struct ts_counter_row, migrations, H5T_NATIVE_INT64),
        H5W_NUM(struct ts_counter_row, user_time, H5T_NATIVE_DOUBLE),
        H5W_NUM(struct ts_counter_row, system_time, H5T_NATIVE_DOUBLE),
        H5W_NUM(struct ts_counter_row, wait_time, H5T_NATIVE_DOUBLE),
    };
    return h5w_compound(sizeof(struct ts_counter_row), cols, H5W_COUNT(cols));
}

int h5w_write_counters(struct h5w *w, hid_t g, const struct ts_record *rec)
{
    const struct ts_counters_rec *c = rec->counters;
    static const char *const units = "user_time: s, system_time: s, wait_time: s";
    return h5w_attr_str(w, g, "migrations_source", c->migrations_source)
           || h5w_table_type(w, g, "init", h5w_counter_row_type(), c->n_threads, c->init, c->rows_later, units)
           || h5w_table_type(w, g, "kernel", h5w_counter_row_type(), c->n_threads, c->kernel, c->rows_later, units)
           || (c->machine && write_machine(w, g, "machine", c->machine))
           || (c->init_machine && write_machine(w, g, "init_machine", c->init_machine))
           || (c->init_memory && write_init_memory(w, g, c->init_memory));
}
