#include "ts_dist_host.h"

#include "dist_internal.h"
#include "ts_digest.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* The tags of the machine's messages, on its own communicator. */
enum { TO_FIRST = 2501, TO_RANK = 2502 };

/* The machine as MPI_Comm_split's colour: a digest of the kernel's boot id (the host name
 * without one), 31 bits. Two machines whose digests collide share a communicator: the answer
 * still tells their ranks apart by name and boot id, at the cost of a larger group. Not
 * MPI_COMM_TYPE_SHARED: that follows the launcher's nodes, and srun on an emulated cluster
 * makes two nodes of one kernel, whose note (hosts that share a kernel) needs both. */
static int machine_colour(const struct ts_dist *d)
{
    const char *key = d->boot_id[0] ? d->boot_id : d->host;
    return (int)(ts_digest64(key, strlen(key)) & 0x7fffffff);
}

/* One message: '0' and the text, or '1' alone (no text). */
static int send_text(MPI_Comm comm, int to, int tag, const char *text)
{
    size_t n = text ? strlen(text) : 0;
    int failed = !text || n >= (size_t)1 << 30;
    char *msg = failed ? NULL : malloc(n + 1);
    if (!msg) {
        char one = '1';
        return MPI_Send(&one, 1, MPI_CHAR, to, tag, comm);
    }
    msg[0] = '0';
    memcpy(msg + 1, text, n);
    int code = MPI_Send(msg, (int)n + 1, MPI_CHAR, to, tag, comm);
    free(msg);
    return code;
}

/* The text of the message from `from` (malloc'd; NULL when it said '1' or memory ran out: the
 * message is still received, so that its sender does not wait). */
static int recv_text(MPI_Comm comm, int from, int tag, char **text)
{
    *text = NULL;
    MPI_Message handle;
    MPI_Status status;
    int n = 0, code = MPI_Mprobe(from, tag, comm, &handle, &status);
    if (code == MPI_SUCCESS)
        code = MPI_Get_count(&status, MPI_CHAR, &n);
    if (code != MPI_SUCCESS)
        return code;
    char *in = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (!in) {
        char none;
        MPI_Mrecv(&none, 0, MPI_CHAR, &handle, MPI_STATUS_IGNORE); /* truncated: its error is expected */
        return MPI_SUCCESS;
    }
    code = MPI_Mrecv(in, n, MPI_CHAR, &handle, MPI_STATUS_IGNORE);
    in[n] = '\0';
    if (code == MPI_SUCCESS && in[0] == '0')
        *text = strdup(in + 1);
    free(in);
    return code;
}

/* On the machine's first rank: its ranks' texts in, answer, the answers out. */
static int first_rank(MPI_Comm comm, int n, int world_rank, const char *text, ts_dist_host_fn answer, void *ctx,
                      char **back)
{
    char **texts = calloc((size_t)n, sizeof *texts), **out = calloc((size_t)n, sizeof *out);
    int *ranks = calloc((size_t)n, sizeof *ranks);
    int code = MPI_SUCCESS, failed = !texts || !out || !ranks || !text;
    if (texts && text)
        failed |= !(texts[0] = strdup(text));
    for (int i = 1; i < n && code == MPI_SUCCESS; i++) {
        char *in = NULL;
        code = recv_text(comm, i, TO_FIRST, &in);
        failed |= !in || !texts;
        if (texts)
            texts[i] = in;
        else
            free(in);
    }
    /* The world ranks of the machine's ranks, in their order (the split kept world order). */
    if (code == MPI_SUCCESS)
        code = MPI_Gather(&world_rank, 1, MPI_INT, ranks ? ranks : &world_rank, 1, MPI_INT, 0, comm);
    if (code == MPI_SUCCESS && !failed)
        failed = answer(ctx, (const char *const *)texts, ranks, n, out) != 0;
    for (int i = 1; i < n && code == MPI_SUCCESS; i++)
        code = send_text(comm, i, TO_RANK, failed ? NULL : out[i] ? out[i] : "");
    if (!failed)
        *back = out[0] ? out[0] : strdup(""), out[0] = NULL;
    for (int i = 0; i < n; i++) {
        if (texts)
            free(texts[i]);
        if (out)
            free(out[i]);
    }
    free(texts);
    free(out);
    free(ranks);
    return code;
}

int ts_dist_host_exchange(const struct ts_dist *d, const char *text, ts_dist_host_fn answer, void *ctx, char **back,
                          struct ts_error *err)
{
    *back = NULL;
    if (!d->started) {
        const int rank = d->rank;
        char *out = NULL;
        if (text && answer(ctx, &text, &rank, 1, &out) == 0)
            *back = out ? out : strdup("");
        else
            free(out);
        return TS_OK;
    }
    MPI_Comm machine;
    int code = MPI_Comm_split(MPI_COMM_WORLD, machine_colour(d), d->rank, &machine);
    if (code != MPI_SUCCESS)
        return ts_dist_mpi_failed(err, code, "splitting the ranks by machine (MPI_Comm_split)");
    int me = 0, n = 1;
    MPI_Comm_set_errhandler(machine, MPI_ERRORS_RETURN);
    code = MPI_Comm_rank(machine, &me);
    if (code == MPI_SUCCESS)
        code = MPI_Comm_size(machine, &n);
    if (code == MPI_SUCCESS && me == 0) {
        code = first_rank(machine, n, d->rank, text, answer, ctx, back);
    } else if (code == MPI_SUCCESS) {
        int world_rank = d->rank;
        code = send_text(machine, 0, TO_FIRST, text);
        if (code == MPI_SUCCESS)
            code = MPI_Gather(&world_rank, 1, MPI_INT, NULL, 1, MPI_INT, 0, machine);
        if (code == MPI_SUCCESS)
            code = recv_text(machine, 0, TO_RANK, back);
    }
    MPI_Comm_free(&machine);
    if (code != MPI_SUCCESS) {
        free(*back);
        *back = NULL;
        return ts_dist_mpi_failed(err, code, "comparing the ranks of each machine (MPI_Send/MPI_Mrecv)");
    }
    return TS_OK;
}
