/* The runs the checkpoint harness restores into, and that fuzz_seeds writes checkpoints of:
 * one table, so the seeds are checkpoints the harness's runs accept and the fuzzer starts
 * from files that get past every check. */
#ifndef TOUCHSTONE_TESTS_FUZZ_CHECKPOINT_CASES_H
#define TOUCHSTONE_TESTS_FUZZ_CHECKPOINT_CASES_H

#include <stdint.h>

struct ckpt_case {
    const char *kernel;
    int64_t n_warmup, n_iterations;
    int32_t n_threads;
    int64_t field_dims[3];  /* nz, ny, nx; all 0 without a field */
    int64_t steps_done;     /* of the seed */
    const char *keys[4][2]; /* the keys that must match, as ts_config_attrs writes them */
};

static const struct ckpt_case ckpt_cases[] = {
    { "stencil2d",
      1,
      6,
      2,
      { 1, 6, 7 },
      3,
      { { "run.kernel", "stencil2d" }, { "stencil.nx", "7" }, { "stencil.ny", "6" }, { "init.seed", "1" } } },
    { "stencil3d",
      0,
      4,
      1,
      { 3, 4, 5 },
      2,
      { { "run.kernel", "stencil3d" }, { "stencil.nx", "5" }, { "stencil.ny", "4" }, { "stencil.nz", "3" } } },
    { "sum",
      2,
      5,
      3,
      { 0, 0, 0 },
      4,
      { { "run.kernel", "sum" }, { "sum.n", "1000" }, { "sum.mode", "reproducible" }, { "init.seed", "7" } } },
};

#define N_CKPT_CASES (sizeof ckpt_cases / sizeof ckpt_cases[0])

#endif
