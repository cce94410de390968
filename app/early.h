/* What libts_early.so (app/early.c) and main agree on: the binding the library's constructor
 * sets for `run` before the OpenMP runtime reads its environment, and the marker that says so.
 * The library depends on libc alone; this header is all it shares with the program. */
#ifndef TOUCHSTONE_APP_EARLY_H
#define TOUCHSTONE_APP_EARLY_H

/* The built-in defaults of openmp.places and openmp.proc_bind (what configs/default.ini writes
 * out): the binding a default run asks for. */
#define TS_EARLY_PLACES "cores"
#define TS_EARLY_PROC_BIND "close"

/* Set by the constructor next to the two variables: "pid=4321;OMP_PROC_BIND=close;OMP_PLACES=cores".
 * The pid tells this process's own from one inherited or set by hand. */
#define TS_EARLY_MARKER "TOUCHSTONE_EARLY_BINDING"
#define TS_EARLY_MARKER_FORMAT "pid=%lld;OMP_PROC_BIND=%s;OMP_PLACES=%s"

#endif
