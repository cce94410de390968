/* The default binding for `run` without a re-execution (issue 28: the second process start
 * was the largest part of a default run's fixed cost).
 *
 * libgomp reads OMP_PLACES and OMP_PROC_BIND once, in its constructor, before main; a value from
 * the config can only reach it by re-executing (app/binding.h). For the defaults, which most
 * runs ask for (configs/default.ini writes them out), the answer can be given as it asks:
 * libgomp asks with getenv, and the executable defines getenv, to which the dynamic linker binds
 * every library's calls (the executable is first in its lookup order). From the program's start
 * until main calls ts_early_binding_taken, this getenv answers "cores" and "close" for the two
 * names when the command is `run` and the environment has neither; every other name, and these
 * two afterwards, it answers from the environment as libc does. The environment itself is never
 * changed, so nothing a run starts inherits the answer as a user's setting.
 *
 * A runtime that reads its environment otherwise (LLVM's libomp, libgomp from GCC 13 on, which
 * walk environ) never asks: the run re-executes as for any other binding, and main also checks
 * what the runtime applied (omp_get_proc_bind, its places) before it keeps it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "early.h"

extern char **environ;

static int answering; /* the defaults are given for the two names */
static int answered;  /* the runtime asked for one and got it */

static char default_places[] = TS_EARLY_PLACES;
static char default_proc_bind[] = TS_EARLY_PROC_BIND;

static int names(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* Run from the executable's .preinit_array, before any library's constructor: glibc passes it
 * the program's arguments and the environment it started with. */
static void decide(int argc, char **argv, char **envp)
{
    if (argc < 2 || !argv || !argv[1] || strcmp(argv[1], "run") != 0)
        return;
    for (char **e = envp; e && *e; e++)
        if (names(*e, "OMP_PLACES") || names(*e, "OMP_PROC_BIND"))
            return; /* the user's, even empty: the environment wins (docs/how-it-works.md) */
    answering = 1;
}
__attribute__((section(".preinit_array"), used)) static void (*const decide_first)(int, char **, char **) = decide;

/* The default for name while answering, NULL for any other name or afterwards. */
static char *default_for(const char *name)
{
    if (!answering)
        return NULL;
    if (strcmp(name, "OMP_PLACES") == 0)
        return default_places;
    if (strcmp(name, "OMP_PROC_BIND") == 0)
        return default_proc_bind;
    return NULL;
}

char *getenv(const char *name)
{
    if (!*name)
        return NULL;
    char *given = default_for(name);
    if (given) {
        answered = 1;
        return given;
    }
    for (char **e = environ; e && *e; e++)
        if (names(*e, name))
            return *e + strlen(name) + 1;
    return NULL;
}

int ts_early_binding_taken(void)
{
    answering = 0;
    return answered;
}
