/* STREAM's four kernels (kernels/ts_stream_kernels.h): each computes its formula, element by
 * element, on the range it is given and nothing else; the values the table promises are those
 * of STREAM's first iteration, computed here from its chain; the check finds a missed, wrong or
 * NaN element; the byte counts are STREAM's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts_stream_kernels.h"
#include "ts_test.h"

#define N 1003 /* odd: no vector width divides it */

struct arrays {
    double a[N], b[N], c[N];
};

/* STREAM's names in the kernel's order ("b,c,a") to our arrays. */
static void bind(const struct ts_stream_kernel *k, struct arrays *x, double *out[3])
{
    const char *p = k->array_names;
    for (int j = 0; j < k->n_arrays; j++, p += 2)
        out[j] = *p == 'a' ? x->a : *p == 'b' ? x->b : x->c;
}

/* STREAM's first iteration on scalars (stream.c: a = 1, b = 2, c = 0, then a = 2 a). */
static void stream_chain(double *copy, double *scale, double *add, double *triad)
{
    double a = 2.0 * 1.0, b = 2.0, c = 0.0;
    const double s = 3.0;
    c = a;
    *copy = c;
    b = s * c;
    *scale = b;
    c = a + b;
    *add = c;
    a = b + s * c;
    *triad = a;
}

static void table_is_streams(void)
{
    double expected[TS_STREAM_COUNT];
    stream_chain(&expected[0], &expected[1], &expected[2], &expected[3]);
    static const char *names[] = { "Copy", "Scale", "Add", "Triad" };
    static const double bytes[] = { 16, 16, 24, 24 };
    static const int arrays[] = { 2, 2, 3, 3 };
    for (int id = 0; id < TS_STREAM_COUNT; id++) {
        const struct ts_stream_kernel *k = ts_stream_kernel(id);
        REQUIRE(k != NULL && (int)k->id == id, "kernel %d missing from the table", id);
        CHECK(strcmp(k->name, names[id]) == 0, "kernel %d is named %s, STREAM's %s", id, k->name, names[id]);
        CHECK(k->bytes_per_elem == bytes[id], "%s counts %g B/element, STREAM %g", k->name, k->bytes_per_elem,
              bytes[id]);
        CHECK(k->n_arrays == arrays[id], "%s touches %d arrays, not %d", k->name, k->n_arrays, arrays[id]);
        CHECK(k->expected == expected[id], "%s promises %g, STREAM's first iteration makes %g", k->name, k->expected,
              expected[id]);
        CHECK(k->expected != 0.0, "%s's output would not tell a missed element from a written one", k->name);
    }
    CHECK(ts_stream_kernel(TS_STREAM_COUNT) == NULL && ts_stream_kernel(-1) == NULL, "ids out of range are kernels");
}

/* The formula on inputs of any values, element by element, as STREAM writes it. */
static void computes_formula(void)
{
    for (int id = 0; id < TS_STREAM_COUNT; id++) {
        const struct ts_stream_kernel *k = ts_stream_kernel(id);
        static struct arrays x;
        for (int i = 0; i < N; i++) {
            x.a[i] = 0.5 * i + 1.0;
            x.b[i] = 1.0 / (i + 3.0);
            x.c[i] = -0.25 * i;
        }
        const struct arrays in = x;
        double *arr[3];
        bind(k, &x, arr);
        ts_stream_step(k, arr, 0, N);
        int64_t wrong = 0;
        for (int i = 0; i < N; i++) {
            const double s = 3.0;
            switch (id) {
            case TS_STREAM_COPY: wrong += x.c[i] != in.a[i] || x.a[i] != in.a[i] || x.b[i] != in.b[i]; break;
            case TS_STREAM_SCALE: wrong += x.b[i] != s * in.c[i] || x.a[i] != in.a[i] || x.c[i] != in.c[i]; break;
            case TS_STREAM_ADD: wrong += x.c[i] != in.a[i] + in.b[i] || x.a[i] != in.a[i] || x.b[i] != in.b[i]; break;
            default: wrong += x.a[i] != in.b[i] + s * in.c[i] || x.b[i] != in.b[i] || x.c[i] != in.c[i]; break;
            }
        }
        CHECK(wrong == 0, "%s (%s): %lld elements differ from the formula", k->name, k->formula, (long long)wrong);
    }
}

/* Init and step in two shares (two threads' chunks), the step repeated: the check passes; a
 * range not swept, one element off by 1e-12, or a NaN are found, each counted once. */
static void check_finds_what_is_off(void)
{
    for (int id = 0; id < TS_STREAM_COUNT; id++) {
        const struct ts_stream_kernel *k = ts_stream_kernel(id);
        static struct arrays x;
        double *arr[3];
        bind(k, &x, arr);
        ts_stream_init(k, arr, 0, 500);
        ts_stream_init(k, arr, 500, N);
        CHECK(ts_stream_check(k, arr, 0, N) == N, "%s: before a sweep the output should be off everywhere", k->name);
        for (int r = 0; r < 3; r++) {
            ts_stream_step(k, arr, 0, 500);
            ts_stream_step(k, arr, 500, N);
        }
        CHECK(ts_stream_check(k, arr, 0, N) == 0, "%s: %lld elements off after three sweeps", k->name,
              (long long)ts_stream_check(k, arr, 0, N));
        double *out = arr[k->n_arrays - 1];
        CHECK(out[0] == k->expected && out[N - 1] == k->expected, "%s: output %g, %g, expected %g", k->name, out[0],
              out[N - 1], k->expected);

        ts_stream_init(k, arr, 0, N);
        ts_stream_step(k, arr, 100, 200);
        CHECK(ts_stream_check(k, arr, 100, 200) == 0 && ts_stream_check(k, arr, 0, 100) == 100
                  && ts_stream_check(k, arr, 200, N) == N - 200,
              "%s: the step wrote outside [100, 200) or missed some of it", k->name);

        ts_stream_step(k, arr, 0, N);
        arr[0][7] *= 1.0 + 1e-12;
        out[9] = NAN;
        CHECK(ts_stream_check(k, arr, 0, N) == 2, "%s: an input off by 1e-12 and a NaN output: %lld found, not 2",
              k->name, (long long)ts_stream_check(k, arr, 0, N));
        CHECK(ts_stream_check(k, arr, 10, N) == 0, "%s: the check looked outside its range", k->name);
    }
}

int main(void)
{
    table_is_streams();
    computes_formula();
    check_finds_what_is_off();
    return ts_test_finish();
}
