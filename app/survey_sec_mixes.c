/* Bandwidth by read/write mix (issue 26): every core of one domain on the domain's own memory,
 * a working set of 8x the last-level cache shared by the mix's arrays, for all reads, 3:1, 2:1
 * and 1:1 reads to writes and stores only (kernels/ts_mix.h), the mixes with stores also with
 * non-temporal stores where the build has them. GB/s count the explicit bytes (reads + writes);
 * a normal store's write-allocate read is shown beside them, not in them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey_sec_sweep.h"
#include "survey_sections.h"
#include "ts_mix.h"
#include "ts_numa_matrix.h"
#include "ts_section.h"

#define MIB ((int64_t)1 << 20)
#define LLC_MULTIPLE 8
#define CHUNK_BYTES 4096 /* the engine's chunk of a share */
#define MAX_CPUS 1024
#define MAX_MIXES (2 * TS_MIX_COUNT)
#define CHECK_ELEMS 4099 /* the self-check's arrays: not a multiple of a vector */

struct mix_plan {
    int64_t total; /* the working set, over all arrays */
    int llc_assumed;
    int repetitions;
    int threads, node;
    int cpus[MAX_CPUS];
    int n;
    struct ts_mix mixes[MAX_MIXES];
};

static void plan_mixes(const struct ts_section_ctx *ctx, struct mix_plan *p)
{
    p->llc_assumed = ctx->llc_bytes <= 0;
    const int64_t llc = p->llc_assumed ? TS_SWEEP_ASSUMED_LLC : ctx->llc_bytes;
    p->total = LLC_MULTIPLE * llc;
    p->repetitions = ctx->quick ? 3 : 5;
    if (ctx->scale < 1.0) {
        double total = ctx->scale * (double)p->total;
        p->total = total < (double)MIB ? MIB : (int64_t)total;
        p->repetitions = 2;
    }
    p->n = 0;
    for (int k = 0; k < TS_MIX_COUNT; k++) {
        p->mixes[p->n++] = (struct ts_mix){ (enum ts_mix_kind)k, 0, 1 };
        if (ts_mix_info((enum ts_mix_kind)k)->writes && ts_mix_has_nontemporal())
            p->mixes[p->n++] = (struct ts_mix){ (enum ts_mix_kind)k, 1, 1 };
    }
}

/* Each array's bytes: the working set shared by the arrays, whole chunks per thread. */
static int64_t array_bytes(const struct mix_plan *p, const struct ts_mix *m)
{
    const int64_t unit = (int64_t)CHUNK_BYTES * p->threads;
    int64_t units = p->total / ts_mix_n_arrays(m->kind) / unit;
    return (units < 1 ? 1 : units) * unit;
}

/* Each mix on a small buffer of its own before it is timed: the written array must hold what
 * its formula gives (kernels/ts_mix.h's verify), with the stores it is timed with. */
static int self_check(const struct ts_mix *m, struct ts_error *err)
{
    double *a[4] = { NULL, NULL, NULL, NULL };
    int64_t failures = -1;
    const int n = ts_mix_n_arrays(m->kind);
    int ok = 1;
    for (int k = 0; k < n; k++)
        ok &= (a[k] = malloc(CHECK_ELEMS * sizeof(double))) != NULL;
    if (ok) {
        ts_mix_init(m, a, 0, CHECK_ELEMS);
        ts_mix_step(m, a, 0, CHECK_ELEMS);
        failures = ts_mix_verify(m, a, 0, CHECK_ELEMS);
    }
    for (int k = 0; k < n; k++)
        free(a[k]);
    if (failures != 0)
        return ts_fail(err, TS_INTERNAL_ERROR, "mixes: %s (%s stores) %s", ts_mix_info(m->kind)->name,
                       m->nontemporal ? "non-temporal" : "normal",
                       failures < 0 ? "cannot allocate its check" : "wrote wrong values in its check");
    return TS_OK;
}

enum {
    C_MIX,
    C_STORES,
    C_READS,
    C_WRITES,
    C_ARRAY,
    C_BYTES,
    C_BPE,
    C_RFO,
    C_GBS,
    C_BEST,
    C_TRAFFIC,
    C_PLACED,
    C_COUNT
};

