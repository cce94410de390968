/* `touchstone check`: a config validated, and what its run would need, without running it. On
 * more than one rank: the run's split over the ranks (app/run_ranks.h, the code `run` uses) and
 * every rank's part checked against the memory of its machine, reported by rank 0. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_checkpoint.h"
#include "run_plan.h"
#include "run_ranks.h"
#include "ts_dist_agree.h"
#include "ts_distinct.h"
#include "ts_memory.h"
#include "ts_units.h"

/* check --restart: what can be known of a checkpoint before the run has its arrays. */
static int check_restart_file(const char *path, struct ts_error *err)
{
    static const char hdf5_signature[8] = "\211HDF\r\n\032\n";
    char head[8];
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "--restart %s: cannot read the checkpoint", path);
    int status = TS_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        status = ts_fail(err, TS_BAD_INPUT, "--restart %s: not a regular file", path);
    else if (pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head || memcmp(head, hdf5_signature, sizeof head) != 0)
        status = ts_fail(err, TS_BAD_INPUT, "--restart %s: not an HDF5 file, so not a touchstone checkpoint", path);
    close(fd);
    return status;
}

/* The config's unused keys on stderr, the config itself on stdout: every check begins so. */
static void print_config(const struct ts_config *cfg, const struct ts_cli *cli)
{
    char notes[TS_CONFIG_MAX_KEYS][TS_CONFIG_NOTE_LEN];
    size_t n_notes = ts_config_unused_keys(cfg, notes, TS_CONFIG_MAX_KEYS);
    for (size_t i = 0; i < n_notes && i < TS_CONFIG_MAX_KEYS; i++)
        fprintf(stderr, "touchstone: warning: %s\n", notes[i]);
    if (!cli->quiet) {
        printf("# %s: valid\n", cfg->path);
        ts_config_print(cfg, stdout);
        printf("\n");
    }
}

/* The output as run will judge it (ts_output_judge): rank 0's alone, as in run. */
static int check_output(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_error *err)
{
    static struct ts_run_output out; /* 20 KiB of names: off the stack */
    return ts_output_judge(cfg, cli->restart_path, &out, err);
}

static void print_output(const struct ts_config *cfg, const struct ts_cli *cli)
{
    static struct ts_run_output out;
    struct ts_error ignored;
    if (cli->quiet || ts_output_judge(cfg, cli->restart_path, &out, &ignored) != TS_OK)
        return;
    if (out.taken[0])
        printf("output %s (%s exists; --overwrite replaces it instead), its checkpoint %s: the directory takes files\n",
               out.file, out.taken, out.checkpoint);
    else
        printf("output %s, its checkpoint %s: the directory takes files\n", out.file, out.checkpoint);
}

/* The checkpoint read as run --restart reads it, on the whole problem's plan: the iterations it
 * holds in *steps. */
static int verify_restart(const struct ts_config *cfg, const struct ts_cli *cli, int64_t *steps, struct ts_error *err)
{
    struct ts_run_plan whole;
    int status = ts_run_plan_make(cfg, &whole, err);
    if (status == TS_OK)
        status = ts_run_checkpoint_verify(&whole, cfg, cli->restart_path, steps, err);
    return status;
}

static void print_restart(const struct ts_config *cfg, const struct ts_cli *cli, int64_t steps)
{
    if (cli->restart_path && !cli->quiet)
        printf("restart from %s: a checkpoint of this run after %lld of %lld iterations, every dataset and its digest "
               "read\n",
               cli->restart_path, (long long)steps, (long long)(cfg->warmup + cfg->iterations));
}

/* What each rank sends rank 0: its part of the problem and what it needs. */
struct rank_part {
    int32_t status;           /* this rank's verdict: its part planned, its memory, the checkpoint */
    int32_t host_ranks;       /* the ranks on its machine, itself included */
    int64_t begin[3], end[3]; /* owned points, global, half-open (a slice: [0] only) */
    int64_t count;            /* points or elements owned */
    uint64_t arrays_bytes, total_bytes, host_bytes;
    char host[256];
};

