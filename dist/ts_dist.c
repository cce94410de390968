#include "ts_dist.h"

#include "dist_internal.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The variables a launcher sets in each process it starts, in the order they are looked for:
 * Open MPI's mpirun sets the first (and PMIX_RANK too), srun --mpi=pmix the second, MPICH's
 * Hydra and srun --mpi=pmi2 the PMI ones. */
static const char *const launcher_variables[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE" };

int ts_dist_launched(char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof launcher_variables / sizeof launcher_variables[0]; i++) {
        const char *value = getenv(launcher_variables[i]);
        if (value && *value) {
            snprintf(buf, len, "%s=%.32s", launcher_variables[i], value);
            return 1;
        }
    }
    if (len)
        buf[0] = '\0';
    return 0;
}

void ts_dist_library_version(char *buf, size_t len)
{
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    if (MPI_Get_library_version(library, &n) != MPI_SUCCESS)
        snprintf(library, sizeof library, "unknown (MPI_Get_library_version failed)");
    library[strcspn(library, "\n")] = '\0'; /* MPICH's runs over several lines */
    snprintf(buf, len, "%s", library);
}

/* The ranks the launcher announced, when it says (0 when it does not). */
static long announced_size(void)
{
    const char *names[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *value = getenv(names[i]);
        char *end;
        long n = value ? strtol(value, &end, 10) : 0;
        if (value && end != value && *end == '\0' && n > 0)
            return n;
    }
    return 0;
}

int ts_dist_mpi_failed(struct ts_error *err, int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(code, text, &len);
    return ts_fail(err, TS_INTERNAL_ERROR, "%s failed: %s", what, text);
}

static void read_boot_id(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static const char *level_name(int level)
{
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : level == MPI_THREAD_MULTIPLE   ? "MPI_THREAD_MULTIPLE"
                                            : "unknown";
}

static void one_process(struct ts_dist *d)
{
    memset(d, 0, sizeof *d);
    d->thread_level_name = "";
    d->size = 1;
    d->local_size = 1;
    /* The node's name in a Slurm job tells apart node names that share one machine (the
     * emulated cluster of the tests, where gethostname gives every node the same name). */
    const char *node = getenv("SLURMD_NODENAME");
    if (node && node[0] && strlen(node) < sizeof d->host && !strpbrk(node, " \t\n"))
        snprintf(d->host, sizeof d->host, "%s", node);
    else if (gethostname(d->host, sizeof d->host - 1) != 0)
        snprintf(d->host, sizeof d->host, "unknown");
    read_boot_id(d->boot_id, sizeof d->boot_id);
}

int ts_dist_start(struct ts_dist *d, struct ts_error *err)
{
    one_process(d);
    if (!ts_dist_launched(d->launcher, sizeof d->launcher))
        return TS_OK;

    int provided = MPI_THREAD_SINGLE;
    int code = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (code != MPI_SUCCESS)
        return ts_fail(err, TS_RESOURCE_ERROR, "launched by an MPI launcher (%s), but MPI_Init_thread failed (%d)",
                       d->launcher, code);
    d->started = 1;
    d->thread_level = provided;
    d->thread_level_name = level_name(provided);
    /* Errors come back as codes from here on, to travel back to main like any other. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if ((code = MPI_Comm_rank(MPI_COMM_WORLD, &d->rank)) != MPI_SUCCESS
        || (code = MPI_Comm_size(MPI_COMM_WORLD, &d->size)) != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "MPI_Comm_rank/MPI_Comm_size");

    MPI_Comm node;
    code = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    MPI_Comm_rank(node, &d->local_rank);
    MPI_Comm_size(node, &d->local_size);
    MPI_Comm_free(&node);

    ts_dist_library_version(d->library, sizeof d->library);

    if (provided < MPI_THREAD_FUNNELED)
        return ts_fail(err, TS_RESOURCE_ERROR,
                       "%s provides %s, less than the MPI_THREAD_FUNNELED an OpenMP program needs", d->library,
                       d->thread_level_name);
    long announced = announced_size();
    if (announced > 0 && announced != d->size)
        return ts_fail(err, TS_BAD_INPUT,
                       "the launcher announced %ld ranks, but MPI started a world of %d (%s): the launcher does not "
                       "belong to this MPI library; use its mpirun, or srun --mpi=pmix",
                       announced, d->size, d->library);
    return TS_OK;
}

int ts_dist_gather(const struct ts_dist *d, const void *mine, size_t bytes, void *all, struct ts_error *err)
{
    if (!d->started) {
        memcpy(all, mine, bytes);
        return TS_OK;
    }
    if (bytes > INT_MAX)
        return ts_fail(err, TS_INTERNAL_ERROR, "rank %d: %zu bytes to gather, more than MPI_Gather takes", d->rank,
                       bytes);
    /* One item of `bytes` bytes a rank: MPI places rank r's at r times the type's extent, an
     * MPI_Aint, so the whole may pass 2 GiB where int counts of bytes would stop. */
    MPI_Datatype item;
    int code = MPI_Type_contiguous((int)bytes, MPI_BYTE, &item);
    if (code == MPI_SUCCESS && (code = MPI_Type_commit(&item)) == MPI_SUCCESS) {
        code = MPI_Gather(mine, 1, item, all, 1, item, 0, MPI_COMM_WORLD);
        MPI_Type_free(&item);
    }
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "gathering a row of every rank (MPI_Gather)");
}

