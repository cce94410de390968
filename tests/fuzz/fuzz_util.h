/* Shared by the libFuzzer harnesses (docs/testing.md, "Fuzzing"). A harness is one function,
 * LLVMFuzzerTestOneInput, linked either with libFuzzer (clang, TOUCHSTONE_FUZZ) or with
 * replay_main.c, which runs it over files: the regression cases and seed corpora replay
 * in every build, sanitized or not. */
#ifndef TOUCHSTONE_TESTS_FUZZ_FUZZ_UTIL_H
#define TOUCHSTONE_TESTS_FUZZ_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of our code on this input: print it and abort, which libFuzzer (and the
 * replay) report as a crash whose top frame is the harness, so it counts as ours. */
#define FUZZ_CHECK(cond, ...)                                                                                          \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: fuzz check failed: %s: ", __FILE__, __LINE__, #cond);                              \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* A file in memory (memfd) with a path that opens it, "/proc/self/fd/N", for the APIs that
 * take a path (ts_config_load, ts_checkpoint_restore): no disk, nothing left behind. The
 * file is created once per process and rewritten for every input. */
const char *fuzz_memfile(const uint8_t *data, size_t size);

/* Whether an HDF5 file image holds a global heap collection (where variable-length strings
 * live) that HDF5 1.10 reads without checking its objects: a free-space object of size 0 makes
 * it loop forever, an object larger than the collection makes it read past it. The harnesses
 * that read files skip such inputs: what touchstone's commands answer to both (a message, from
 * the child process that reads) is tested by cli.bad_files (heap_loop, heap_crash), and in a
 * harness each would only end the run (a hang costs libFuzzer's -timeout every time). */
int fuzz_hdf5_heap_known_bad(const uint8_t *data, size_t size);

/* FUZZ_VERBOSE=1 in the environment: each input's outcome on stderr (for replays). */
void fuzz_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
