#include "ts_stream_kernels.h"

#include <math.h>
#include <stddef.h>

/* STREAM starts a = 1, b = 2, c = 0 and doubles a before timing; its first iteration then
 * leaves c = a = 2 (Copy), b = 3 c = 6 (Scale), c = a + b = 8 (Add), a = b + 3 c = 30 (Triad).
 * Each kernel here gets the inputs it sees there. */
static const struct ts_stream_kernel table[TS_STREAM_COUNT] = {
    { TS_STREAM_COPY,
      "Copy",
      "c = a",
      2,
      16.0,
      "16 B/element (read a, write c; no write-allocate, as STREAM)",
      "a,c",
      { 2.0, 0.0 },
      2.0 },
    { TS_STREAM_SCALE,
      "Scale",
      "b = s c",
      2,
      16.0,
      "16 B/element (read c, write b; no write-allocate, as STREAM)",
      "c,b",
      { 2.0, 0.0 },
      6.0 },
    { TS_STREAM_ADD,
      "Add",
      "c = a + b",
      3,
      24.0,
      "24 B/element (read a and b, write c; no write-allocate, as STREAM)",
      "a,b,c",
      { 2.0, 6.0 },
      8.0 },
    { TS_STREAM_TRIAD,
      "Triad",
      "a = b + s c",
      3,
      24.0,
      "24 B/element (read b and c, write a; no write-allocate, as STREAM)",
      "b,c,a",
      { 6.0, 8.0 },
      30.0 },
};

const struct ts_stream_kernel *ts_stream_kernel(enum ts_stream_id id)
{
    return id >= 0 && id < TS_STREAM_COUNT ? &table[id] : NULL;
}

void ts_stream_init(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    const struct ts_stream_kernel *k = ctx;
    for (int j = 0; j < k->n_arrays; j++) {
        double *restrict x = arrays[j];
        const double v = j == k->n_arrays - 1 ? 0.0 : k->input[j];
        for (int64_t i = begin; i < end; i++)
            x[i] = v;
    }
}

/* The loops as stream.c writes them, each its own function so the compiler sees restrict
 * arrays as STREAM's static ones: no aliasing, vectorised the same way. */
static void copy(const double *restrict a, double *restrict c, int64_t begin, int64_t end)
{
    for (int64_t j = begin; j < end; j++)
        c[j] = a[j];
}

static void scale(const double *restrict c, double *restrict b, int64_t begin, int64_t end)
{
    const double s = TS_STREAM_SCALAR;
    for (int64_t j = begin; j < end; j++)
        b[j] = s * c[j];
}

static void add(const double *restrict a, const double *restrict b, double *restrict c, int64_t begin, int64_t end)
{
    for (int64_t j = begin; j < end; j++)
        c[j] = a[j] + b[j];
}

static void triad(const double *restrict b, const double *restrict c, double *restrict a, int64_t begin, int64_t end)
{
    const double s = TS_STREAM_SCALAR;
    for (int64_t j = begin; j < end; j++)
        a[j] = b[j] + s * c[j];
}

void ts_stream_step(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    const struct ts_stream_kernel *k = ctx;
    switch (k->id) {
    case TS_STREAM_COPY: copy(arrays[0], arrays[1], begin, end); break;
    case TS_STREAM_SCALE: scale(arrays[0], arrays[1], begin, end); break;
    case TS_STREAM_ADD: add(arrays[0], arrays[1], arrays[2], begin, end); break;
    case TS_STREAM_TRIAD: triad(arrays[0], arrays[1], arrays[2], begin, end); break;
    default: break;
    }
}

static int64_t off(const double *x, double expected, int64_t begin, int64_t end)
{
    int64_t n = 0;
    for (int64_t i = begin; i < end; i++)
        n += !(fabs(x[i] - expected) <= TS_STREAM_EPSILON * fabs(expected));
    return n;
}

int64_t ts_stream_check(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    const struct ts_stream_kernel *k = ctx;
    int64_t n = 0;
    for (int j = 0; j < k->n_arrays; j++)
        n += off(arrays[j], j == k->n_arrays - 1 ? k->expected : k->input[j], begin, end);
    return n;
}
