/* OMP_PLACES and OMP_PROC_BIND judged as the OpenMP runtime will read them on this machine,
 * before anything relies on them: libgomp prints "Invalid value" for a value it cannot use and
 * goes on without it, so a run would record a binding it never had. The judgement is
 * topo/ts_omp_model.h's model of libgomp on this machine's topology (docs/binding-model.md). */
#ifndef TOUCHSTONE_APP_OMP_ENV_H
#define TOUCHSTONE_APP_OMP_ENV_H

#include <stddef.h>

#include "ts_error.h"

/* The values as the messages name them, where they came from included: "OMP_PLACES=garbage",
 * "[openmp] places = {99} (run.ini:4)". */
struct ts_omp_env_names {
    const char *places;
    const char *proc_bind;
};

/* TS_OK when the runtime will apply places and proc_bind (either NULL or "": unset) as given;
 * TS_BAD_INPUT, naming the value, why the runtime refuses it and what it would apply instead,
 * when it would ignore one of them (a policy it does not know, places with a syntax error, a
 * CPU past the machine's, a count of zero, more than 65536 places). Places the job's CPUs do not
 * cover are not refused here: the runtime drops them and the run warns. TS_RESOURCE_ERROR or
 * TS_IO_ERROR when this machine's topology cannot be read. */
int ts_omp_env_judge(const char *places, const char *proc_bind, const struct ts_omp_env_names *names,
                     struct ts_error *err);

/* ts_omp_env_judge for the environment's OMP_PLACES and OMP_PROC_BIND. */
int ts_omp_env_check(struct ts_error *err);

/* An environment variable's value as a message can show it: unprintable bytes as '?', cut
 * with "..." to fit buf. Returns buf. */
const char *ts_omp_env_shown(const char *value, char *buf, size_t len);

#endif
