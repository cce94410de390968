#include "survey_sec_bandwidth.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIB ((int64_t)1 << 20)
#define MIN_ARRAY MIB

int64_t ts_sec_llc(const struct ts_section_ctx *ctx)
{
    return ctx->llc_bytes > 0 ? ctx->llc_bytes : TS_SEC_ASSUMED_LLC;
}

int64_t ts_sec_array_bytes(const struct ts_section_ctx *ctx, const int *mem_nodes, int n_mem, int n_arrays)
{
    int64_t bytes = (ctx->quick ? 2 : 4) * ts_sec_llc(ctx);
    if (ctx->scale > 0 && ctx->scale < 1.0)
        bytes = (int64_t)(ctx->scale * (double)bytes);
    if (bytes < MIN_ARRAY)
        bytes = MIN_ARRAY;
    for (int m = 0; m < n_mem; m++) {
        int64_t cap = ts_numa_memory_cap(mem_nodes[m]) / (n_arrays > 0 ? n_arrays : 1);
        if (cap < bytes)
            bytes = cap;
    }
    return bytes / (int64_t)sizeof(double) * (int64_t)sizeof(double);
}

static void add_count(int *counts, int *k, int max, int t)
{
    if (*k < max)
        counts[(*k)++] = t;
}

int ts_sec_thread_counts(int n, enum ts_sec_counts which, int *counts, int max)
{
    int k = 0;
    if (n < 1)
        return 0;
    if (which == TS_SEC_EVERY) {
        for (int t = 1; t <= n; t++)
            add_count(counts, &k, max, t);
        return k;
    }
    for (int t = 1; t < n; t = which == TS_SEC_POWERS ? t * 2 : n)
        add_count(counts, &k, max, t);
    add_count(counts, &k, max, n);
    return k;
}

int ts_sec_pace_trials(struct ts_sec_pace *p, double bytes_per_sweep)
{
    if (p->seconds_per_byte <= 0)
        return p->trials;
    const double sweep = p->seconds_per_byte * bytes_per_sweep;
    int fit = sweep > 0 ? (int)(p->budget / sweep) : p->trials;
    if (fit < 2)
        fit = 2;
    if (fit < p->trials) {
        p->reduced = 1;
        return fit;
    }
    return p->trials;
}

void ts_sec_pace_learn(struct ts_sec_pace *p, const struct ts_numa_bandwidth *b, double bytes_per_elem)
{
    const double moved = bytes_per_elem * (double)(b->bytes_per_array / (int64_t)sizeof(double));
    if (b->measured && moved > 0 && b->seconds_avg > 0)
        p->seconds_per_byte = b->seconds_avg / moved;
}

void ts_sec_add_placement(struct ts_survey_section *out, const struct ts_numa_bandwidth *b)
{
    const double f = b->placement.fraction;
    if (!isnan(f) && (isnan(out->placed_fraction) || f < out->placed_fraction))
        out->placed_fraction = f;
    if (b->placement.misplaced)
        out->misplaced = 1;
}

void ts_sec_cpus_text(const int *cpus, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%d", i ? "," : "", cpus[i]);
        if (w < 0 || (size_t)w >= len - used) {
            buf[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
}

void ts_sec_note(struct ts_survey_section *out, const char *text)
{
    size_t used = strlen(out->note);
    snprintf(out->note + used, sizeof out->note - used, "%s%s", used ? "; " : "", text);
}
