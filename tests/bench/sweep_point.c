/* One point of the survey's sweep or mixes sections (app/survey_sec_sweep.c,
 * app/survey_sec_mixes.c) for bench/peer_sweep.sh: the NUMA engine (topo/ts_numa_matrix.h)
 * timing a read/write mix of kernels/ts_mix.h, as the sections do, at a working set and thread
 * count the script also gives likwid-bench. Here and not in bench/: it links ts_topo and
 * ts_kernels, which bench/ may not (layers.txt). Built on request (cmake --build BUILD --target
 * bench_sweep_point); no CTest of its own.
 *
 *     bench_sweep_point MIX STORES BYTES THREADS PASSES REPETITIONS
 *         MIX read, 3:1, 2:1, 1:1 or store; STORES normal or nt; BYTES the working set over all
 *         arrays (each array BYTES / arrays, whole 4 KiB chunks per thread); THREADS the first
 *         cores of NUMA node 0 (ts_numa_node_cpus); PASSES sweeps of a share per timed step, 0:
 *         as the sweep section sizes them in --quick (steps of about 1 ms at the bandwidth of a
 *         pilot measurement).
 *         Prints: gbs MEDIAN BEST bytes B placed FRACTION passes PASSES
 *
 * GB/s are 1e9 bytes/s by the mix's byte model (reads + writes, no write-allocate). Exit 2 when
 * the engine fails. */
#include "ts_error.h"
#include "ts_mix.h"
#include "ts_numa_matrix.h"
#include "ts_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4096        /* the engine's chunk of a share: 512 doubles */
#define STEP_SECONDS 1e-3 /* app/survey_sec_sweep.c's --quick target */

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s MIX normal|nt BYTES THREADS PASSES REPETITIONS\n", argv[0]);
        return 2;
    }
    struct ts_mix m = { .kind = TS_MIX_COUNT, .nontemporal = strcmp(argv[2], "nt") == 0, .passes = atoll(argv[5]) };
    const int size_passes = m.passes == 0;
    if (size_passes)
        m.passes = 1;
    for (int k = 0; k < TS_MIX_COUNT; k++)
        if (strcmp(argv[1], ts_mix_info((enum ts_mix_kind)k)->name) == 0)
            m.kind = (enum ts_mix_kind)k;
    const int threads = atoi(argv[4]);
    if (m.kind == TS_MIX_COUNT || m.passes < 1 || threads < 1) {
        fprintf(stderr, "%s: bad MIX, PASSES or THREADS\n", argv[0]);
        return 2;
    }
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    if (ts_topology_create(&topo, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], err.message);
        return 2;
    }
    int cpus[1024];
    const int node = ts_topology_numa_os_index(topo, 0);
    int n = ts_numa_node_cpus(topo, node, cpus, 1024);
    n = n < threads ? n : threads;
    const int arrays = ts_mix_n_arrays(m.kind);
    int64_t per_array = atoll(argv[3]) / arrays / (CHUNK * n) * (CHUNK * n);
    if (per_array < CHUNK * n)
        per_array = CHUNK * n;
    struct ts_numa_stream k = {
        ts_mix_info(m.kind)->name, arrays, ts_mix_bytes_per_elem(&m), "", ts_mix_init, ts_mix_step, &m, NULL
    };
    struct ts_numa_bandwidth bw;
    int status = 0;
    if (size_passes) { /* the pilot: 50 GB/s a thread guessed, then its best */
        const double per_pass = (double)(per_array * arrays);
        m.passes = (int64_t)(STEP_SECONDS / 4 * 50e9 * n / per_pass) + 1;
        k.bytes_per_elem = ts_mix_bytes_per_elem(&m);
        if (ts_numa_bandwidth_measure(topo, &k, cpus, n, node, per_array, 1, &bw, &err) == TS_OK && bw.measured)
            m.passes = (int64_t)(STEP_SECONDS * bw.gbs_best * 1e9 / per_pass) + 1;
        k.bytes_per_elem = ts_mix_bytes_per_elem(&m);
    }
    if (status == 0
        && ts_numa_bandwidth_measure(topo, &k, cpus, n, node, per_array, atoi(argv[6]), &bw, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], err.message);
        status = 2;
    } else if (!bw.measured) {
        fprintf(stderr, "%s: not measured: %s\n", argv[0], bw.note);
        status = 2;
    } else {
        printf("gbs %.4f %.4f bytes %lld placed %.4f passes %lld\n", bw.gbs_median, bw.gbs_best,
               (long long)(per_array * arrays), bw.placement.fraction, (long long)m.passes);
    }
    ts_topology_destroy(topo);
    return status;
}