/* "x 1-499, y 1-249" or "elements 0-149503" */
static void part_text(const struct rank_part *p, int stencil, int ndims, char *buf, size_t len)
{
    if (p->count <= 0) {
        snprintf(buf, len, "nothing");
        return;
    }
    if (!stencil) {
        snprintf(buf, len, "elements %lld-%lld", (long long)p->begin[0], (long long)p->end[0] - 1);
        return;
    }
    static const char axis[3] = { 'x', 'y', 'z' };
    size_t used = 0;
    buf[0] = '\0';
    for (int a = 0; a < ndims && used < len; a++)
        used += (size_t)snprintf(buf + used, len - used, "%s%c %lld-%lld", a ? ", " : "", axis[a],
                                 (long long)p->begin[a], (long long)p->end[a] - 1);
}

static void rank_line(const struct rank_part *p, int r, int stencil, int ndims, const char *unit)
{
    char part[128], total[32], together[32];
    part_text(p, stencil, ndims, part, sizeof part);
    ts_bytes_text(p->total_bytes, total, sizeof total);
    ts_bytes_text(p->host_bytes, together, sizeof together);
    printf("  rank %d (%s): %s: %lld %s, %s", r, p->host, part, (long long)p->count, unit, total);
    if (p->host_ranks > 1)
        printf("; its machine's %d ranks %s", p->host_ranks, together);
    printf("%s\n", p->status == TS_OK ? "" : "  REFUSED");
}

/* Many ranks: the smallest and largest part and need, and the fullest machine. */
static void summary_lines(const struct rank_part *all, int size, const char *unit)
{
    int lo = 0, hi = 0, mem_lo = 0, mem_hi = 0, full = 0, refused = 0;
    for (int r = 0; r < size; r++) {
        lo = all[r].count < all[lo].count ? r : lo;
        hi = all[r].count > all[hi].count ? r : hi;
        mem_lo = all[r].total_bytes < all[mem_lo].total_bytes ? r : mem_lo;
        mem_hi = all[r].total_bytes > all[mem_hi].total_bytes ? r : mem_hi;
        full = all[r].host_bytes > all[full].host_bytes ? r : full;
        refused += all[r].status != TS_OK;
    }
    char a[32], b[32], c[32];
    printf("  parts    %lld to %lld %s a rank (ranks %d and %d)\n", (long long)all[lo].count, (long long)all[hi].count,
           unit, lo, hi);
    ts_bytes_text(all[mem_lo].total_bytes, a, sizeof a);
    ts_bytes_text(all[mem_hi].total_bytes, b, sizeof b);
    printf("  memory   %s to %s a rank (ranks %d and %d)\n", a, b, mem_lo, mem_hi);
    ts_bytes_text(all[full].host_bytes, c, sizeof c);
    printf("  fullest  %s: %d rank%s, %s together\n", all[full].host, all[full].host_ranks,
           all[full].host_ranks == 1 ? "" : "s", c);
    if (refused)
        printf("  refused  %d rank%s (the error names the first)\n", refused, refused == 1 ? "" : "s");
}

/* How many hosts the ranks run on; 0 when memory ran out (the line then leaves the count out). */
static int count_hosts(const struct rank_part *all, int size)
{
    const char **hosts = malloc((size_t)(size > 0 ? size : 1) * sizeof *hosts);
    if (!hosts)
        return 0;
    for (int r = 0; r < size; r++)
        hosts[r] = all[r].host;
    int n = (int)ts_count_distinct(hosts, (size_t)size);
    free(hosts);
    return n;
}

/* Rank 0: the section after the config. */
static void print_ranks(const struct ts_run_ranks *rk, const struct rank_part *all, int size)
{
    const struct ts_problem *pb = &rk->whole;
    const int ndims = pb->kernel == TS_KERNEL_STENCIL3D ? 3 : 2;
    const char *unit = rk->stencil ? "points" : "elements";
    int hosts = count_hosts(all, size);
    if (hosts > 0)
        printf("ranks: %d on %d host%s; ", size, hosts, hosts == 1 ? "" : "s");
    else
        printf("ranks: %d; ", size);
    if (rk->stencil && ndims == 3)
        printf("the %lldx%lldx%lld grid as %s blocks (mpi.dims = %s), interior points:\n", (long long)pb->nx,
               (long long)pb->ny, (long long)pb->nz, rk->decomposition, rk->dec.automatic ? "auto" : "given");
    else if (rk->stencil)
        printf("the %lldx%lld grid as %s blocks (mpi.dims = %s), interior points:\n", (long long)pb->nx,
               (long long)pb->ny, rk->decomposition, rk->dec.automatic ? "auto" : "given");
    else
        printf("%lld elements in %d slices of whole blocks of %d:\n", (long long)pb->n, size, TS_SUM_BLOCK);
    if (size <= 16)
        for (int r = 0; r < size; r++)
            rank_line(&all[r], r, rk->stencil, ndims, unit);
    else
        summary_lines(all, size, unit);
    printf("\n");
}

