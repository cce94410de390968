/* The reader on damaged copies of a real run file, in memory (ts_run_read_image, the entry
 * point a fuzzer will use):
 *   read_sweep FILE
 * 1. the intact image reads exactly as the file on disk does;
 * 2. every truncation (at 64 lengths across the file, and the first 16 bytes) is refused, in
 *    this process: HDF5 checks the file's length when it opens it;
 * 3. 16 bytes of 0xff written at 64 places across the file either still read or are refused
 *    with a message naming the file, read as the commands read (in a child process, where
 *    HDF5 may crash or hang): never a success with values outside the schema;
 * 4. every variable-length string's stored length set to 2 GiB is refused, in this process,
 *    before HDF5 sizes a buffer from it (HDF5 1.10 trusts that length: io/h5_vlen_bound.c).
 * A reading takes a fork here, about 50 ms on a small VM: 64 places keep the test short.
 * Prints what happened; exit status 1 when a check failed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_run_read.h"
#include "ts_test.h"

#define NAME "image.h5"

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0
        && (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    *n = size > 0 ? (size_t)size : 0;
    return buf;
}

static int same(const struct ts_run_summary *a, const struct ts_run_summary *b)
{
    size_t iters = (size_t)a->n_iterations, values = iters * (size_t)a->n_threads;
    return a->n_iterations == b->n_iterations && a->n_threads == b->n_threads && strcmp(a->kernel, b->kernel) == 0
           && strcmp(a->host, b->host) == 0 && a->time_median == b->time_median && a->gbs_median == b->gbs_median
           && a->global == b->global && memcmp(a->iteration, b->iteration, iters * sizeof(double)) == 0
           && memcmp(a->thread_iteration, b->thread_iteration, values * sizeof(double)) == 0;
}

/* What a read that succeeded hands out must still be within the schema. */
static int sane(const struct ts_run_summary *s)
{
    for (int64_t i = 0; i < s->n_iterations; i++)
        if (!(s->iteration[i] >= 0) || !isfinite(s->iteration[i]))
            return 0;
    return s->n_threads >= 1 && s->n_iterations >= 1 && s->time_min <= s->time_median;
}

struct image {
    const unsigned char *bytes;
    size_t n;
};

static int read_image(const void *ctx, struct ts_run_summary *out, struct ts_error *err)
{
    const struct image *im = ctx;
    return ts_run_read_image(im->bytes, im->n, NAME, out, err);
}

static int crashes, hangs;

/* One damaged image: refused with the file named, or read and sane. Returns 1 when read. */
static int damaged(const unsigned char *bytes, size_t n, int isolated, const char *what, size_t at)
{
    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    struct image im = { bytes, n };
    int st = isolated ? ts_run_read_isolated(read_image, &im, NAME, (struct ts_read_limits){ .seconds = 2 }, &s, &err)
                      : read_image(&im, &s, &err);
    crashes += strstr(err.message, "HDF5 crashed") != NULL;
    hangs += strstr(err.message, "HDF5 did not finish") != NULL;
    if (st == TS_OK) {
        CHECK(sane(&s), "%s (at byte %zu)", what, at);
        ts_run_summary_free(&s);
        return 1;
    }
    CHECK(st == TS_BAD_INPUT && strncmp(err.message, NAME ": ", strlen(NAME) + 2) == 0, "%s (at byte %zu)", what, at);
    CHECK(s.iteration == NULL && s.thread_iteration == NULL, "nothing left allocated after a failure (at byte %zu)",
          at);
    return 0;
}

static uint64_t little_endian(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Sets the stored length of every variable-length string descriptor (length in 4 bytes, the
 * address of a global heap collection in 8, an index in 4) to 2 GiB; returns how many. The
 * collections are found by their signature, the descriptors by an address among them. */
static int lengthen_strings(unsigned char *bytes, size_t n)
{
    size_t heaps[64];
    int n_heaps = 0, n_strings = 0;
    for (size_t at = 0; at + 4 <= n && n_heaps < 64; at++)
        if (memcmp(bytes + at, "GCOL", 4) == 0)
            heaps[n_heaps++] = at;
    for (size_t at = 0; at + 16 <= n; at++) {
        uint64_t length = little_endian(bytes + at, 4), address = little_endian(bytes + at + 4, 8);
        for (int h = 0; length > 0 && length < 4096 && h < n_heaps; h++)
            if (address == heaps[h]) {
                memcpy(bytes + at, "\xff\xff\xff\x7f", 4);
                n_strings++;
                break;
            }
    }
    return n_strings;
}

int main(int argc, char **argv)
{
    size_t n = 0;
    unsigned char *bytes = argc == 2 ? slurp(argv[1], &n) : NULL;
    if (!bytes)
        return fprintf(stderr, "usage: read_sweep FILE (a readable run file)\n"), 2;

    struct ts_run_summary disk, image;
    struct ts_error err;
    ts_error_clear(&err);
    CHECK(ts_run_read_file(argv[1], &disk, &err) == TS_OK, "the file reads from disk");
    CHECK(ts_run_read_image(bytes, n, NAME, &image, &err) == TS_OK, "the intact image reads");
    if (ts_test_failures)
        fprintf(stderr, "%s\n", err.message);
    else
        CHECK(same(&disk, &image), "image and file read the same");

    int truncated_read = 0;
    for (size_t len = 0; len < n; len += len < 16 ? 1 : n / 64 + 1)
        truncated_read += damaged(bytes, len, 0, "a truncated image is refused", len);
    CHECK(truncated_read == 0, "no truncation reads");

    unsigned char *copy = malloc(n);
    int read = 0, refused = 0;
    for (size_t k = 0; copy && k < 64; k++) {
        size_t at = k * (n - 16) / 63;
        memcpy(copy, bytes, n);
        memset(copy + at, 0xff, 16);
        if (damaged(copy, n, 1, "a corrupted image is read sanely or refused", at))
            read++;
        else
            refused++;
    }
    printf("%zu-byte file: %d corrupted copies refused (HDF5 crashed on %d and looped on %d of them, in the child), "
           "%d still read (bytes the summary does not use)\n",
           n, refused, crashes, hangs, read);

    int strings = copy ? (memcpy(copy, bytes, n), lengthen_strings(copy, n)) : 0;
    CHECK(strings >= 3, "the run file's strings found (%d)", strings);
    struct ts_run_summary s;
    ts_error_clear(&err);
    CHECK(ts_run_read_image(copy, n, NAME, &s, &err) == TS_BAD_INPUT
              && strstr(err.message, "a variable-length string longer than the file it is in") != NULL,
          "strings of 2 GiB in a small file are refused: %s", err.message);
    printf("%d strings made 2 GiB long: %s\n", strings, err.message);
    free(copy);
    free(bytes);
    ts_run_summary_free(&disk);
    ts_run_summary_free(&image);
    return ts_test_finish();
}
