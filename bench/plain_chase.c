/* The idle-latency chase written the obvious way, for bench/run.sh and bench/peer_latency.sh to
 * hold touchstone's chases against: one index per 64-byte line, the lines linked into one random
 * cycle (Sattolo's shuffle), and `i = next[i]` in a loop, timed. One index a line, as lmbench's
 * lat_mem_rd and touchstone's chase (kernels/ts_chase.c) place them: with eight 8-byte indices a
 * line the random cycle revisits each line at random distances and some of those visits hit a
 * cache, a cache's latency mixed into memory's (on the 2-core Zen 5 VM, 64 MB: 162-174 ns against
 * 167-185 ns a line, 2026-12-05). The same buffer size in bytes and the same page kind (4 KiB
 * pages: MADV_NOHUGEPAGE) as the engine's 4 KiB-page latency, first touched by the thread that
 * chases, bound to CPU like the engine's.
 *
 *     bench_plain_chase BYTES STEPS REPETITIONS CPU
 *         prints "latency MEDIAN_NS BEST_NS": ns per step over REPETITIONS timed runs of STEPS
 *         steps, after one untimed lap */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity */
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

/* A line's bytes, and its indices: the chase uses the first of each line. */
#define LINE 64
#define PER_LINE (LINE / sizeof(size_t))

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s BYTES STEPS REPETITIONS CPU\n", argv[0]);
        return 2;
    }
    const size_t bytes = strtoull(argv[1], NULL, 10), n = bytes / LINE;
    const long long steps = strtoll(argv[2], NULL, 10);
    const int repetitions = atoi(argv[3]), cpu = atoi(argv[4]);
    if (n < 2 || steps < 1 || repetitions < 1 || repetitions > 64)
        return 2;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        return 2;
    }
    size_t *next = mmap(NULL, n * LINE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (next == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    madvise(next, n * LINE, MADV_NOHUGEPAGE);
    /* Sattolo over the lines: one cycle through all n; then each line's index names the next
     * line's first index. */
    for (size_t i = 0; i < n; i++)
        next[i * PER_LINE] = i;
    uint64_t x = 88172645463325252ull;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = (size_t)(x % i), t = next[i * PER_LINE];
        next[i * PER_LINE] = next[j * PER_LINE];
        next[j * PER_LINE] = t;
    }
    for (size_t i = 0; i < n; i++)
        next[i * PER_LINE] *= PER_LINE;
    size_t at = 0;
    for (long long s = 0; s < (long long)n && s < steps; s++) /* one untimed lap */
        at = next[at];
    double ns[64];
    for (int r = 0; r < repetitions; r++) {
        double t0 = now();
        for (long long s = 0; s < steps; s++)
            at = next[at];
        ns[r] = (now() - t0) * 1e9 / (double)steps;
    }
    qsort(ns, (size_t)repetitions, sizeof ns[0], by_value);
    const double median = repetitions % 2 ? ns[repetitions / 2] : 0.5 * (ns[repetitions / 2 - 1] + ns[repetitions / 2]);
    printf("latency %.3f %.3f\n", median, ns[0]);
    fprintf(stderr, "reached %zu\n", at); /* keeps the loads alive */
    munmap(next, n * LINE);
    return 0;
}