/* After rank 0's part and the limits it was checked against alone: what the ranks on its
 * machine need together, against the limits they share (ts_run_plan_check_memory_host). */
static void print_machine_memory(const struct rank_part *p)
{
    if (p->host_ranks <= 1)
        return;
    char together[32];
    ts_bytes_text(p->host_bytes, together, sizeof together);
    printf("  machine       %-10s (the %d ranks on %s together, against the limits they share)\n", together,
           p->host_ranks, p->host);
    struct ts_memory_limit limits[8];
    int n = ts_memory_limits(limits, 8);
    for (int i = 0; i < n; i++) {
        char have[32];
        if (limits[i].per_process)
            continue;
        ts_bytes_text(limits[i].bytes, have, sizeof have);
        printf("  limit %-10s %s  (%s)\n", p->host_bytes <= limits[i].bytes ? "ok" : "EXCEEDED", have,
               limits[i].source);
    }
}

/* This rank's part as rank 0 shows it. */
static void describe_part(const struct ts_run_ranks *rk, const struct ts_run_plan *rp, const struct ts_dist *d,
                          size_t host_bytes, int host_ranks, struct rank_part *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->host, sizeof p->host, "%s", d->host);
    p->host_ranks = host_ranks;
    p->host_bytes = host_bytes;
    p->arrays_bytes = rp->arrays_bytes;
    p->total_bytes = rp->total_bytes;
    p->count = 1;
    for (int a = 0; a < 3; a++) {
        p->begin[a] = rk->stencil ? rk->block.begin[a] : a == 0 ? rk->slice.begin : 0;
        p->end[a] = rk->stencil ? rk->block.end[a] : a == 0 ? rk->slice.end : 1;
        p->count *= p->end[a] - p->begin[a];
    }
}

/* Every rank plans its part as run would; rank 0 reports them all and the verdict, which every
 * rank then shares (agreed: rank 0 prints the error, with the rank it is about). */
static int check_ranks(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_launch *launch,
                       struct ts_run_plan *rp, struct ts_error *err)
{
    const struct ts_dist *d = &launch->dist;
    static struct ts_run_ranks rk;
    int status = ts_run_ranks_split(&rk, d, cfg, rp, err);
    if (status != TS_OK && rk.agreed) { /* too small for the ranks: every rank knows it alike */
        launch->agreed = 1;
        ts_run_ranks_release(&rk);
        return status;
    }
    /* From here every rank takes part in every collective, whatever its own verdict. */
    struct ts_error e;
    ts_error_clear(&e);
    int collective = ts_run_ranks_count_world(&rk, rp, &e);
    double host_bytes = status == TS_OK ? (double)rp->total_bytes : 0.0;
    int host_ranks = 1;
    if (collective == TS_OK)
        collective = ts_dist_host_sum(d, host_bytes, &host_bytes, &host_ranks, &e);
    if (status == TS_OK && collective == TS_OK)
        status = ts_run_plan_check_memory_host(rp, (size_t)host_bytes, host_ranks, err);
    int64_t steps = 0; /* rank 0 reads the whole checkpoint; every rank can open it */
    if (status == TS_OK && collective == TS_OK && cli->restart_path)
        status = d->rank == 0 ? verify_restart(cfg, cli, &steps, err) : check_restart_file(cli->restart_path, err);
    if (status == TS_OK && collective == TS_OK && d->rank == 0) /* rank 0 writes the files */
        status = check_output(cfg, cli, err);

