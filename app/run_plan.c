#include "run_plan.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ts_memory.h"
#include "ts_units.h"

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
    rp->total_bytes = rp->array_bytes * (size_t)rp->plan.n_arrays;
    return TS_OK;
}

int ts_run_plan_check_memory(const struct ts_run_plan *rp, struct ts_error *err)
{
    struct ts_memory_limit limits[8];
    int n = ts_memory_limits(limits, 8);
    for (int i = 0; i < n; i++) {
        if ((uint64_t)rp->total_bytes <= limits[i].bytes)
            continue;
        char need[32], each[32], have[32];
        ts_bytes_text(rp->total_bytes, need, sizeof need);
        ts_bytes_text(rp->array_bytes, each, sizeof each);
        ts_bytes_text(limits[i].bytes, have, sizeof have);
        return ts_fail(err, TS_BAD_INPUT,
                       "%s needs %s (%d arrays of %s, %zu bytes) but %s allows only %s (%llu bytes); "
                       "reduce the problem size",
                       rp->kernel->name, need, rp->plan.n_arrays, each, rp->total_bytes, limits[i].source, have,
                       (unsigned long long)limits[i].bytes);
    }
    return TS_OK;
}

void ts_run_plan_print_memory(const struct ts_run_plan *rp, FILE *out)
{
    char need[32], each[32];
    ts_bytes_text(rp->total_bytes, need, sizeof need);
    ts_bytes_text(rp->array_bytes, each, sizeof each);
    fprintf(out, "memory needed: %s (%d array%s of %s)\n", need, rp->plan.n_arrays,
            rp->plan.n_arrays == 1 ? "" : "s", each);
    struct ts_memory_limit limits[8];
    int n = ts_memory_limits(limits, 8);
    for (int i = 0; i < n; i++) {
        char have[32];
        ts_bytes_text(limits[i].bytes, have, sizeof have);
        fprintf(out, "  limit %-10s %s  (%s)\n", (uint64_t)rp->total_bytes <= limits[i].bytes ? "ok" : "EXCEEDED",
                have, limits[i].source);
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

int ts_output_path(const struct ts_config *cfg, char *buf, size_t len, struct ts_error *err)
{
    char job[64] = "local";
    const char *array_job = getenv("SLURM_ARRAY_JOB_ID"), *array_task = getenv("SLURM_ARRAY_TASK_ID");
    const char *job_id = getenv("SLURM_JOB_ID");
    if (array_job && array_task)
        snprintf(job, sizeof job, "%s_%s", array_job, array_task);
    else if (job_id)
        snprintf(job, sizeof job, "%s", job_id);

    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));

    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = cfg->file; *p; p++) {
        char literal[2] = {*p, '\0'};
        const char *piece = literal;
        if (*p == '%') {
            switch (p[1]) {
            case 'k': piece = cfg->kernel; break;
            case 'i': piece = cfg->init_mode; break;
            case 'j': piece = job; break;
            case 't': piece = stamp; break;
            case '%': piece = "%"; break;
            default:
                return ts_fail(err, TS_BAD_INPUT, "output.file '%s': unknown placeholder '%%%c' (use %%k %%i %%j %%t %%%%)",
                               cfg->file, p[1] ? p[1] : ' ');
            }
            p++;
        }
        if (append(buf, len, &used, piece) != 0)
            return ts_fail(err, TS_BAD_INPUT, "output.file '%s' expands to more than %zu bytes", cfg->file, len - 1);
    }
    return TS_OK;
}
