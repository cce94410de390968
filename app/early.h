/* The default binding applied without a re-execution (app/early.c): for `run`, when the
 * environment has neither OMP_PLACES nor OMP_PROC_BIND, the OpenMP runtime is told the defaults
 * as it starts, before main. */
#ifndef TOUCHSTONE_APP_EARLY_H
#define TOUCHSTONE_APP_EARLY_H

/* The built-in defaults of openmp.places and openmp.proc_bind (what configs/default.ini writes
 * out): the binding a default run asks for. */
#define TS_EARLY_PLACES "cores"
#define TS_EARLY_PROC_BIND "close"

/* First in main: stops answering the defaults (from now on getenv is the environment's alone)
 * and returns 1 when the runtime asked for them and was given them, 0 otherwise (not `run`, a
 * variable in the environment, or a runtime that reads its environment another way). */
int ts_early_binding_taken(void);

#endif
