/* HDF5 1.10 trusts bytes it should not: a corrupted global heap, where variable-length strings
 * live, makes H5Aread read out of bounds and crash, or loop forever (tests/io/read_sweep.c
 * finds such files by overwriting 16 bytes). Nothing in front of HDF5 can check its own
 * structures, so a run file, untrusted input, is read in a child process with a time limit:
 * whatever HDF5 does there, the command gets a summary or a message. The child validates
 * everything before sending it; the parent only copies it back. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "ts_file_place.h"
#include "ts_run_read.h"

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t done = read(fd, p, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return -1;
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

/* What a reading child that ended without an answer means: HDF5 crashed or looped. */
static int child_failed(int status, const char *name, unsigned seconds, struct ts_error *err)
{
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        return ts_fail(err, TS_BAD_INPUT, "%s: HDF5 did not finish reading it in %u s: the file is corrupted", name,
                       seconds);
    if (WIFSIGNALED(status))
        return ts_fail(err, TS_BAD_INPUT, "%s: HDF5 crashed reading it (%s): the file is corrupted", name,
                       strsignal(WTERMSIG(status)));
    return ts_fail(err, TS_BAD_INPUT, "%s: the process reading it failed: the file may be corrupted", name);
}

/* The summary's arrays in a fixed order; sizes follow from counts the child validated. */
static size_t array_sizes(const struct ts_run_summary *s, double **arrays[5], size_t counts[5])
{
    arrays[0] = &((struct ts_run_summary *)s)->iteration;
    arrays[1] = &((struct ts_run_summary *)s)->thread_iteration;
    arrays[2] = &((struct ts_run_summary *)s)->thread_local_fraction;
    arrays[3] = &((struct ts_run_summary *)s)->rank_iteration;
    arrays[4] = &((struct ts_run_summary *)s)->rank_halo_iteration;
    counts[0] = (size_t)s->n_iterations;
    counts[1] = (size_t)s->n_iterations * (size_t)s->n_threads;
    counts[2] = s->has_placement ? (size_t)s->n_threads : 0;
    counts[3] = counts[4] = s->ranks ? (size_t)s->n_ranks * (size_t)s->n_iterations : 0;
    return 5;
}

/* The rows of /mpi/ranks after the arrays (bytes: n_ranks rows, 0 without /mpi). */
static size_t rank_bytes(const struct ts_run_summary *s)
{
    return s->ranks ? (size_t)s->n_ranks * sizeof *s->ranks : 0;
}

/* Its texts after them, each its bytes long (with the NUL) when present. */
static size_t text_sizes(const struct ts_run_summary *s, char **texts[2], size_t bytes[2])
{
    texts[0] = &((struct ts_run_summary *)s)->warning_text;
    texts[1] = &((struct ts_run_summary *)s)->summary;
    bytes[0] = s->warning_text ? s->warning_bytes : 0;
    bytes[1] = s->summary ? s->summary_bytes : 0;
    return 2;
}

/* The layout (h5_layout_read.h) last: the rows of the machine and of the threads, each
 * count validated by the child; then the threads' counters over init and the iterations. */
#define N_LAYOUT 9
static void layout_sizes(const struct ts_run_summary *s, void **blobs[N_LAYOUT], size_t bytes[N_LAYOUT])
{
    struct ts_run_summary *w = (struct ts_run_summary *)s;
    const struct ts_topology_rec *t = &s->topology;
    blobs[0] = (void **)&w->topology.numa;
    blobs[1] = (void **)&w->topology.distances;
    blobs[2] = (void **)&w->topology.cores;
    blobs[3] = (void **)&w->topology.caches;
    blobs[4] = (void **)&w->threads;
    blobs[5] = (void **)&w->place_node_ids;
    blobs[6] = (void **)&w->thread_node_pages;
    blobs[7] = (void **)&w->init_counters;
    blobs[8] = (void **)&w->kernel_counters;
    bytes[0] = t->numa ? (size_t)t->n_numa * sizeof *t->numa : 0;
    bytes[1] = t->distances ? (size_t)t->n_numa * (size_t)t->n_numa * sizeof *t->distances : 0;
    bytes[2] = t->cores ? (size_t)t->n_cores_rec * sizeof *t->cores : 0;
    bytes[3] = t->caches ? (size_t)t->n_caches * sizeof *t->caches : 0;
    bytes[4] = s->threads ? (size_t)s->n_threads * sizeof *s->threads : 0;
    bytes[5] = s->place_node_ids ? (size_t)s->n_place_nodes * sizeof *s->place_node_ids : 0;
    bytes[6] =
        s->thread_node_pages ? (size_t)s->n_place_nodes * (size_t)s->n_threads * sizeof *s->thread_node_pages : 0;
    bytes[7] = s->init_counters ? (size_t)s->n_threads * sizeof *s->init_counters : 0;
    bytes[8] = s->kernel_counters ? (size_t)s->n_threads * sizeof *s->kernel_counters : 0;
}