int ts_dist_bcast_from(const struct ts_dist *d, int root, void *buf, size_t bytes, struct ts_error *err)
{
    if (!d->started)
        return TS_OK;
    if (bytes > INT_MAX)
        return ts_fail(err, TS_INTERNAL_ERROR, "%zu bytes to broadcast, more than MPI_Bcast takes", bytes);
    int code = MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "broadcasting from a rank (MPI_Bcast)");
}

int ts_dist_bcast(const struct ts_dist *d, void *buf, size_t bytes, struct ts_error *err)
{
    return ts_dist_bcast_from(d, 0, buf, bytes, err);
}

int ts_dist_max(const struct ts_dist *d, int value, int *largest, struct ts_error *err)
{
    *largest = value;
    if (!d->started)
        return TS_OK;
    int code = MPI_Allreduce(&value, largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "agreeing across ranks (MPI_Allreduce)");
}

int ts_dist_min_max(const struct ts_dist *d, double value, double *smallest, double *largest, struct ts_error *err)
{
    *smallest = *largest = value;
    if (!d->started)
        return TS_OK;
    double in[2] = { -value, value }, out[2];
    int code = MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "timing across ranks (MPI_Allreduce)");
    *smallest = -out[0];
    *largest = out[1];
    return TS_OK;
}

int ts_dist_host_sum(const struct ts_dist *d, double value, double *sum, int *ranks, struct ts_error *err)
{
    *sum = value;
    *ranks = 1;
    if (!d->started)
        return TS_OK;
    MPI_Comm host;
    int code = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    code = MPI_Allreduce(&value, sum, 1, MPI_DOUBLE, MPI_SUM, host);
    if (code == MPI_SUCCESS)
        code = MPI_Comm_size(host, ranks);
    MPI_Comm_free(&host);
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "summing over the host's ranks");
}

int ts_dist_finish(struct ts_dist *d, struct ts_error *err)
{
    if (!d->started)
        return TS_OK;
    d->started = 0;
    int code = MPI_Finalize();
    return code == MPI_SUCCESS ? TS_OK : ts_dist_mpi_failed(err, code, "MPI_Finalize");
}

void ts_dist_abort(const struct ts_dist *d, int exit_status)
{
    if (d->started)
        MPI_Abort(MPI_COMM_WORLD, exit_status);
}