static int declare(struct ts_survey_section *out, int rows, struct ts_error *err)
{
    int ok =
        ts_section_text(out, "mix", err) == C_MIX && ts_section_text(out, "stores", err) == C_STORES
        && ts_section_num(out, "reads", "", err) == C_READS && ts_section_num(out, "writes", "", err) == C_WRITES
        && ts_section_num(out, "array_bytes", "B", err) == C_ARRAY && ts_section_num(out, "bytes", "B", err) == C_BYTES
        && ts_section_num(out, "bytes_per_elem", "B", err) == C_BPE
        && ts_section_num(out, "rfo_bytes_per_elem", "B", err) == C_RFO
        && ts_section_num(out, "gbs", "GB/s", err) == C_GBS && ts_section_num(out, "gbs_best", "GB/s", err) == C_BEST
        && ts_section_num(out, "gbs_traffic", "GB/s", err) == C_TRAFFIC
        && ts_section_num(out, "placed", "", err) == C_PLACED;
    if (!ok)
        return err->status ? err->status : TS_INTERNAL_ERROR;
    return ts_section_rows(out, rows, err);
}

static const char *stores_of(const struct ts_mix *m)
{
    return !ts_mix_info(m->kind)->writes ? "none" : m->nontemporal ? "non-temporal" : "normal";
}

static int measure_row(const struct ts_section_ctx *ctx, const struct mix_plan *p, const struct ts_mix *m, int row,
                       struct ts_survey_section *out, struct ts_error *err)
{
    const struct ts_mix_info *in = ts_mix_info(m->kind);
    const int arrays = ts_mix_n_arrays(m->kind);
    const double bpe = ts_mix_bytes_per_elem(m), rfo = ts_mix_rfo_bytes_per_elem(m);
    const struct ts_numa_stream k = { in->name, arrays, bpe, in->formula, ts_mix_init, ts_mix_step, m, NULL };
    const int64_t bytes = array_bytes(p, m);
    struct ts_numa_bandwidth bw;
    int status =
        ts_numa_bandwidth_measure(ctx->topo, &k, p->cpus, p->threads, p->node, bytes, p->repetitions, &bw, err);
    if (status != TS_OK) {
        ts_error_prefix(err, "mixes: %s, %s stores", in->name, stores_of(m));
        return status;
    }
    ts_section_set_text(out, C_MIX, row, in->name);
    ts_section_set_text(out, C_STORES, row, stores_of(m));
    ts_section_set(out, C_READS, row, in->reads);
    ts_section_set(out, C_WRITES, row, in->writes);
    ts_section_set(out, C_ARRAY, row, (double)bytes);
    ts_section_set(out, C_BYTES, row, (double)(bytes * arrays));
    ts_section_set(out, C_BPE, row, bpe);
    ts_section_set(out, C_RFO, row, rfo);
    ts_section_set(out, C_GBS, row, bw.measured ? bw.gbs_median : NAN);
    ts_section_set(out, C_BEST, row, bw.measured ? bw.gbs_best : NAN);
    ts_section_set(out, C_TRAFFIC, row, bw.measured ? bw.gbs_median * (bpe + rfo) / bpe : NAN);
    ts_section_set(out, C_PLACED, row, bw.placement.fraction);
    double f = bw.placement.fraction;
    if (!isnan(f) && (isnan(out->placed_fraction) || f < out->placed_fraction))
        out->placed_fraction = f;
    if (!bw.measured) {
        char text[320];
        snprintf(text, sizeof text, "%s (%s stores) not measured: %s", in->name, stores_of(m), bw.note);
        size_t used = strlen(out->note);
        snprintf(out->note + used, sizeof out->note - used, "%s%s", used ? "; " : "", text);
    }
    return TS_OK;
}

/* The GB/s of the row of mix kind with (nt) or without non-temporal stores; NaN when absent. */
static double gbs_of(const struct ts_survey_section *out, const struct mix_plan *p, enum ts_mix_kind kind, int nt)
{
    for (int i = 0; i < p->n; i++)
        if (p->mixes[i].kind == kind && p->mixes[i].nontemporal == nt)
            return out->cols[C_GBS].num[i];
    return NAN;
}

