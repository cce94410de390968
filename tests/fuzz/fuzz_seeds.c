/* Writes the checkpoint seeds of the checkpoint harness with touchstone's own writer
 * (ts_checkpoint_write), one per run of checkpoint_cases.h, plus one with no step done:
 *   fuzz_seeds DIR
 * The run-file seeds come from real runs (seeds.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_cases.h"
#include "ts_checkpoint.h"

static int write_case(const char *dir, const struct ckpt_case *c, int64_t steps_done)
{
    struct ts_attr config[6] = { { "", "" } };
    int32_t n = 0;
    for (; n < 4; n++) {
        snprintf(config[n].name, sizeof config[n].name, "%s", c->keys[n][0]);
        snprintf(config[n].value, sizeof config[n].value, "%s", c->keys[n][1]);
    }
    snprintf(config[n].name, sizeof config[n].name, "openmp.threads");
    snprintf(config[n++].value, sizeof config[0].value, "%d", c->n_threads);
    snprintf(config[n].name, sizeof config[n].name, "output.file");
    snprintf(config[n++].value, sizeof config[0].value, "run-%s.h5", c->kernel);

    size_t cells = (size_t)(c->field_dims[0] * c->field_dims[1] * c->field_dims[2]);
    size_t steps_max = (size_t)(c->n_warmup + c->n_iterations);
    size_t thread_values = (size_t)c->n_threads * (size_t)c->n_iterations;
    double *field = cells ? malloc(cells * sizeof *field) : NULL;
    double *steps = malloc(steps_max * sizeof *steps), *threads = malloc(thread_values * sizeof *threads);
    for (size_t i = 0; i < cells; i++)
        field[i] = sin(0.1 * (double)i);
    for (size_t i = 0; i < steps_max; i++)
        steps[i] = 1e-3 * (double)(i + 1);
    for (size_t i = 0; i < thread_values; i++)
        threads[i] = i % 3 ? 1e-3 * (double)i : NAN; /* NaN: an iteration not done yet */

    char text[256];
    snprintf(text, sizeof text, "[run]\nkernel = %s\n", c->kernel);
    struct ts_checkpoint ck = {
        .kernel = c->kernel, .steps_done = steps_done, .n_warmup = c->n_warmup, .n_iterations = c->n_iterations,
        .n_threads = c->n_threads, .config = config, .n_config = n, .config_text = text, .step_times = steps,
        .thread_times = threads, .field = field,
        .field_dims = { c->field_dims[0], c->field_dims[1], c->field_dims[2] },
    };
    char path[4096];
    snprintf(path, sizeof path, "%s/ckpt-%s-%lld.h5", dir, c->kernel, (long long)steps_done);
    struct ts_error err;
    ts_error_clear(&err);
    int status = ts_checkpoint_write(&ck, path, &err);
    if (status != TS_OK)
        fprintf(stderr, "fuzz_seeds: %s\n", err.message);
    free(field);
    free(steps);
    free(threads);
    return status;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return fprintf(stderr, "usage: fuzz_seeds DIR\n"), 2;
    int status = 0;
    for (size_t i = 0; i < N_CKPT_CASES; i++)
        status |= write_case(argv[1], &ckpt_cases[i], ckpt_cases[i].steps_done);
    status |= write_case(argv[1], &ckpt_cases[0], 0);
    return status ? 1 : 0;
}
