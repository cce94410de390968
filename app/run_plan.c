#include "run_plan.h"

#include <ctype.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ts_counters.h"
#include "ts_h5_write.h"
#include "ts_memory.h"
#include "ts_record.h"
#include "ts_run_read.h"
#include "ts_units.h"
#include "ts_xsum.h"

static size_t sum_bytes(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static size_t times_bytes(size_t a, size_t b)
{
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

void ts_checkpoint_path_for(const char *output, char *buf, size_t len)
{
    size_t n = strlen(output);
    if (n > 3 && strcmp(output + n - 3, ".h5") == 0)
        snprintf(buf, len, "%.*s.ckpt.h5", (int)(n - 3), output);
    else
        snprintf(buf, len, "%s.ckpt.h5", output);
}

/* Per thread: its record, two counter rows, its padded partial sum and its node's, a few times. */
#define PER_THREAD_BYTES                                                                                               \
    (sizeof(struct ts_thread_rec) + 2 * sizeof(struct ts_counter_row) + 2 * (sizeof(struct ts_xsum) + 64)              \
     + 8 * sizeof(double))

/* What the iterations and the threads add (app/run_exec.c, app/run_record.c, io/ts_h5_write.c):
 * the times of every step and of every thread in every timed iteration; per thread its record,
 * two counter rows, its padded partial sum and its node's; at the end a copy of the per-thread
 * times for the record, and the file assembled in memory (the times, the thread tables and the
 * field when it is written) and copied out whole, and HDF5's working memory to start it
 * (TS_H5_WORKING_MEMORY, which the writer makes sure of first). A checkpoint holds the same times and the
 * field, so it is never larger than that file with the field. */
static void count_the_rest(struct ts_run_plan *rp, const struct ts_config *cfg)
{
    const int is_stencil = rp->kernel->id == TS_KERNEL_STENCIL2D || rp->kernel->id == TS_KERNEL_STENCIL3D;
    rp->n_threads = cfg->threads > 0 ? (int)cfg->threads : omp_get_max_threads();
    rp->warmup = cfg->warmup;
    rp->iterations = cfg->iterations;
    rp->with_field = is_stencil && (cfg->write_field || cfg->checkpoint_every > 0);

    const size_t d = sizeof(double), threads = (size_t)rp->n_threads;
    const size_t thread_times = times_bytes(times_bytes(threads, (size_t)rp->iterations), d);
    const size_t step_times = times_bytes((size_t)(rp->warmup + rp->iterations), d);
    rp->timing_bytes = sum_bytes(step_times, thread_times);
    rp->thread_bytes = times_bytes(threads, PER_THREAD_BYTES);
    size_t file = sum_bytes(sum_bytes(rp->timing_bytes, rp->thread_bytes), rp->with_field ? rp->array_bytes : 0);
    rp->file_bytes = sum_bytes(sum_bytes(thread_times, times_bytes(file, 2)), TS_H5_WORKING_MEMORY);
    rp->total_bytes =
        sum_bytes(sum_bytes(rp->arrays_bytes, rp->timing_bytes), sum_bytes(rp->thread_bytes, rp->file_bytes));
}

void ts_run_plan_halos(struct ts_run_plan *rp, int faces, int64_t halo_points, int depth)
{
    rp->halo_bytes = times_bytes(times_bytes((size_t)halo_points, 2), sizeof(double)); /* sent and received */
    rp->halo_faces = faces;
    rp->halo_depth = depth;
    rp->total_bytes = sum_bytes(rp->total_bytes, rp->halo_bytes);
}

void ts_run_plan_world(struct ts_run_plan *rp, int ranks, int64_t world_threads)
{
    const size_t d = sizeof(double);
    /* Per rank its row of /mpi/ranks and its start, gathered. No row of another rank's thread
     * and no time per iteration of another rank: each rank writes its own rows of those tables
     * into the file (app/rank_files.h), and rank 0 gets what it shows of them by reductions
     * into buffers of a fixed size (the first TS_RECORD_HEAD rows, sums), counted with its own. */
    const size_t per_rank = sizeof(struct ts_rank_rec) + d;
    const size_t head = TS_RECORD_HEAD * (sizeof(struct ts_thread_rec) + 2 * sizeof(struct ts_counter_row) + 2 * d);
    const size_t tables = sum_bytes(head, times_bytes((size_t)ranks, per_rank));
    /* Gathered and kept for the record, twice in the file's image. */
    rp->world_bytes = times_bytes(tables, 3);
    rp->world_threads = world_threads;
    rp->world_ranks = ranks;
    rp->total_bytes = sum_bytes(rp->total_bytes, rp->world_bytes);
}

void ts_run_plan_spread(struct ts_run_plan *rp)
{
    const size_t own = times_bytes(times_bytes((size_t)(rp->warmup + rp->iterations), 2), sizeof(double));
    rp->timing_bytes = sum_bytes(rp->timing_bytes, own);
    rp->total_bytes = sum_bytes(rp->total_bytes, own);
}

int ts_run_plan_make(const struct ts_config *cfg, struct ts_run_plan *rp, struct ts_error *err)
{
    memset(rp, 0, sizeof *rp);
    rp->kernel = ts_kernel_find(cfg->kernel);
    if (!rp->kernel)
        return ts_fail(err, TS_BAD_INPUT, "unknown kernel '%s'", cfg->kernel);

    struct ts_problem *pb = &rp->problem;
    pb->kernel = rp->kernel->id;
    pb->n = rp->kernel->id == TS_KERNEL_TRIAD ? cfg->triad_n : cfg->sum_n;
    pb->nx = cfg->nx;
    pb->ny = cfg->ny;
    pb->nz = rp->kernel->id == TS_KERNEL_STENCIL3D ? cfg->nz : 1;
    pb->alpha = cfg->alpha;
    pb->scalar = cfg->triad_scalar;
    pb->seed = (uint64_t)cfg->seed;
    pb->sum_mode = strcmp(cfg->sum_mode, "fast") == 0 ? TS_SUM_FAST : TS_SUM_REPRODUCIBLE;
    int stencil = pb->kernel == TS_KERNEL_STENCIL2D || pb->kernel == TS_KERNEL_STENCIL3D;
    pb->nontemporal = pb->kernel == TS_KERNEL_TRIAD ? cfg->triad_nontemporal : stencil && cfg->stencil_nontemporal;
    pb->time_block = stencil ? cfg->time_block : 1;
    pb->block_y = cfg->block_y;

    char why[256];
    if (rp->kernel->plan(pb, &rp->plan, why, sizeof why) != 0)
        return ts_fail(err, TS_BAD_INPUT, "%s", why);
    if ((uint64_t)rp->plan.array_elems > SIZE_MAX / sizeof(double) / (uint64_t)rp->plan.n_arrays)
        return ts_fail(err, TS_BAD_INPUT, "%s: %d arrays of %lld doubles do not fit in the address space",
                       rp->kernel->name, rp->plan.n_arrays, (long long)rp->plan.array_elems);
    rp->array_bytes = (size_t)rp->plan.array_elems * sizeof(double);
    rp->arrays_bytes = rp->array_bytes * (size_t)rp->plan.n_arrays;
    count_the_rest(rp, cfg);
    /* A file no command could read back is not worth running for (io/ts_run_read.h). */
    if ((int64_t)rp->n_threads * rp->iterations > TS_READ_MAX_VALUES)
        return ts_fail(err, TS_BAD_INPUT,
                       "%d threads x %lld iterations: its file would hold more per-thread times "
                       "than the %lld touchstone reads back; use fewer iterations",
                       rp->n_threads, (long long)rp->iterations, (long long)TS_READ_MAX_VALUES);
    return TS_OK;
}

int ts_run_plan_part(struct ts_run_plan *rp, const struct ts_config *cfg, const int64_t local[3],
                     const struct ts_problem_part *part, struct ts_error *err)
{
    struct ts_problem *pb = &rp->problem;
    if (pb->kernel == TS_KERNEL_SUM || pb->kernel == TS_KERNEL_TRIAD) {
        pb->n = local[0];
    } else {
        pb->nx = local[0];
        pb->ny = local[1];
        pb->nz = local[2];
    }
    pb->part = *part;
    char why[256];
    if (rp->kernel->plan(pb, &rp->plan, why, sizeof why) != 0)
        return ts_fail(err, TS_BAD_INPUT, "this rank's part: %s", why);
    rp->array_bytes = (size_t)rp->plan.array_elems * sizeof(double);
    rp->arrays_bytes = rp->array_bytes * (size_t)rp->plan.n_arrays;
    count_the_rest(rp, cfg);
    return TS_OK;
}

/* "2 arrays of 128 MiB" */
static void arrays_text(const struct ts_run_plan *rp, char *buf, size_t len)
{
    char each[32];
    ts_bytes_text(rp->array_bytes, each, sizeof each);
    snprintf(buf, len, "%d array%s of %s", rp->plan.n_arrays, rp->plan.n_arrays == 1 ? "" : "s", each);
}

/* What libgomp gives each thread it starts: OMP_STACKSIZE or GOMP_STACKSIZE (app/startup.c
 * refused what it cannot parse; a number alone is KiB), else the threads' default
 * (RLIMIT_STACK as the process began, or glibc's own), plus the guard page below it. */
static uint64_t thread_stack_bytes(void)
{
    const char *names[] = { "GOMP_STACKSIZE", "OMP_STACKSIZE" };
    uint64_t page = ts_memory_page_size();
    for (int i = 0; i < 2; i++) {
        const char *text = getenv(names[i]);
        char *end;
        if (!text)
            continue;
        unsigned long long n = strtoull(text, &end, 10);
        while (isspace((unsigned char)*end))
            end++;
        int shift = 10;
        switch (tolower((unsigned char)*end)) {
        case 'b': shift = 0; break;
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        default: break;
        }
        if (end != text && n <= (UINT64_MAX >> 30))
            return ((uint64_t)n << shift) + page;
    }
    pthread_attr_t attr;
    size_t size = 0;
    if (pthread_getattr_default_np(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &size);
        pthread_attr_destroy(&attr);
    }
    return (uint64_t)size + page;
}

/* What the run maps after the check besides its plan's bytes, measured under ulimit -v
 * (docs/reliability.md, "Limits"): hwloc's topology, HDF5's and the OpenMP runtime's own
 * start-up; and for each thread the runtime starts, besides its stack, its malloc heap and the
 * runtime's state of it. */
#define START_UP_MAPPINGS ((uint64_t)48 << 20)
#define THREAD_HEAP_MAPPINGS ((uint64_t)16 << 20)

/* What this process maps beyond the plan's bytes, for a limit on its own mappings: what it
 * maps already (the libraries, MPI's, the heap: measured now, before the arrays), what start-up
 * adds, and a stack and a heap for each thread the OpenMP runtime will start; nothing for a
 * limit on memory in use. */
struct process_part {
    uint64_t mapped_now, stack_each, bytes;
    int stacks;
};

static struct process_part process_part(const struct ts_run_plan *rp, const struct ts_memory_limit *l)
{
    struct process_part p = { 0 };
    if (l->counts == TS_LIMIT_COUNTS_MEMORY)
        return p;
    uint64_t as, data;
    ts_memory_process_now(&as, &data);
    /* Rounded up to 16 MiB: check and run measure at slightly different moments (and under a
     * preloaded library), and must agree to the byte on the same plan. */
    const uint64_t round = (uint64_t)16 << 20;
    p.mapped_now =
        ((l->counts == TS_LIMIT_COUNTS_ADDRESS_SPACE ? as : data) + START_UP_MAPPINGS + round - 1) / round * round;
    p.stacks = rp->n_threads > 1 ? rp->n_threads - 1 : 0;
    p.stack_each = thread_stack_bytes() + THREAD_HEAP_MAPPINGS;
    p.bytes = p.mapped_now + (uint64_t)p.stacks * p.stack_each;
    return p;
}

uint64_t ts_run_plan_need(const struct ts_run_plan *rp, const struct ts_memory_limit *limit)
{
    struct process_part p = process_part(rp, limit);
    uint64_t need = (uint64_t)rp->total_bytes + p.bytes;
    return need < p.bytes ? UINT64_MAX : need;
}

int ts_run_plan_check_memory(const struct ts_run_plan *rp, struct ts_error *err)
{
    int status = ts_memory_limits_check(err);
    if (status != TS_OK)
        return status;
    struct ts_memory_limit limits[8];
    int n = ts_memory_limits(limits, 8);
    for (int i = 0; i < n; i++) {
        uint64_t need_bytes = ts_run_plan_need(rp, &limits[i]);
        if (need_bytes <= limits[i].bytes)
            continue;
        char need[32], arrays[64], rest[32], have[32], process[200] = "";
        ts_bytes_text(need_bytes, need, sizeof need);
        arrays_text(rp, arrays, sizeof arrays);
        const size_t rest_bytes = rp->total_bytes - rp->arrays_bytes;
        ts_bytes_text(rest_bytes, rest, sizeof rest);
        ts_bytes_text(limits[i].bytes, have, sizeof have);
        struct process_part p = process_part(rp, &limits[i]);
        if (p.bytes > 0) {
            char now[32], stack[32];
            ts_bytes_text(p.mapped_now, now, sizeof now);
            ts_bytes_text(p.stack_each, stack, sizeof stack);
            snprintf(process, sizeof process,
                     ", %s this process maps (libraries, heap, start-up) and %d thread%s stack and heap of %s", now,
                     p.stacks, p.stacks == 1 ? "" : "s", stack);
        }
        const int arrays_most = rp->arrays_bytes >= rest_bytes && rp->arrays_bytes >= p.bytes;
        char world[160] = "";
        if (rp->world_bytes > 0)
            snprintf(world, sizeof world, ", and on rank 0 the rows of %d ranks", rp->world_ranks);
        return ts_fail(err, TS_RESOURCE_ERROR,
                       "%s needs %s (%s, and %s for the times of %lld iterations x %d threads, the threads' records "
                       "and the results file%s%s; %llu bytes) but %s allows only %s (%llu bytes); %s",
                       rp->kernel->name, need, arrays, rest, (long long)rp->iterations, rp->n_threads, world, process,
                       (unsigned long long)need_bytes, limits[i].source, have, (unsigned long long)limits[i].bytes,
                       arrays_most            ? "reduce the problem size"
                       : p.bytes > rest_bytes ? "raise the limit, or use fewer threads or smaller OMP_STACKSIZE"
                                              : "reduce run.iterations or the threads");
    }
    return TS_OK;
}

int ts_run_plan_check_memory_host(const struct ts_run_plan *rp, size_t host_bytes, int host_ranks, struct ts_error *err)
{
    if (host_ranks <= 1)
        return ts_run_plan_check_memory(rp, err);
    int status = ts_memory_limits_check(err);
    if (status != TS_OK)
        return status;
    struct ts_memory_limit limits[8];
    int n = ts_memory_limits(limits, 8);
    for (int i = 0; i < n; i++) {
        if (limits[i].per_process || (uint64_t)host_bytes <= limits[i].bytes)
            continue;
        char all[32], mine[32], have[32];
        ts_bytes_text(host_bytes, all, sizeof all);
        ts_bytes_text(rp->total_bytes, mine, sizeof mine);
        ts_bytes_text(limits[i].bytes, have, sizeof have);
        return ts_fail(err, TS_RESOURCE_ERROR,
                       "%s: the %d ranks on this machine need %s together (this one %s; %zu bytes in all) but %s "
                       "allows only %s (%llu bytes); use fewer ranks per node, more nodes, or a smaller problem",
                       rp->kernel->name, host_ranks, all, mine, host_bytes, limits[i].source, have,
                       (unsigned long long)limits[i].bytes);
    }
    /* A process's own limits (and any the loop let pass) against this rank's part. */
    return ts_run_plan_check_memory(rp, err);
}

void ts_run_plan_print_memory(const struct ts_run_plan *rp, FILE *out)
{
    char need[32], arrays[64], all_arrays[32], timings[32], threads[32], file[32];
    ts_bytes_text(rp->total_bytes, need, sizeof need);
    fprintf(out, "memory needed: %s\n", need);
    arrays_text(rp, arrays, sizeof arrays);
    ts_bytes_text(rp->arrays_bytes, all_arrays, sizeof all_arrays);
    ts_bytes_text(rp->timing_bytes, timings, sizeof timings);
    ts_bytes_text(rp->thread_bytes, threads, sizeof threads);
    ts_bytes_text(rp->file_bytes, file, sizeof file);
    fprintf(out, "  arrays        %-10s (%s)\n", all_arrays, arrays);
    fprintf(out, "  timings       %-10s (%lld steps; %lld iterations x %d threads)\n", timings,
            (long long)(rp->warmup + rp->iterations), (long long)rp->iterations, rp->n_threads);
    fprintf(out, "  threads       %-10s (records, partial sums and counters of %d threads)\n", threads, rp->n_threads);
    fprintf(out, "  results file  %-10s (assembled in memory and copied out%s)\n", file,
            rp->with_field ? ", with the field" : "");
    if (rp->halo_bytes > 0) {
        char halos[32];
        ts_bytes_text(rp->halo_bytes, halos, sizeof halos);
        fprintf(out, "  halos         %-10s (send and receive buffers of %d face%s, %d layer%s deep)\n", halos,
                rp->halo_faces, rp->halo_faces == 1 ? "" : "s", rp->halo_depth, rp->halo_depth == 1 ? "" : "s");
    }
    if (rp->world_bytes > 0) {
        char world[32];
        ts_bytes_text(rp->world_bytes, world, sizeof world);
        fprintf(out,
                "  other ranks   %-10s (rank 0: the rows of %d ranks; their threads' rows and times per iteration "
                "each rank writes itself)\n",
                world, rp->world_ranks);
    }
    struct ts_memory_limit limits[8];
    int n = ts_memory_limits(limits, 8);
    for (int i = 0; i < n; i++) {
        char have[32], need[32], now[32], stack[32];
        ts_bytes_text(limits[i].bytes, have, sizeof have);
        uint64_t need_bytes = ts_run_plan_need(rp, &limits[i]);
        struct process_part p = process_part(rp, &limits[i]);
        if (p.bytes > 0) { /* a limit on this process's mappings: what it counts besides the plan */
            ts_bytes_text(need_bytes, need, sizeof need);
            ts_bytes_text(p.mapped_now, now, sizeof now);
            ts_bytes_text(p.stack_each, stack, sizeof stack);
            fprintf(out,
                    "  limit %-10s %s  (%s: needs %s, with %s for the process's libraries, heap and start-up and %d "
                    "thread%s stack and heap of %s)\n",
                    need_bytes <= limits[i].bytes ? "ok" : "EXCEEDED", have, limits[i].source, need, now, p.stacks,
                    p.stacks == 1 ? "" : "s", stack);
        } else {
            fprintf(out, "  limit %-10s %s  (%s)\n", need_bytes <= limits[i].bytes ? "ok" : "EXCEEDED", have,
                    limits[i].source);
        }
    }
}

static int append(char *buf, size_t len, size_t *used, const char *text)
{
    size_t n = strlen(text);
    if (*used + n >= len)
        return -1;
    memcpy(buf + *used, text, n + 1);
    *used += n;
    return 0;
}

/* What a placeholder may put into a path: letters, digits, '.', '_', '-', not first a '.', at
 * most TS_PLACEHOLDER_MAX bytes. Everything the run makes itself passes (%k, %i, %t, %p, and %h,
 * which ts_file_host sanitises); a value from the environment that does not (a '/' would move
 * the file to another folder, a newline or "..") is not what the variable means, so the run is
 * refused, naming the variable and its value, rather than writing under a name the user did
 * not ask for. */
#define TS_PLACEHOLDER_MAX 63

static int placeholder_ok(const char *value)
{
    size_t n = strlen(value);
    return n > 0 && n <= TS_PLACEHOLDER_MAX && value[0] != '.'
           && strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* value as a C string literal would show it, cut to fit buf: a newline is "\n", not a line break. */
static void shown(const char *value, char *buf, size_t size)
{
    size_t used = 0;
    for (const unsigned char *c = (const unsigned char *)value; *c && used + 8 < size; c++) {
        if (*c == '\\' || *c == '\'')
            used += (size_t)snprintf(buf + used, size - used, "\\%c", *c);
        else if (*c == '\n')
            used += (size_t)snprintf(buf + used, size - used, "\\n");
        else if (*c < 0x20 || *c >= 0x7f)
            used += (size_t)snprintf(buf + used, size - used, "\\x%02x", *c);
        else
            buf[used++] = (char)*c;
    }
    buf[used] = '\0';
}

static int refuse_placeholder(const struct ts_config *cfg, char which, const char *source, const char *value,
                              struct ts_error *err)
{
    char text[400];
    shown(value, text, sizeof text);
    return ts_fail(err, TS_BAD_INPUT,
                   "output.file '%s': %%%c would be %s='%s', which cannot be part of a file name (letters, digits, "
                   "'.', '_' and '-' only, not first a '.', at most %d characters); set %s to what it stands for, "
                   "or leave %%%c out of the name",
                   cfg->file, which, source, text, TS_PLACEHOLDER_MAX, source, which);
}

/* The job id %j stands for, from the environment: "<array job>_<task>" in an array. */
static int job_piece(const struct ts_config *cfg, char *job, size_t size, struct ts_error *err)
{
    static const char *const names[] = { "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_ID" };
    const char *v[3];
    for (int i = 0; i < 3; i++)
        v[i] = getenv(names[i]);
    const int array = v[0] && v[1];
    for (int i = array ? 0 : 2; i < (array ? 2 : 3); i++)
        if (v[i] && !placeholder_ok(v[i]))
            return refuse_placeholder(cfg, 'j', names[i], v[i], err);
    if (array)
        snprintf(job, size, "%s_%s", v[0], v[1]);
    else
        snprintf(job, size, "%s", v[2] ? v[2] : "local");
    return TS_OK;
}

int ts_output_path(const struct ts_config *cfg, char *buf, size_t len, struct ts_error *err)
{
    char job[2 * TS_PLACEHOLDER_MAX + 2] = "local";
    if (strstr(cfg->file, "%j") && job_piece(cfg, job, sizeof job, err) != TS_OK)
        return err->status;

    char stamp[32], host[64], pid[24];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    ts_file_host(host, sizeof host);
    snprintf(pid, sizeof pid, "%ld", (long)getpid());

    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = cfg->file; *p; p++) {
        char literal[2] = { *p, '\0' };
        const char *piece = literal, *source = NULL;
        if (*p == '%') {
            switch (p[1]) {
            case 'k': piece = cfg->kernel, source = "run.kernel"; break;
            case 'i': piece = cfg->init_mode, source = "init.mode"; break;
            case 'j': piece = job; break; /* its variables checked one by one in job_piece */
            case 't': piece = stamp, source = "the local time"; break;
            case 'h': piece = host, source = "the host name"; break;
            case 'p': piece = pid, source = "the process id"; break;
            case '%': piece = "%"; break;
            default:
                return ts_fail(err, TS_BAD_INPUT,
                               "output.file '%s': unknown placeholder '%%%c' (use %%k %%i %%j %%t %%h %%p %%%%)",
                               cfg->file, p[1] ? p[1] : ' ');
            }
            /* Every placeholder passes the same check, whatever its source: a new one cannot
             * forget it. */
            if (source && !placeholder_ok(piece))
                return refuse_placeholder(cfg, p[1], source, piece, err);
            p++;
        }
        if (append(buf, len, &used, piece) != 0)
            return ts_fail(err, TS_BAD_INPUT, "output.file '%s' expands to more than %zu bytes", cfg->file, len - 1);
    }
    return TS_OK;
}

/* Sets the names for suffix n (1: the name as expanded, n: STEM-n.h5). -1 when too long. */
static int name_with_suffix(struct ts_run_output *out, int n)
{
    char number[16] = "";
    if (n > 1)
        snprintf(number, sizeof number, "-%d", n);
    int len = snprintf(out->file, sizeof out->file, "%s%s%s", out->stem, number, out->ext);
    if (len < 0 || (size_t)len >= sizeof out->file)
        return -1;
    out->suffix = n;
    ts_checkpoint_path_for(out->file, out->checkpoint, sizeof out->checkpoint);
    return 0;
}

static int exists(const char *path)
{
    return ts_file_id_of(path).known;
}

const char *ts_output_next_free(struct ts_run_output *out)
{
    int was = out->suffix;
    for (int n = was + 1; n < 100000; n++) {
        if (name_with_suffix(out, n) != 0)
            break;
        if (!exists(out->file) && !exists(out->checkpoint))
            return out->file;
    }
    name_with_suffix(out, was);
    return NULL;
}

/* Where the template put the run: stem and extension, so that suffixes go before ".h5". */
static int split_name(struct ts_run_output *out, const char *name, struct ts_error *err)
{
    size_t n = strlen(name);
    int h5 = n > 3 && strcmp(name + n - 3, ".h5") == 0;
    snprintf(out->ext, sizeof out->ext, "%s", h5 ? ".h5" : "");
    snprintf(out->stem, sizeof out->stem, "%.*s", (int)(h5 ? n - 3 : n), name);
    if (name_with_suffix(out, 1) != 0)
        return ts_fail(err, TS_BAD_INPUT, "output name %s is too long", name);
    return TS_OK;
}

int ts_output_judge(const struct ts_config *cfg, const char *restart_path, struct ts_run_output *out,
                    struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    char name[sizeof out->file];
    int status = ts_output_path(cfg, name, sizeof name, err);
    if (status == TS_OK)
        status = split_name(out, name, err);
    /* A device, FIFO, directory, socket or link would be replaced by a regular file: never. */
    if (status == TS_OK)
        status = ts_file_refuse_special(out->file, "output", err);
    if (status == TS_OK)
        status = ts_file_refuse_special(out->checkpoint, "checkpoint", err);
    if (status != TS_OK)
        return status;
    out->overwrite = cfg->overwrite;
    out->default_name = strcmp(cfg->file, TS_OUTPUT_FILE_DEFAULT) == 0;

    if (restart_path) {
        out->restart = ts_file_id_follow(restart_path);
        struct ts_file_id there = ts_file_id_of(out->checkpoint);
        if (ts_file_id_same_inode(&there, &out->restart)) {
            /* The requeue flow: the stopped run left X.h5 (incomplete) and X.ckpt.h5, and this run
             * continues that checkpoint: both are this run's to replace. */
            out->continued[0] = ts_file_id_of(out->file);
            out->continued[1] = there;
        }
    }
    int taken_file = exists(out->file) && !out->continued[1].known;
    int taken_checkpoint = exists(out->checkpoint) && !out->continued[1].known;
    if (!out->overwrite && (taken_file || taken_checkpoint)) {
        const char *which = taken_file ? out->file : out->checkpoint;
        if (!out->default_name && taken_file)
            return ts_fail(err, TS_BAD_INPUT,
                           "%s exists; remove it, choose another -o, or add --overwrite to replace it", which);
        if (!out->default_name)
            return ts_fail(err, TS_BAD_INPUT,
                           "%s exists (the checkpoint name of output %s); remove it, choose another -o, or add "
                           "--overwrite to replace it",
                           which, out->file);
        snprintf(out->taken, sizeof out->taken, "%s", which);
        if (!ts_output_next_free(out))
            return ts_fail(err, TS_BAD_INPUT, "%s exists and so do all its numbered variants; remove some", which);
    }
    return ts_output_check(out->file, err);
}

int ts_output_prepare(const struct ts_config *cfg, const char *restart_path, struct ts_run_output *out,
                      struct ts_error *err)
{
    int status = ts_output_judge(cfg, restart_path, out, err);
    if (status == TS_OK)
        out->stale_removed = ts_file_remove_stale_temps(out->file);
    return status;
}

void ts_output_note(const struct ts_run_output *out, FILE *to)
{
    if (out->taken[0])
        fprintf(to, "touchstone: note: %s exists: this run writes %s (--overwrite replaces instead)\n", out->taken,
                out->file);
    if (out->stale_removed > 0)
        fprintf(to,
                "touchstone: note: removed %d temporary file%s that runs on this host left when they died, "
                "next to %s\n",
                out->stale_removed, out->stale_removed == 1 ? "" : "s", out->file);
}

/* ts_place's callbacks: another file took the name during the run; the run moves on. */
static const char *moved(struct ts_run_output *out, const char *path)
{
    snprintf(out->lost, sizeof out->lost, "%s", path);
    return ts_output_next_free(out);
}

static const char *results_taken(void *ctx, const char *path)
{
    struct ts_run_output *out = ctx;
    return moved(out, path) ? out->file : NULL;
}

static const char *checkpoint_taken(void *ctx, const char *path)
{
    struct ts_run_output *out = ctx;
    return moved(out, path) ? out->checkpoint : NULL;
}

struct ts_place ts_output_results_place(struct ts_run_output *out)
{
    return (struct ts_place){ .path = out->file,
                              .replace = out->overwrite,
                              .may_replace = &out->continued[0],
                              .n_may_replace = 1,
                              .taken = results_taken,
                              .ctx = out };
}

struct ts_place ts_output_checkpoint_place(struct ts_run_output *out, const struct ts_file_id *own)
{
    out->mine[0] = *own;
    out->mine[1] = out->restart;
    return (struct ts_place){ .path = out->checkpoint,
                              .replace = out->overwrite,
                              .may_replace = out->mine,
                              .n_may_replace = 2,
                              .taken = checkpoint_taken,
                              .ctx = out };
}

void ts_output_recheck(struct ts_run_output *out)
{
    struct ts_file_id there = ts_file_id_of(out->file);
    if (!out->overwrite && there.known && !ts_file_id_same(&there, &out->continued[0]))
        moved(out, out->file);
}

int ts_output_moved(const struct ts_run_output *out, char *warning, size_t len)
{
    if (!out->lost[0])
        return 0;
    snprintf(warning, len,
             "%s appeared during the run (another run of the same name?) and is not replaced: "
             "this run's results go to %s",
             out->lost, out->file);
    return 1;
}

void ts_output_shown(const struct ts_run_output *out, char *buf, size_t len)
{
    if (out->lost[0])
        snprintf(buf, len, "%s  (WARNING: %s appeared during the run and was not replaced)", out->file, out->lost);
    else if (out->taken[0])
        snprintf(buf, len, "%s  (%s exists)", out->file, out->taken);
    else
        snprintf(buf, len, "%s", out->file);
}