    struct rank_part mine;
    describe_part(&rk, rp, d, (size_t)host_bytes, host_ranks, &mine);
    mine.status = status;
    struct rank_part *all = d->rank == 0 ? calloc((size_t)d->size, sizeof *all) : NULL;
    int oom = d->rank == 0 && !all;
    char *messages = NULL;
    if (collective == TS_OK)
        collective = ts_dist_gather(d, &mine, sizeof mine, all ? (void *)all : (void *)&mine, &e);
    /* The first refusing rank's message alone, by a reduction and a broadcast: rank 0 holds one
     * message, not a line of every rank. */
    int first_refused = -1, n_refused = 0;
    if (collective == TS_OK)
        collective = ts_dist_first_flagged(d, status != TS_OK, &first_refused, &n_refused, &e);
    if (collective == TS_OK && first_refused >= 0)
        collective = ts_dist_bcast_text(d, first_refused, status == TS_OK ? "" : err->message, &messages, &e);
    if (collective != TS_OK) { /* MPI failed: this rank's error alone */
        *err = e;
        free(all);
        free(messages);
        ts_run_ranks_release(&rk);
        return e.status;
    }

    int verdict = TS_OK;
    if (d->rank == 0 && oom) {
        verdict = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot hold the parts of %d ranks", d->size);
    } else if (d->rank == 0) {
        print_config(cfg, cli);
        if (!cli->quiet) {
            print_ranks(&rk, all, d->size);
            printf("rank 0's part, ");
            ts_run_plan_print_memory(rp, stdout);
            print_machine_memory(&all[0]);
            if (all[0].status == TS_OK)
                print_output(cfg, cli);
            if (all[0].status == TS_OK)
                print_restart(cfg, cli, steps);
        }
        /* The first rank refused names the error; the others are in the section above. */
        int first = -1, refused = 0;
        for (int r = 0; r < d->size; r++)
            if (all[r].status != TS_OK) {
                first = first < 0 ? r : first;
                refused++;
            }
        if (first == 0) {
            verdict = status;
            ts_error_prefix(err, "rank 0 of %d (%s): ", d->size, d->host);
        } else if (first > 0) {
            const char *text = messages; /* rank first's, the first refused (first_refused) */
            verdict = ts_fail(err, all[first].status, "rank %d of %d (%s): %s", first, d->size, all[first].host,
                              text ? text : "");
        }
        size_t used = strlen(err->message);
        if (refused > 1 && first >= 0 && used < sizeof err->message)
            snprintf(err->message + used, sizeof err->message - used, " (and %d more rank%s refused)", refused - 1,
                     refused == 2 ? "" : "s");
    }
    free(all);
    free(messages);
    verdict = ts_run_ranks_follow_root(&rk, verdict, err);
    launch->agreed = rk.agreed;
    ts_run_ranks_release(&rk);
    return verdict;
}

int ts_check_cmd(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_launch *launch, struct ts_error *err)
{
    struct ts_run_plan rp;
    int status = ts_run_plan_make(cfg, &rp, err);
    if (status != TS_OK) {
        launch->agreed = 1; /* the config is every rank's */
        return status;
    }
    if (launch->dist.size > 1)
        return check_ranks(cfg, cli, launch, &rp, err);
    int64_t steps = 0;
    if (cli->restart_path)
        status = verify_restart(cfg, cli, &steps, err);
    if (status == TS_OK)
        status = check_output(cfg, cli, err);
    if (status != TS_OK)
        return status;
    print_config(cfg, cli);
    if (!cli->quiet) {
        ts_run_plan_print_memory(&rp, stdout);
        print_output(cfg, cli);
        print_restart(cfg, cli, steps);
    }
    return ts_run_plan_check_memory(&rp, err);
}

int ts_check_keys_cmd(struct ts_error *err)
{
    for (size_t i = 0; i < ts_config_key_count(); i++) {
        char values[512];
        ts_config_key_values(i, values, sizeof values);
        if (printf("%s%s%s\n", ts_config_key_name(i), values[0] ? " " : "", values) < 0)
            return ts_fail_errno(err, TS_IO_ERROR, errno ? errno : EIO,
                                 "check --keys: cannot write to standard output");
    }
    return TS_OK;
}
