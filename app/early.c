/* libts_early.so: sets OMP_PLACES and OMP_PROC_BIND for `run` before the OpenMP runtime reads
 * them, so that a run whose config asks for the defaults needs no re-execution (app/binding.h).
 *
 * libgomp reads its environment once, in its constructor. The executable's .preinit_array runs
 * earlier but too early: libc's own start-up then resets the environment to the stack's array
 * and the variables are lost. A shared library's constructor runs after libc's, and glibc runs
 * it before libgomp's when the library follows libgomp among the executable's DT_NEEDED entries
 * (app/CMakeLists.txt links it so; tests/cli/test_binding.sh checks that a default run is not
 * re-executed). Where a loader orders them otherwise, libgomp never sees the variables: main
 * asks the runtime what it applied and re-executes as before.
 *
 * Nothing is decided here: main judges the variables against the config, keeps them or
 * re-executes, and removes them from the environment either way (the marker tells them from a
 * user's). The library needs libc alone and exports nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "early.h"

/* glibc passes a shared library's constructors the program's arguments and environment. */
__attribute__((constructor)) static void set_default_binding(int argc, char **argv, char **envp)
{
    (void)envp;
    /* Only run binds; a user's variable (even an empty one) is the user's to keep, and a marker
     * already there is main's to judge (one inherited, or set by hand). */
    if (argc < 2 || !argv || !argv[1] || strcmp(argv[1], "run") != 0 || getenv("OMP_PLACES") || getenv("OMP_PROC_BIND")
        || getenv(TS_EARLY_MARKER))
        return;
    char marker[96];
    snprintf(marker, sizeof marker, TS_EARLY_MARKER_FORMAT, (long long)getpid(), TS_EARLY_PROC_BIND, TS_EARLY_PLACES);
    /* All three or none: a half-set binding would read as the user's. */
    if (setenv(TS_EARLY_MARKER, marker, 1) != 0)
        return;
    if (setenv("OMP_PLACES", TS_EARLY_PLACES, 1) != 0 || setenv("OMP_PROC_BIND", TS_EARLY_PROC_BIND, 1) != 0) {
        unsetenv("OMP_PLACES");
        unsetenv(TS_EARLY_MARKER);
    }
}