/* The strings of the received rows, terminated in the child: kept so whatever the pipe held. */
static void terminate_layout(struct ts_run_summary *s)
{
#define END(str) (str)[sizeof(str) - 1] = '\0'
    for (int32_t i = 0; s->topology.numa && i < s->topology.n_numa; i++)
        END(s->topology.numa[i].cpus);
    for (int32_t i = 0; s->topology.cores && i < s->topology.n_cores_rec; i++)
        END(s->topology.cores[i].cpus);
    for (int32_t i = 0; s->topology.caches && i < s->topology.n_caches; i++)
        END(s->topology.caches[i].type);
    for (int32_t i = 0; s->threads && i < s->n_threads; i++) {
        END(s->threads[i].place_cpus);
        END(s->threads[i].affinity);
        END(s->threads[i].host);
    }
#undef END
}

/* Sanitizers reserve terabytes of address space for their shadow: no limit on it there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif

/* A corrupted length makes HDF5 ask malloc for absurd sizes and then fill what it got (a 43 kB
 * survey file: 21 GB, then 41 s writing it, before the read failed): the child's address space
 * may grow by `bytes` beyond what it inherited, past which malloc fails and HDF5 reports it. */
static void limit_memory(uint64_t bytes)
{
#ifndef SANITIZED
    unsigned long long pages = 0;
    FILE *f = bytes ? fopen("/proc/self/statm", "r") : NULL;
    if (!f)
        return;
    const int known = fscanf(f, "%llu", &pages) == 1;
    fclose(f);
    const long page = sysconf(_SC_PAGESIZE);
    if (!known || page <= 0)
        return;
    const rlim_t at = (rlim_t)(pages * (unsigned long long)page + bytes);
    setrlimit(RLIMIT_AS, &(struct rlimit){ at, at });
#else
    (void)bytes;
#endif
}

static void child(int fd, ts_run_reader *reader, const void *ctx, struct ts_read_limits limits)
{
    signal(SIGALRM, SIG_DFL);
    alarm(limits.seconds);
    limit_memory(limits.bytes);
    /* Both go down the pipe whole: zeroed first, so the padding and the unused tail of the
     * message are not this process's stale stack bytes (valgrind: write() of uninitialised). */
    struct ts_run_summary s;
    struct ts_error err;
    memset(&s, 0, sizeof s);
    memset(&err, 0, sizeof err);
    int st = reader(ctx, &s, &err);
    int bad = ts_file_write_all(fd, &st, sizeof st) || ts_file_write_all(fd, &err, sizeof err)
              || ts_file_write_all(fd, &s, sizeof s);
    double **arrays[5];
    size_t counts[5];
    for (size_t i = 0, n = array_sizes(&s, arrays, counts); !bad && st == TS_OK && i < n; i++)
        bad = ts_file_write_all(fd, *arrays[i], counts[i] * sizeof(double));
    if (!bad && st == TS_OK)
        bad = ts_file_write_all(fd, s.ranks, rank_bytes(&s));
    char **texts[2];
    size_t bytes[2];
    for (size_t i = 0, n = text_sizes(&s, texts, bytes); !bad && st == TS_OK && i < n; i++)
        bad = ts_file_write_all(fd, *texts[i], bytes[i]);
    void **blobs[N_LAYOUT];
    size_t blob_bytes[N_LAYOUT];
    layout_sizes(&s, blobs, blob_bytes);
    for (size_t i = 0; !bad && st == TS_OK && i < N_LAYOUT; i++)
        bad = ts_file_write_all(fd, *blobs[i], blob_bytes[i]);
    _exit(bad ? 1 : 0); /* no atexit handlers, no flushing of the parent's buffers */
}

