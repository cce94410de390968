/* The survey's loaded_latency and c2c engines (topo/ts_loaded_latency.h, topo/ts_c2c.h) measured
 * for bench/peer_latency.sh, with the kernels the survey hands them (kernels/ts_chase.h,
 * ts_inject.h, ts_pingpong.h). Here and not in bench/: it links ts_topo and ts_kernels, which
 * bench/ may not (layers.txt). Built on request (cmake --build BUILD --target
 * bench_latency_peers); no CTest of its own.
 *
 *     bench_latency_peers idle BYTES STEPS REPETITIONS NODE
 *         the loaded-latency curve's idle point, the chase on NODE's first core, memory on NODE:
 *         latency MEDIAN_NS BEST_NS cpu CPU placed FRACTION
 *     bench_latency_peers c2c CPU_A CPU_B ROUNDS SAMPLES
 *         the core-to-core engine on that pair alone, SAMPLES samples of ROUNDS round trips:
 *         pingpong MEDIAN_NS (one way)
 *
 * Exit 2 when the engine fails. */
#include "ts_c2c.h"
#include "ts_chase.h"
#include "ts_error.h"
#include "ts_inject.h"
#include "ts_loaded_latency.h"
#include "ts_pingpong.h"
#include "ts_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int idle(const ts_topology *topo, char **argv, struct ts_error *err)
{
    const struct ts_loaded_probes probes = {
        .chase_line = TS_CHASE_LINE,
        .chase_build = ts_chase_build,
        .chase_run = ts_chase_run,
        .inject_line = TS_INJECT_LINE,
        .inject = ts_inject_pass,
    };
    struct ts_loaded_options opt = {
        .chase_bytes = strtoll(argv[2], NULL, 10),
        .inject_bytes = (int64_t)1 << 20, /* the idle point reads none of it */
        .chase_steps = strtoll(argv[3], NULL, 10),
        .repetitions = atoi(argv[4]),
        .seconds_per_point = 1e9,
        .burst = 16,
        .n_delays = 1,
        .delays = { -1 },
        .seed = 1,
    };
    const int node = atoi(argv[5]);
    struct ts_loaded_curve c;
    if (ts_loaded_latency_measure(topo, &probes, node, node, &opt, &c, err) != TS_OK)
        return 2;
    printf("latency %.3f %.3f cpu %d placed %g\n", c.points[0].ns_median, c.points[0].ns_best, c.chaser_cpu,
           c.placement.fraction);
    return 0;
}

static void reset(void *line)
{
    ts_pingpong_reset(line);
}

static uint64_t ping(void *line, uint64_t rounds)
{
    return ts_pingpong_ping(line, rounds);
}

static uint64_t answer(void *line)
{
    return ts_pingpong_answer(line);
}

static void stop(void *line)
{
    ts_pingpong_stop(line);
}

static int c2c(const ts_topology *topo, char **argv, struct ts_error *err)
{
    const struct ts_c2c_probes probes = { sizeof(struct ts_pingpong), reset, ping, answer, stop };
    const struct ts_c2c_options opt = {
        .rounds = strtoull(argv[4], NULL, 10),
        .sample_seconds = 1e9, /* ROUNDS as given, as the plain ping-pong's */
        .samples = atoi(argv[5]),
        .seconds_per_pair = 1e9,
        .pair_a = atoi(argv[2]),
        .pair_b = atoi(argv[3]),
    };
    struct ts_c2c m;
    if (ts_c2c_measure(topo, &probes, &opt, &m, err) != TS_OK)
        return 2;
    double ns = -1;
    for (int i = 0; i < m.n; i++)
        for (int j = 0; j < m.n; j++)
            if (m.cpus[i].cpu == opt.pair_a && m.cpus[j].cpu == opt.pair_b)
                ns = m.ns[(size_t)i * (size_t)m.n + (size_t)j];
    ts_c2c_free(&m);
    if (!(ns > 0)) {
        fprintf(stderr, "no pair (%d, %d) measured\n", opt.pair_a, opt.pair_b);
        return 2;
    }
    printf("pingpong %.3f\n", ns);
    return 0;
}

int main(int argc, char **argv)
{
    const int is_idle = argc == 6 && strcmp(argv[1], "idle") == 0;
    const int is_c2c = argc == 6 && strcmp(argv[1], "c2c") == 0;
    if (!is_idle && !is_c2c) {
        fprintf(stderr, "usage: %s idle BYTES STEPS REPETITIONS NODE | c2c CPU_A CPU_B ROUNDS SAMPLES\n", argv[0]);
        return 2;
    }
    ts_topology *topo = NULL;
    struct ts_error err = { 0 };
    if (ts_topology_create(&topo, &err) != TS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    int rc = is_idle ? idle(topo, argv, &err) : c2c(topo, argv, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    ts_topology_destroy(topo);
    return rc;
}
