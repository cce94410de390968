#include "survey_matrix.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "ts_chase.h"
#include "ts_kernel_probe.h"
#include "ts_numa_matrix.h"

static double median_or_nan(int measured, double v)
{
    return measured ? v : NAN;
}

static void add_note(char *buf, size_t size, const char *what, const char *note)
{
    if (!note[0])
        return;
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s: %s", used ? "; " : "", what, note);
}

static void smallest_fraction(double *f, const struct ts_numa_placement *p)
{
    if (!isnan(p->fraction) && (isnan(*f) || p->fraction < *f))
        *f = p->fraction;
}

static int convert(const struct ts_numa_matrix *m, const struct ts_numa_probes *probes, struct ts_survey_matrix *out,
                   struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    const int n = m->n_cpu_nodes * m->n_mem_nodes;
    out->cpu_nodes = calloc((size_t)m->n_cpu_nodes, sizeof *out->cpu_nodes);
    out->mem_nodes = calloc((size_t)m->n_mem_nodes, sizeof *out->mem_nodes);
    out->cell = calloc((size_t)(n > 0 ? n : 1), sizeof *out->cell);
    if (!out->cpu_nodes || !out->mem_nodes || !out->cell) {
        free(out->cpu_nodes);
        free(out->mem_nodes);
        free(out->cell);
        memset(out, 0, sizeof *out);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "survey: the NUMA matrix's %d cells", n);
    }
    out->n_cpu_nodes = m->n_cpu_nodes;
    out->n_mem_nodes = m->n_mem_nodes;
    for (int i = 0; i < m->n_cpu_nodes; i++)
        out->cpu_nodes[i] = m->cpu_nodes[i];
    for (int j = 0; j < m->n_mem_nodes; j++)
        out->mem_nodes[j] = m->mem_nodes[j];
    out->llc_bytes = m->llc_bytes;
    snprintf(out->byte_model_read, sizeof out->byte_model_read, "%s", probes->read.byte_model);
    snprintf(out->byte_model_triad, sizeof out->byte_model_triad, "%s", probes->triad.byte_model);
    for (int k = 0; k < n; k++) {
        const struct ts_numa_cell *c = &m->cell[k];
        struct ts_survey_cell *o = &out->cell[k];
        o->cpu_node = c->cpu_node;
        o->mem_node = c->mem_node;
        o->threads = c->threads;
        snprintf(o->cpus, sizeof o->cpus, "%s", c->cpus);
        o->latency_ns = median_or_nan(c->latency_base.measured, c->latency_base.ns_median);
        o->latency_huge_ns =
            median_or_nan(c->latency_huge.measured && c->latency_huge.huge_granted, c->latency_huge.ns_median);
        o->latency_loaded_ns = median_or_nan(c->latency_loaded.measured, c->latency_loaded.ns_median);
        o->read_gbs = median_or_nan(c->read.measured, c->read.gbs_median);
        o->triad_gbs = median_or_nan(c->triad.measured, c->triad.gbs_median);
        o->fraction = NAN;
        smallest_fraction(&o->fraction, &c->latency_base.placement);
        if (c->latency_huge.measured)
            smallest_fraction(&o->fraction, &c->latency_huge.placement);
        if (c->latency_loaded.measured)
            smallest_fraction(&o->fraction, &c->latency_loaded.placement);
        smallest_fraction(&o->fraction, &c->read.placement);
        smallest_fraction(&o->fraction, &c->triad.placement);
        o->misplaced = c->misplaced ? 1 : 0;
        o->huge_granted = c->latency_huge.huge_granted ? 1 : 0;
        add_note(o->note, sizeof o->note, "latency", c->latency_base.note);
        add_note(o->note, sizeof o->note, "2 MiB pages", c->latency_huge.note);
        add_note(o->note, sizeof o->note, "loaded", c->latency_loaded.note);
        add_note(o->note, sizeof o->note, "read", c->read.note);
        add_note(o->note, sizeof o->note, "triad", c->triad.note);
        out->misplaced_cells += o->misplaced;
        if (k == 0) {
            out->chase_bytes = c->latency_base.bytes;
            out->stream_bytes = c->read.bytes_per_array;
        }
    }
    return TS_OK;
}

static struct ts_numa_probes probes_of(struct ts_kernel_probe *sum, struct ts_kernel_probe *triad)
{
    ts_kernel_probe_setup(sum, TS_KERNEL_SUM);
    ts_kernel_probe_setup(triad, TS_KERNEL_TRIAD);
    const struct ts_numa_probes probes = {
        .chase_line = TS_CHASE_LINE,
        .chase_build = ts_chase_build,
        .chase_run = ts_chase_run,
        .read = { "sum", 1, sum->kernel->bytes_per_unit, sum->kernel->byte_model, ts_kernel_probe_init,
                  ts_kernel_probe_step, sum, NULL },
        .triad = { "triad", 3, triad->kernel->bytes_per_unit, triad->kernel->byte_model, ts_kernel_probe_init,
                   ts_kernel_probe_step, triad, NULL },
    };
    return probes;
}

