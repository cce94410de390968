/* The core-to-core ping-pong written the obvious way, for bench/peer_latency.sh to hold the
 * survey's c2c section (topo/ts_c2c.c with kernels/ts_pingpong.h) against: two threads bound to
 * CPU_A and CPU_B with sched_setaffinity, one atomic counter alone on its page; A writes an
 * odd value and spins until B has written the next even one. A sample is ROUNDS round trips,
 * timed on A; the one-way latency is a round trip over two.
 *
 *     bench_plain_pingpong CPU_A CPU_B ROUNDS SAMPLES
 *         prints "pingpong MEDIAN_NS BEST_NS": one-way ns over SAMPLES samples, after one
 *         untimed sample */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setaffinity_np */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Alone on its page: a line with neighbours nearer than that ran at half the speed on the Zen 5
 * VM (bench/README.md). */
static struct {
    _Alignas(4096) _Atomic uint64_t v;
    char pad[4096 - sizeof(uint64_t)];
} line;
static long long rounds_total;

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

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *answer(void *arg)
{
    if (pin(*(int *)arg) != 0) {
        perror("pthread_setaffinity_np");
        exit(2);
    }
    for (long long r = 0; r < rounds_total; r++) {
        uint64_t odd = 2 * (uint64_t)r + 1;
        while (atomic_load_explicit(&line.v, memory_order_acquire) != odd)
            ;
        atomic_store_explicit(&line.v, odd + 1, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s CPU_A CPU_B ROUNDS SAMPLES\n", argv[0]);
        return 2;
    }
    int a = atoi(argv[1]), b = atoi(argv[2]);
    const long long rounds = strtoll(argv[3], NULL, 10);
    const int samples = atoi(argv[4]);
    if (rounds < 1 || samples < 1 || samples > 1000)
        return 2;
    rounds_total = rounds * (samples + 1);
    if (pin(a) != 0) {
        perror("pthread_setaffinity_np");
        return 2;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, answer, &b) != 0)
        return 2;
    double ns[1000];
    uint64_t v = 0;
    for (int s = 0; s <= samples; s++) { /* s = 0: untimed */
        double t0 = now();
        for (long long r = 0; r < rounds; r++) {
            atomic_store_explicit(&line.v, v + 1, memory_order_release);
            v += 2;
            while (atomic_load_explicit(&line.v, memory_order_acquire) != v)
                ;
        }
        if (s > 0)
            ns[s - 1] = (now() - t0) * 1e9 / (2.0 * (double)rounds);
    }
    pthread_join(t, NULL);
    qsort(ns, (size_t)samples, sizeof ns[0], by_value);
    const double median = samples % 2 ? ns[samples / 2] : 0.5 * (ns[samples / 2 - 1] + ns[samples / 2]);
    printf("pingpong %.3f %.3f\n", median, ns[0]);
    return 0;
}