static void conclude(struct ts_survey_section *out, const struct mix_plan *p)
{
    const double read = gbs_of(out, p, TS_MIX_READ, 0), store = gbs_of(out, p, TS_MIX_STORE, 0);
    const double store_nt = gbs_of(out, p, TS_MIX_STORE, 1);
    ts_section_set_fact(out, "read_gbs", read, "GB/s");
    ts_section_set_fact(out, "write_gbs", store, "GB/s");
    ts_section_set_fact(out, "write_nt_gbs", store_nt, "GB/s");
    ts_section_set_fact(out, "nt_gain", store_nt / store, "");
    ts_section_set_fact(out, "threads", p->threads, "");
    ts_section_set_fact(out, "bytes", (double)p->total, "B");
    char nt[96] = "";
    if (!isnan(store_nt))
        snprintf(nt, sizeof nt, "; non-temporal stores %.1f GB/s (%.2fx)", store_nt, store_nt / store);
    snprintf(out->summary, sizeof out->summary,
             "%d threads: reads %.1f GB/s, 3:1 %.1f, 2:1 %.1f, 1:1 %.1f, stores %.1f GB/s (%.1f with the "
             "write-allocate)%s",
             p->threads, read, gbs_of(out, p, TS_MIX_3_1, 0), gbs_of(out, p, TS_MIX_2_1, 0),
             gbs_of(out, p, TS_MIX_1_1, 0), store, 2.0 * store, nt);
    out->misplaced = !isnan(out->placed_fraction) && out->placed_fraction < 1.0;
    char text[160];
    if (!ts_mix_has_nontemporal()) {
        snprintf(text, sizeof text, "no non-temporal stores in this build: normal stores only");
        size_t used = strlen(out->note);
        snprintf(out->note + used, sizeof out->note - used, "%s%s", used ? "; " : "", text);
    }
    if (p->llc_assumed) {
        snprintf(text, sizeof text, "working set 8x an assumed LLC of %lld MiB (neither hwloc nor the sweep knew it)",
                 (long long)(TS_SWEEP_ASSUMED_LLC / MIB));
        size_t used = strlen(out->note);
        snprintf(out->note + used, sizeof out->note - used, "%s%s", used ? "; " : "", text);
    }
}

static int mixes_measure(const struct ts_section_ctx *ctx, struct ts_survey_section *out, struct ts_error *err)
{
    static struct mix_plan p;
    plan_mixes(ctx, &p);
    p.threads = ts_sweep_domain(ctx->topo, &p.node, p.cpus, MAX_CPUS);
    if (p.threads < 1)
        return ts_fail(err, TS_BAD_INPUT, "mixes: no NUMA node with CPUs this process may use");
    int status = TS_OK;
    for (int i = 0; i < p.n && status == TS_OK; i++)
        status = self_check(&p.mixes[i], err);
    if (status == TS_OK)
        status = declare(out, p.n, err);
    out->placed_fraction = NAN;
    for (int i = 0; i < p.n && status == TS_OK; i++)
        status = measure_row(ctx, &p, &p.mixes[i], i, out, err);
    if (status != TS_OK)
        return status;
    conclude(out, &p);
    struct ts_section_plot *plot =
        ts_section_add_plot(out, TS_SECTION_BARS, "Bandwidth by read:write mix (explicit bytes)", "mix", "gbs");
    if (plot)
        snprintf(plot->series, sizeof plot->series, "stores");
    return TS_OK;
}

/* Each mix: the warm-up and the timed steps over the working set at an assumed 25 GB/s a
 * thread, the first touch at 15 GB/s, 3 ms for mapping, binding and counting the pages (the
 * 2-core Zen 5 VM at a load of 1.4: --quick 0.3 s, --full 0.5 s with 256 MiB). */
static double mixes_estimate(const struct ts_section_ctx *ctx)
{
    static struct mix_plan p;
    plan_mixes(ctx, &p);
    int cpus[MAX_CPUS], node;
    const int threads = ts_sweep_domain(ctx->topo, &node, cpus, MAX_CPUS);
    const double gbs = 25e9 * (threads > 0 ? threads : 1);
    return p.n * ((p.repetitions + 1) * (double)p.total / gbs + (double)p.total / 15e9 + 3e-3);
}

const struct ts_section_def ts_section_mixes = {
    .name = "mixes",
    .title = "Bandwidth by read/write mix",
    .estimate = mixes_estimate,
    .measure = mixes_measure,
};
