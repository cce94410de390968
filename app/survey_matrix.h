/* The survey's NUMA matrix: the engine of topo/ts_numa_matrix.h handed the kernels it times
 * (kernels/ts_chase.h's chase, the kernel table's sum and triad steps), its result turned into
 * the survey record's cells, and whether this machine's timings mean anything at all. */
#ifndef TOUCHSTONE_APP_SURVEY_MATRIX_H
#define TOUCHSTONE_APP_SURVEY_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_survey_rec.h"
#include "ts_topology.h"

/* Measures every (CPU node, memory node) cell of this machine into out (arrays allocated here,
 * io/ts_survey_file.h's ts_survey_matrix_free). quick: 3 repetitions instead of 5; scale < 1
 * (TOUCHSTONE_SURVEY_SCALE, tests) shrinks the buffers from the engine's choice to that share of
 * 64 MiB (at least 1 MiB) and the chase to 2^16 steps. Errors as ts_numa_matrix_measure. */
int ts_survey_matrix_measure(const ts_topology *topo, int quick, double scale, struct ts_survey_matrix *out,
                             struct ts_error *err);

/* Nanoseconds a step of the NUMA matrix's chase takes, for the survey's estimate: one chase over
 * bytes on the first NUMA node (its build's lines, a warm-up lap and twice steps) timed whole
 * and shared among its steps and lines. NaN when it could not be measured. */
double ts_survey_chase_ns(const ts_topology *topo, int64_t bytes, int64_t steps);

/* The triad bandwidth, GB/s, of the cores of the first NUMA node on its memory (its first
 * max_cores of them; 0: all), arrays of bytes each (a moment's measurement, for the survey's
 * estimate up front), and the rate at which its threads first touched them (GB/s of fresh pages
 * faulted in); NaN when no node has both CPUs and memory. Errors as ts_numa_bandwidth_measure. */
int ts_survey_triad_rate(const ts_topology *topo, int64_t bytes, int max_cores, double *gbs, double *touch_gbs,
                         struct ts_error *err);

/* 1 when this machine is emulated (qemu's TCG: a CPUID hypervisor signature "TCGTCGTCGTCG", or a
 * "QEMU" CPU model without KVM's signature), with the reason in why; 0 otherwise. A VM with
 * hardware virtualisation (KVM, Hyper-V, ...) is not emulated: its timings are the hardware's. */
int ts_survey_emulated(char *why, size_t size);

#endif