int ts_survey_triad_rate(const ts_topology *topo, int64_t bytes, int max_cores, double *gbs, double *touch_gbs,
                         struct ts_error *err)
{
    static struct ts_kernel_probe sum, triad;
    const struct ts_numa_probes probes = probes_of(&sum, &triad);
    *gbs = *touch_gbs = NAN;
    int cpu_nodes[1], mem_nodes[1], n_cpu_nodes, n_mem_nodes, cpus[1024], n_cpus = 0;
    ts_numa_list_nodes(topo, cpu_nodes, &n_cpu_nodes, mem_nodes, &n_mem_nodes, 1);
    if (n_cpu_nodes > 0 && n_mem_nodes > 0)
        n_cpus = ts_numa_node_cpus(topo, cpu_nodes[0], cpus, 1024);
    if (max_cores > 0 && n_cpus > max_cores)
        n_cpus = max_cores;
    if (n_cpus <= 0)
        return TS_OK;
    struct ts_numa_bandwidth bw;
    int status = ts_numa_bandwidth_measure(topo, &probes.triad, cpus, n_cpus, mem_nodes[0], bytes, 3, &bw, err);
    if (status != TS_OK || !bw.measured)
        return status;
    *gbs = bw.gbs_median;     /* a run's iterations are as often slow as fast: not the best */
    if (bw.seconds_touch > 0) /* fresh pages faulted in: far slower than a sweep of the same bytes */
        *touch_gbs = 3.0 * (double)bw.bytes_per_array / bw.seconds_touch * 1e-9;
    return status;
}

double ts_survey_chase_ns(const ts_topology *topo, int64_t bytes, int64_t steps)
{
    static struct ts_kernel_probe sum, triad;
    const struct ts_numa_probes probes = probes_of(&sum, &triad);
    int cpu_nodes[1], mem_nodes[1], n_cpu_nodes = 0, n_mem_nodes = 0;
    ts_numa_list_nodes(topo, cpu_nodes, &n_cpu_nodes, mem_nodes, &n_mem_nodes, 1);
    if (n_cpu_nodes < 1 || n_mem_nodes < 1)
        return NAN;
    const int64_t reps = 2;
    struct ts_numa_latency lat;
    struct ts_error ignored;
    ts_error_clear(&ignored);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int st = ts_numa_latency_measure(topo, &probes, cpu_nodes[0], mem_nodes[0], bytes, 0, steps, (int)reps, 1,
                                           &lat, &ignored);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != TS_OK || !lat.measured)
        return NAN;
    /* Every line the build writes, the warm-up lap (a lap of the buffer, at most steps) and the
     * repetitions' steps. */
    const double lines = (double)(lat.bytes / TS_CHASE_LINE);
    const double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return seconds * 1e9 / (lines + fmin(lines, (double)steps) + (double)(reps * steps));
}

int ts_survey_matrix_measure(const ts_topology *topo, int quick, double scale, struct ts_survey_matrix *out,
                             struct ts_error *err)
{
    static struct ts_kernel_probe sum, triad;
    const struct ts_numa_probes probes = probes_of(&sum, &triad);
    struct ts_numa_options opt = { .repetitions = quick ? 3 : 5, .seed = 1 };
    if (scale < 1.0) {
        int64_t bytes = (int64_t)(scale * (double)((int64_t)64 << 20));
        opt.chase_bytes = opt.stream_bytes = bytes < ((int64_t)1 << 20) ? (int64_t)1 << 20 : bytes;
        opt.chase_steps = (int64_t)1 << 16;
    }
    struct ts_numa_matrix m;
    int status = ts_numa_matrix_measure(topo, &probes, &opt, &m, err);
    if (status != TS_OK)
        return status;
    status = convert(&m, &probes, out, err);
    ts_numa_matrix_free(&m);
    return status;
}

/* The "model name" line of /proc/cpuinfo, "" when there is none. */
static void cpu_model(char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon) {
            colon += strspn(colon + 1, " \t") + 1;
            snprintf(buf, size, "%.*s", (int)strcspn(colon, "\n"), colon);
        }
        break;
    }
    fclose(f);
}

/* The CPUID hypervisor signature (leaf 0x40000000), "" when there is no hypervisor bit. */
static void hypervisor_signature(char sig[13])
{
    memset(sig, 0, 13);
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
        return;
    __cpuid(0x40000000, a, b, c, d);
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    for (int i = 0; i < 12; i++)
        if (sig[i] != '\0' && (sig[i] < ' ' || sig[i] > '~'))
            sig[i] = '?';
#endif
}

int ts_survey_emulated(char *why, size_t size)
{
    char sig[13], model[256];
    hypervisor_signature(sig);
    cpu_model(model, sizeof model);
    why[0] = '\0';
    if (strcmp(sig, "TCGTCGTCGTCG") == 0) {
        snprintf(why, size, "qemu's TCG emulates the CPU (CPUID hypervisor signature %s)", sig);
        return 1;
    }
    if (strncmp(sig, "KVMKVMKVM", 9) != 0 && strstr(model, "QEMU")) {
        snprintf(why, size,
                 "qemu emulates the CPU (model '%s', no KVM signature in CPUID); remote memory is no slower than "
                 "local",
                 model);
        return 1;
    }
    return 0;
}
