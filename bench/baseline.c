/* The obvious sum, for bench/run.sh: each thread adds its static chunk into one accumulator,
 * in order, as plain C without -ffast-math compiles it. Every add waits for the previous one,
 * so it is bound by the add latency rather than by memory; this is what touchstone's
 * multi-lane block sums are measured against.
 *
 *     bench_baseline ELEMENTS ITERATIONS     prints "GB/s <mean over the iterations>" */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ELEMENTS ITERATIONS\n", argv[0]);
        return 2;
    }
    const int64_t n = strtoll(argv[1], NULL, 10), iterations = strtoll(argv[2], NULL, 10);
    double *x = aligned_alloc(2 << 20, ((size_t)n * sizeof *x + (2 << 20) - 1) / (2 << 20) * (2 << 20));
    if (!x || n < 1 || iterations < 1)
        return 2;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        x[i] = (double)(i % 1000) * 0.001;

    double total = 0.0, seconds = 0.0;
    for (int64_t it = -1; it < iterations; it++) { /* iteration -1 warms up */
        double sum = 0.0, t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (int64_t i = 0; i < n; i++)
            sum += x[i];
        if (it >= 0)
            seconds += omp_get_wtime() - t0;
        total += sum;
    }
    printf("GB/s %.4f\n", (double)n * 8.0 * (double)iterations / seconds * 1e-9);
    fprintf(stderr, "checksum %.17g\n", total); /* keeps the sums alive */
    free(x);
    return 0;
}
