/* Synthetic run records and scratch directories shared by the io tests. */
#ifndef TOUCHSTONE_TESTS_IO_IO_FIXTURE_H
#define TOUCHSTONE_TESTS_IO_IO_FIXTURE_H

#include <stddef.h>
#include <stdio.h>

#include "ts_record.h"
#include "ts_survey_rec.h"
#include "ts_test.h"

enum { FX_NUMA = 2, FX_THREADS = 3, FX_ITER = 5, FX_WARMUP = 2, FX_NY = 4, FX_NX = 5 };

/* Owns every array the record points to. */
struct io_fixture {
    struct ts_record rec;
    struct ts_topology_rec topo;
    struct ts_numa_rec numa[FX_NUMA];
    int32_t distances[FX_NUMA * FX_NUMA];
    struct ts_core_rec cores[4];
    struct ts_cache_rec caches[3];
    struct ts_thread_rec threads[FX_THREADS];
    struct ts_timings_rec timings;
    double warmup[FX_WARMUP];
    double iteration[FX_ITER];
    double thread_iteration[FX_THREADS * FX_ITER];
    struct ts_results_rec results;
    double thread_partials[FX_THREADS];
    int32_t node_ids[FX_NUMA];
    double node_partials[FX_NUMA];
    struct ts_verification_rec verification;
    struct ts_attr config[3];
    struct ts_attr environment[2];
    struct ts_attr binding[2];
    double field[FX_NY * FX_NX];
    const char *warnings[2];
    const char *summary[2];
    struct ts_counter_row counter_rows[FX_THREADS];
    struct ts_machine_rec machine;
    struct ts_machine_rec init_machine;
    struct ts_init_memory_rec init_memory;
    struct ts_counters_rec counters;
    /* /mpi, pointed to only by io_fixture_mpi */
    struct ts_mpi_rec mpi;
    struct ts_rank_rec ranks[FX_THREADS];
    double rank_iteration[FX_THREADS * FX_ITER];
    double rank_halo_iteration[FX_THREADS * FX_ITER];
};

extern const char io_config_text[];

/* Everything filled: a 2D stencil run with a 4x5 field, two warnings, counters with the
 * machine's (over the iterations and over the first touch, with the kernel's memory management
 * then: a quiet init), and a two-line summary. */
void io_fixture_full(struct io_fixture *f);
/* An array-sum run: no field, no warnings, no counters, an empty summary, NaN GLUP/s, and a
 * 200 kB config text. */
void io_fixture_minimal(struct io_fixture *f);

/* The full record run by 3 ranks of one thread each (FX_THREADS), ranks 0 and 1 on node-a, 2 on
 * node-b (one kernel: an emulated cluster), the 5 x 4 grid decomposed 3x1; times in 1/1024 s,
 * exact in binary: rank k's iteration i took (2 + i + k) / 1024 s, of which 1/4096 s in the
 * halo exchange. */
void io_fixture_mpi(struct io_fixture *f);

/* Three survey sections (issue 26) into s (s->sections allocated; ts_survey_free frees them),
 * one of each plot kind: "sweep" (LINES of gbs against bytes, log x, one curve per kernel, and
 * BARS; a NaN cell, a text cell of invalid UTF-8 that reads back as "??"), "c2c" (HEAT of ns over
 * cpu_b x cpu_a, boundaries node_a,core_a; a NaN cell; misplaced and disturbed), "stream" (BARS
 * grouped by placement). hostile: every text (titles, summary, note, conditions, command, cells,
 * units, plot titles, fact units) holds markup and quotes a report must escape. */
void io_fixture_sections(struct ts_survey_rec *s, int hostile);

/* A fresh directory under $TMPDIR (or /tmp); io_dir_remove deletes it and its files. */
void io_dir_make(char *dir, size_t size);
void io_dir_remove(const char *dir);
/* Number of entries in dir other than . and .., or -1 when it cannot be read. */
int io_dir_entries(const char *dir);

/* Runs fn(arg) with stderr sent to a scratch file; returns how many bytes it printed there. */
long io_stderr_bytes(void (*fn)(void *), void *arg);

#endif