static int receive(int fd, struct ts_run_summary *out, struct ts_error *err)
{
    int st = TS_BAD_INPUT;
    if (read_all(fd, &st, sizeof st) || read_all(fd, err, sizeof *err) || read_all(fd, out, sizeof *out))
        return -1;
    double **arrays[5];
    size_t counts[5];
    char **texts[2];
    size_t bytes[2];
    size_t n_arrays = array_sizes(out, arrays, counts), n_texts = text_sizes(out, texts, bytes);
    const size_t ranks = rank_bytes(out);
    void **blobs[N_LAYOUT];
    size_t blob_bytes[N_LAYOUT];
    layout_sizes(out, blobs, blob_bytes);
    for (size_t i = 0; i < N_LAYOUT; i++)
        *blobs[i] = NULL;
    /* The child's pointers mean nothing here. */
    out->iteration = out->thread_iteration = out->thread_local_fraction = NULL;
    out->rank_iteration = out->rank_halo_iteration = NULL;
    out->ranks = NULL;
    out->warning_text = out->summary = NULL;
    for (size_t i = 0; st == TS_OK && i < n_arrays; i++) {
        if (counts[i] == 0)
            continue;
        if (!(*arrays[i] = malloc(counts[i] * sizeof(double)))
            || read_all(fd, *arrays[i], counts[i] * sizeof(double))) {
            ts_run_summary_free(out);
            return -1;
        }
    }
    if (st == TS_OK && ranks > 0) {
        if (!(out->ranks = malloc(ranks)) || read_all(fd, out->ranks, ranks)) {
            ts_run_summary_free(out);
            return -1;
        }
        for (int32_t k = 0; k < out->n_ranks; k++) { /* terminated in the child; keep them so */
            out->ranks[k].host[sizeof out->ranks[k].host - 1] = '\0';
            out->ranks[k].boot_id[sizeof out->ranks[k].boot_id - 1] = '\0';
        }
    }
    for (size_t i = 0; st == TS_OK && i < n_texts; i++) {
        if (bytes[i] == 0)
            continue;
        if (!(*texts[i] = malloc(bytes[i])) || read_all(fd, *texts[i], bytes[i])) {
            ts_run_summary_free(out);
            return -1;
        }
        (*texts[i])[bytes[i] - 1] = '\0'; /* the child sent a terminated string; keep it one */
    }
    for (size_t i = 0; st == TS_OK && i < N_LAYOUT; i++) {
        if (blob_bytes[i] == 0)
            continue;
        if (!(*blobs[i] = malloc(blob_bytes[i])) || read_all(fd, *blobs[i], blob_bytes[i])) {
            ts_run_summary_free(out);
            return -1;
        }
    }
    if (st == TS_OK)
        terminate_layout(out);
    return st;
}

int ts_run_read_isolated(ts_run_reader *reader, const void *ctx, const char *name, struct ts_read_limits limits,
                         struct ts_run_summary *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = TS_FILE_UNREADABLE;
    /* HDF5 started here once, not in every child (which inherits it started): a plot or
     * report of 1,000 files spent a fifth of its time starting the library again in each.
     * Should it fail, the child tries again and says why. */
    H5open();
    int fds[2];
    if (pipe(fds) != 0)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "cannot read %s: pipe", name);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, errno, "cannot read %s: fork", name);
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], reader, ctx, limits);
    }
    close(fds[1]);
    int st = receive(fds[0], out, err);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (st >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return st;
    if (st == TS_OK)
        ts_run_summary_free(out);
    out->kind = TS_FILE_UNREADABLE;
    return child_failed(status, name, limits.seconds, err);
}

struct check_call {
    ts_read_check *check;
    const void *ctx;
};

/* A check is a reader whose summary stays empty (zeroed in child()): no arrays follow it. */
static int run_check(const void *ctx, struct ts_run_summary *out, struct ts_error *err)
{
    (void)out;
    const struct check_call *c = ctx;
    return c->check(c->ctx, err);
}

int ts_read_check_isolated(ts_read_check *check, const void *ctx, const char *name, struct ts_read_limits limits,
                           struct ts_error *err)
{
    struct check_call c = { check, ctx };
    struct ts_run_summary empty;
    int st = ts_run_read_isolated(run_check, &c, name, limits, &empty, err);
    ts_run_summary_free(&empty);
    return st;
}

static int read_path(const void *ctx, struct ts_run_summary *out, struct ts_error *err)
{
    return ts_run_read_file(ctx, out, err);
}

/* Reading a run file takes milliseconds, or about as long as reading its bytes: a minute
 * plus a second per 20 MB is far beyond that, and stops HDF5 looping on a corrupted heap.
 * What a read keeps is some of the file's values, a few of them compressed: 1 GiB plus 16
 * bytes per byte of the file is far beyond that too, and stops HDF5 filling an absurd
 * allocation. TOUCHSTONE_READ_TIMEOUT (seconds) and TOUCHSTONE_READ_MEMORY_MB replace them: for
 * tests, a very slow filesystem, or a file that needs more. */
struct ts_read_limits ts_read_limits_of(const char *path)
{
    struct stat sb;
    const uint64_t size = stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    struct ts_read_limits l = { .seconds = 60 + (unsigned)(size / 20000000), .bytes = ((uint64_t)1 << 30) + 16 * size };
    const char *env = getenv("TOUCHSTONE_READ_TIMEOUT");
    if (env && atoi(env) > 0)
        l.seconds = (unsigned)atoi(env);
    env = getenv("TOUCHSTONE_READ_MEMORY_MB");
    if (env && atoll(env) > 0)
        l.bytes = (uint64_t)atoll(env) << 20;
    return l;
}

int ts_run_read_file_isolated(const char *path, struct ts_run_summary *out, struct ts_error *err)
{
    return ts_run_read_isolated(read_path, path, path, ts_read_limits_of(path), out, err);
}
