/* Preloaded by test_unlaunched.sh: MPI_Init and MPI_Init_thread append their name and the
 * process id to the file MPI_SPY names before calling the real ones, so that a test sees
 * whether touchstone started MPI (it must not without a launcher). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void note(const char *what)
{
    const char *path = getenv("MPI_SPY");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (f) {
        fprintf(f, "%s %ld\n", what, (long)getpid());
        fclose(f);
    }
}

int MPI_Init(int *argc, char ***argv)
{
    int (*real)(int *, char ***);
    *(void **)&real = dlsym(RTLD_NEXT, "MPI_Init");
    note("MPI_Init");
    return real ? real(argc, argv) : 1;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int (*real)(int *, char ***, int, int *);
    *(void **)&real = dlsym(RTLD_NEXT, "MPI_Init_thread");
    note("MPI_Init_thread");
    return real ? real(argc, argv, required, provided) : 1;
}
