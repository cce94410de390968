/* The ranks in the run file (schema 3, issue 14), through the real writer and the real reader:
 *   roundtrip  a 3-rank record written and read back: /mpi, the rank columns of /threads and
 *              /placement/thread_rank as stored, and every value the reader hands on
 *   schema2    the same run without /mpi and the rank columns, as schema 2 wrote it: read with
 *              defaults (no ranks); those columns missing from a schema 3 file: refused
 *   malformed  /mpi damaged one way at a time: each refused with a message naming the item
 *   writer     records whose ranks do not add up: refused before any file exists
 *   show       show's ranks section, text and JSON, from the file read back */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5_read.h"
#include "io_fixture.h"
#include "ts_h5_write.h"
#include "ts_run_ranks.h"
#include "ts_run_read.h"

static char dir[4096];

/* What the reader needs beyond the fixture: the config keys it reads, times whose statistics
 * are exactly those of the iterations, a complete run. */
static void readable(struct io_fixture *f)
{
    static struct ts_attr config[3];
    const char *pairs[3][2] = { { "run.kernel", "stencil2d" }, { "init.policy", "firsttouch" }, { "grid.nx", "5" } };
    for (int i = 0; i < 3; i++) {
        snprintf(config[i].name, sizeof config[i].name, "%s", pairs[i][0]);
        snprintf(config[i].value, sizeof config[i].value, "%s", pairs[i][1]);
    }
    f->rec.config = config;
    f->rec.n_config = 3;
    for (int i = 0; i < FX_ITER; i++)
        f->iteration[i] = (double)(2 + i) / 1024.0;
    f->results.time_min = 2.0 / 1024.0;
    f->results.time_median = 4.0 / 1024.0;
    f->results.time_max = (double)(2 + FX_ITER - 1) / 1024.0;
    f->rec.complete = 1;
    f->rec.steps_done = f->rec.steps_planned = FX_WARMUP + FX_ITER;
}

/* A placement audit of the fixture's threads, thread_rank as given (NULL: none). */
struct audit {
    struct ts_placement_rec rec;
    int32_t node_ids[FX_NUMA], thread_node[FX_THREADS];
    int64_t pages[FX_THREADS], thread_node_pages[FX_THREADS * FX_NUMA], array_node_pages[FX_NUMA], zero[1];
    double fraction[FX_THREADS];
};

static void fill_audit(struct audit *a, const int32_t *thread_rank)
{
    memset(a, 0, sizeof *a);
    for (int n = 0; n < FX_NUMA; n++)
        a->node_ids[n] = n;
    for (int t = 0; t < FX_THREADS; t++) {
        a->pages[t] = 4;
        a->fraction[t] = 1;
        a->thread_node_pages[t * FX_NUMA] = 4;
    }
    a->array_node_pages[0] = 12;
    a->rec = (struct ts_placement_rec){ .measured_after = "init",
                                        .policy = "firsttouch",
                                        .sample_stride = 1,
                                        .page_size = 4096,
                                        .granule_bytes = 4096,
                                        .requested_page_size = 4096,
                                        .madvise = "none",
                                        .n_nodes = FX_NUMA,
                                        .node_ids = a->node_ids,
                                        .n_threads = FX_THREADS,
                                        .thread_rank = thread_rank,
                                        .thread_node = a->thread_node,
                                        .thread_pages = a->pages,
                                        .thread_local_pages = a->pages,
                                        .thread_local_fraction = a->fraction,
                                        .thread_node_pages = a->thread_node_pages,
                                        .n_arrays = 1,
                                        .array_node_pages = a->array_node_pages,
                                        .array_absent_pages = a->zero,
                                        .array_error_pages = a->zero,
                                        .local_fraction = 1,
                                        .time = 0.001 };
}

static void write_or_die(const struct ts_record *rec, const char *path)
{
    struct ts_error err;
    ts_error_clear(&err);
    REQUIRE(ts_record_write(rec, path, &err) == TS_OK, "ts_record_write: %s", err.message);
}

static void path_of(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", dir, name);
}

/* The 3-rank run with a placement audit, written to dir/name. */
static void write_mpi_run(struct io_fixture *f, struct audit *a, const char *name, char *path, size_t size)
{
    static const int32_t thread_rank[FX_THREADS] = { 0, 1, 2 };
    io_fixture_mpi(f);
    readable(f);
    fill_audit(a, thread_rank);
    f->rec.placement = &a->rec;
    path_of(path, size, name);
    write_or_die(&f->rec, path);
}

/* Rank k's own kernel time in the fixture: the sum of its row of rank_iteration. */
static double f_kernel(int k)
{
    return (double)(FX_ITER * (2 + k) + FX_ITER * (FX_ITER - 1) / 2) / 1024.0;
}

static void check_file(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0, "%s does not open", path);
    CHECK(rd_int_attr(f, "/", "schema_version") == 4, "schema_version is not 4");
    CHECK(rd_int_attr(f, "mpi", "size") == 3 && rd_int_attr(f, "mpi", "n_hosts") == 2
              && rd_int_attr(f, "mpi", "shared_kernel") == 1,
          "/mpi size, n_hosts or shared_kernel");
    expect_str_attr(f, "mpi", "launcher", "OMPI_COMM_WORLD_SIZE=3");
    expect_str_attr(f, "mpi", "library", "Open MPI v4.1.4, package: Debian OpenMPI");
    expect_str_attr(f, "mpi", "thread_level", "MPI_THREAD_FUNNELED");
    expect_str_attr(f, "mpi", "decomposition", "3x1");

    struct row {
        int32_t rank, local_rank, n_threads, first_thread, coords_x, coords_y, coords_z;
        char host[64], boot_id[40];
        int64_t own_begin_x, own_begin_y, own_begin_z, own_end_x, own_end_y, own_end_z;
        double partial, time_min, time_median, time_max, halo, reduction;
        double allocation, init, kernel, combine, result, verify, placement, total;
    } rows[3];
    typedef struct row R;
    const struct rd_col cols[] = {
        RD_NUM(R, rank, H5T_NATIVE_INT32),
        RD_NUM(R, local_rank, H5T_NATIVE_INT32),
        RD_STR(R, host),
        RD_STR(R, boot_id),
        RD_NUM(R, n_threads, H5T_NATIVE_INT32),
        RD_NUM(R, first_thread, H5T_NATIVE_INT32),
        RD_NUM(R, coords_x, H5T_NATIVE_INT32),
        RD_NUM(R, coords_y, H5T_NATIVE_INT32),
        RD_NUM(R, coords_z, H5T_NATIVE_INT32),
        RD_NUM(R, own_begin_x, H5T_NATIVE_INT64),
        RD_NUM(R, own_begin_y, H5T_NATIVE_INT64),
        RD_NUM(R, own_begin_z, H5T_NATIVE_INT64),
        RD_NUM(R, own_end_x, H5T_NATIVE_INT64),
        RD_NUM(R, own_end_y, H5T_NATIVE_INT64),
        RD_NUM(R, own_end_z, H5T_NATIVE_INT64),
        RD_NUM(R, partial, H5T_NATIVE_DOUBLE),
        RD_NUM(R, time_min, H5T_NATIVE_DOUBLE),
        RD_NUM(R, time_median, H5T_NATIVE_DOUBLE),
        RD_NUM(R, time_max, H5T_NATIVE_DOUBLE),
        RD_NUM(R, halo, H5T_NATIVE_DOUBLE),
        RD_NUM(R, reduction, H5T_NATIVE_DOUBLE),
        RD_NUM(R, allocation, H5T_NATIVE_DOUBLE),
        RD_NUM(R, init, H5T_NATIVE_DOUBLE),
        RD_NUM(R, kernel, H5T_NATIVE_DOUBLE),
        RD_NUM(R, combine, H5T_NATIVE_DOUBLE),
        RD_NUM(R, result, H5T_NATIVE_DOUBLE),
        RD_NUM(R, verify, H5T_NATIVE_DOUBLE),
        RD_NUM(R, placement, H5T_NATIVE_DOUBLE),
        RD_NUM(R, total, H5T_NATIVE_DOUBLE),
    };
    memset(rows, 0, sizeof rows);
    CHECK(rd_table(f, "mpi/ranks", sizeof(R), cols, sizeof cols / sizeof cols[0], rows, 3) == 0,
          "/mpi/ranks does not read with exactly the documented columns");
    const R *r = &rows[2];
    CHECK(r->rank == 2 && r->local_rank == 0 && strcmp(r->host, "node-b") == 0
              && strcmp(r->boot_id, "0b5e55ed-0000-4000-8000-000000000001") == 0 && r->n_threads == 1
              && r->first_thread == 2 && r->coords_x == 2 && r->coords_y == 0 && r->own_begin_x == 3
              && r->own_end_x == 4 && r->own_begin_y == 1 && r->own_end_y == FX_NY - 1 && r->partial == 4.5
              && r->time_min == 4.0 / 1024 && r->time_median == 6.0 / 1024 && r->time_max == 8.0 / 1024
              && r->halo == FX_ITER / 4096.0 && r->reduction == 1.0 / 65536 && r->allocation == 3.0 / 8192
              && r->init == 3.0 / 256 && r->kernel == f_kernel(2) && r->combine == 3.0 / 32768 && r->result == 0.0
              && r->verify == 3.0 / 128 && r->placement == 3.0 / 2048 && r->total == 1.0 + 2.0 / 64,
          "/mpi/ranks row 2 wrong (host '%s')", r->host);
    expect_units(f, "mpi/ranks",
                 "time_min: s, time_median: s, time_max: s, halo: s, reduction: s, allocation: s, init: s, kernel: s, "
                 "combine: s, result: s, verify: s, placement: s, total: s");
    hsize_t dims[3] = { 0 };
    double it[3][FX_ITER];
    CHECK(rd_dims(f, "mpi/rank_iteration", dims) == 2 && dims[0] == 3 && dims[1] == FX_ITER,
          "/mpi/rank_iteration is not ranks x iterations");
    CHECK(rd_all(f, "mpi/rank_iteration", H5T_NATIVE_DOUBLE, it, 3 * FX_ITER) == 0 && it[1][4] == 7.0 / 1024,
          "/mpi/rank_iteration[1][4]");
    CHECK(rd_all(f, "mpi/rank_halo_iteration", H5T_NATIVE_DOUBLE, it, 3 * FX_ITER) == 0 && it[2][0] == 1.0 / 4096,
          "/mpi/rank_halo_iteration[2][0]");
    for (int i = 0; i < 2; i++) {
        const char *name = i ? "mpi/rank_halo_iteration" : "mpi/rank_iteration";
        expect_units(f, name, "s");
        expect_str_attr(f, name, "dims", "rank, iteration");
    }

    struct trow {
        int32_t thread, rank, local_rank;
        char host[64];
    } threads[FX_THREADS];
    typedef struct trow T;
    const struct rd_col tcols[] = {
        RD_NUM(T, thread, H5T_NATIVE_INT32),
        RD_NUM(T, rank, H5T_NATIVE_INT32),
        RD_NUM(T, local_rank, H5T_NATIVE_INT32),
        RD_STR(T, host),
    };
    memset(threads, 0, sizeof threads);
    hid_t set = H5Dopen2(f, "threads/table", H5P_DEFAULT), mem = H5Tcreate(H5T_COMPOUND, sizeof(T)),
          str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, sizeof threads[0].host);
    for (size_t c = 0; c < 4; c++)
        H5Tinsert(mem, tcols[c].name, tcols[c].offset, tcols[c].str_size ? str : tcols[c].type);
    CHECK(set >= 0 && H5Dread(set, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, threads) >= 0,
          "/threads/table has no rank, local_rank or host column");
    CHECK(threads[1].rank == 1 && threads[1].local_rank == 1 && strcmp(threads[1].host, "node-a") == 0
              && threads[2].rank == 2 && threads[2].local_rank == 0 && strcmp(threads[2].host, "node-b") == 0,
          "/threads/table rank columns wrong");
    H5Tclose(str);
    H5Tclose(mem);
    H5Dclose(set);
    int32_t tr[FX_THREADS] = { -1, -1, -1 };
    CHECK(rd_all(f, "placement/thread_rank", H5T_NATIVE_INT32, tr, FX_THREADS) == 0 && tr[0] == 0 && tr[2] == 2,
          "/placement/thread_rank wrong");
    expect_units(f, "placement/thread_rank", "1");
    H5Fclose(f);
}

/* read: in this process, or in a child as the commands read (the ranks come back through a pipe). */
static void check_read_back(const char *path, const struct io_fixture *fx,
                            int (*read)(const char *, struct ts_run_summary *, struct ts_error *))
{
    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    REQUIRE(read(path, &s, &err) == TS_OK, "the reader refuses the 3-rank file: %s", err.message);
    CHECK(s.schema_version == 4 && s.n_ranks == 3 && s.n_hosts == 2 && s.shared_kernel == 1, "counts: %d ranks",
          s.n_ranks);
    CHECK(strcmp(s.launcher, "OMPI_COMM_WORLD_SIZE=3") == 0 && strcmp(s.thread_level, "MPI_THREAD_FUNNELED") == 0
              && strcmp(s.decomposition, "3x1") == 0 && strncmp(s.mpi_library, "Open MPI v4.1.4", 15) == 0,
          "/mpi strings");
    REQUIRE(s.ranks && s.rank_iteration && s.rank_halo_iteration, "rank arrays missing");
    for (int k = 0; k < 3; k++)
        CHECK(memcmp(&s.ranks[k], &fx->ranks[k], sizeof s.ranks[k]) == 0, "rank %d differs from the record", k);
    CHECK(memcmp(s.rank_iteration, fx->rank_iteration, sizeof fx->rank_iteration) == 0, "rank_iteration differs");
    CHECK(memcmp(s.rank_halo_iteration, fx->rank_halo_iteration, sizeof fx->rank_halo_iteration) == 0,
          "rank_halo_iteration differs");
    ts_run_summary_free(&s);
    CHECK(!s.ranks && !s.rank_iteration && s.n_ranks == 0, "ts_run_summary_free leaves the ranks");
}

static void roundtrip(void)
{
    static struct io_fixture fx;
    struct audit a;
    char path[4200];
    write_mpi_run(&fx, &a, "mpi.h5", path, sizeof path);
    check_file(path);
    check_read_back(path, &fx, ts_run_read_file);
    check_read_back(path, &fx, ts_run_read_file_isolated);
    /* A run not launched: rank columns of zeros, no /mpi, the reader says no ranks. */
    io_fixture_full(&fx);
    readable(&fx);
    fill_audit(&a, NULL);
    fx.rec.placement = &a.rec;
    path_of(path, sizeof path, "single.h5");
    write_or_die(&fx.rec, path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int32_t tr[FX_THREADS] = { -1, -1, -1 };
    CHECK(H5Lexists(f, "mpi", H5P_DEFAULT) == 0, "/mpi written for a run not launched");
    CHECK(rd_all(f, "placement/thread_rank", H5T_NATIVE_INT32, tr, FX_THREADS) == 0 && !tr[0] && !tr[1] && !tr[2],
          "/placement/thread_rank is not zeros without ranks");
    H5Fclose(f);
    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    CHECK(ts_run_read_file(path, &s, &err) == TS_OK && s.n_ranks == 0 && !s.ranks, "single: %s", err.message);
    ts_run_summary_free(&s);
}

static int dropped(const char *name, const char *const *drop)
{
    for (; *drop; drop++)
        if (strcmp(name, *drop) == 0)
            return 1;
    return 0;
}

/* Rewrites the table at path with every column but those named in drop (NULL-terminated), as an
 * older schema wrote it. */
static int strip_columns(hid_t f, const char *path, const char *const *drop)
{
    hid_t set = H5Dopen2(f, path, H5P_DEFAULT), ftype = H5Dget_type(set), space = H5Dget_space(set);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    size_t size = H5Tget_size(ftype);
    int members = H5Tget_nmembers(ftype);
    hid_t old = H5Tcreate(H5T_COMPOUND, size);
    size_t offset = 0;
    for (int i = 0; i < members; i++) {
        char *name = H5Tget_member_name(ftype, (unsigned)i);
        hid_t mt = H5Tget_member_type(ftype, (unsigned)i);
        if (!dropped(name, drop)) {
            H5Tinsert(old, name, offset, mt);
            offset += H5Tget_size(mt);
        }
        H5Tclose(mt);
        H5free_memory(name);
    }
    H5Tset_size(old, offset);
    unsigned char *rows = calloc((size_t)n, offset);
    int bad = !rows || H5Dread(set, old, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
    hid_t units = H5Aopen(set, "units", H5P_DEFAULT), utype = H5Aget_type(units);
    char *u = NULL;
    bad = bad || H5Aread(units, utype, &u) < 0;
    H5Aclose(units);
    H5Dclose(set);
    bad = bad || H5Ldelete(f, path, H5P_DEFAULT) < 0;
    hid_t aspace = H5Screate(H5S_SCALAR);
    set = bad ? -1 : H5Dcreate2(f, path, old, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad = bad || set < 0 || H5Dwrite(set, old, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
    if (!bad) {
        hid_t a = H5Acreate2(set, "units", utype, aspace, H5P_DEFAULT, H5P_DEFAULT);
        bad = a < 0 || H5Awrite(a, utype, &u) < 0;
        H5Aclose(a);
    }
    H5free_memory(u);
    if (set >= 0)
        H5Dclose(set);
    H5Sclose(aspace);
    H5Tclose(utype);
    H5Tclose(old);
    H5Tclose(ftype);
    H5Sclose(space);
    free(rows);
    return bad;
}

/* /threads/table as schema 2 wrote it: no rank, local_rank, host. */
static int strip_rank_columns(hid_t f)
{
    static const char *const drop[] = { "rank", "local_rank", "host", NULL };
    return strip_columns(f, "threads/table", drop);
}

/* Damage one copy of the 3-rank file per case. An attribute is deleted and made again:
 * HDF5 1.10 cannot rewrite one in place in these files ("can't locate open attribute"). */
static int set_int(hid_t f, const char *obj, const char *name, int32_t v)
{
    if (H5Adelete_by_name(f, obj, name, H5P_DEFAULT) < 0)
        return 1;
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate_by_name(f, obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int bad = a < 0 || H5Awrite(a, H5T_NATIVE_INT32, &v) < 0;
    H5Aclose(a);
    H5Sclose(space);
    return bad;
}

static void expect_refused(const char *path, const char *what, const char *message)
{
    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    int st = ts_run_read_file(path, &s, &err);
    CHECK(st == TS_BAD_INPUT, "%s: read with status %d", what, st);
    CHECK(strstr(err.message, path) && strstr(err.message, message), "%s: message '%s' lacks '%s'", what, err.message,
          message);
    CHECK(!s.ranks && !s.rank_iteration && !s.rank_halo_iteration, "%s: arrays left after the error", what);
}

static void schema2(void)
{
    static struct io_fixture fx;
    struct audit a;
    char path[4200], older[4200];
    io_fixture_full(&fx);
    readable(&fx);
    fill_audit(&a, NULL);
    fx.rec.placement = &a.rec;
    path_of(path, sizeof path, "schema2.h5");
    path_of(older, sizeof older, "no-columns.h5");
    write_or_die(&fx.rec, path);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0 && strip_rank_columns(f) == 0 && H5Ldelete(f, "placement/thread_rank", H5P_DEFAULT) >= 0,
            "cannot make a schema 2 file");
    H5Fclose(f);
    /* The same bytes, still saying this schema: the columns it promises are missing. */
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, older);
    REQUIRE(system(cmd) == 0, "cp");
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0 && set_int(f, "/", "schema_version", 2) == 0, "cannot set schema_version 2");
    H5Fclose(f);

    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    CHECK(ts_run_read_file(path, &s, &err) == TS_OK, "a schema 2 file is refused: %s", err.message);
    CHECK(s.schema_version == 2 && s.n_ranks == 0 && s.n_hosts == 0 && !s.ranks && !s.rank_iteration
              && s.launcher[0] == '\0',
          "schema 2: not read with the defaults of a run without ranks");
    CHECK(s.n_threads == FX_THREADS && s.n_iterations == FX_ITER, "schema 2: the rest of the file");
    ts_run_summary_free(&s);
    expect_refused(older, "schema 4 without rank columns",
                   "/threads/table: expected 1-D compound of 3 rows (/results@n_threads) (field rank: an integer)");
}

/* Everything fn printed to a scratch file, malloc'd. */
static char *printed(const struct ts_run_summary *s)
{
    FILE *f = tmpfile();
    REQUIRE(f != NULL, "tmpfile");
    ts_ranks_print(s, f);
    long n = ftell(f);
    char *text = calloc((size_t)n + 1, 1);
    rewind(f);
    REQUIRE(text && fread(text, 1, (size_t)n, f) == (size_t)n, "reading the printed text back");
    fclose(f);
    return text;
}

/* A run across ranks as schema 3 wrote it: /mpi/ranks without the ranks' own run-level times
 * (its /timings were rank 0's). It reads, those times NaN (not known) and the rest as written;
 * the same table in a file that says schema 4 is refused. */
static void schema3(void)
{
    static struct io_fixture fx;
    struct audit a;
    char path[4200], older[4200];
    write_mpi_run(&fx, &a, "schema3.h5", path, sizeof path);
    path_of(older, sizeof older, "no-own-times.h5");
    static const char *const own[] = { "allocation", "init",      "kernel", "combine", "result",
                                       "verify",     "placement", "total",  NULL };
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0 && strip_columns(f, "mpi/ranks", own) == 0, "cannot make a schema 3 file");
    H5Fclose(f);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, older);
    REQUIRE(system(cmd) == 0, "cp");
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0 && set_int(f, "/", "schema_version", 3) == 0, "cannot set schema_version 3");
    H5Fclose(f);

    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    REQUIRE(ts_run_read_file(path, &s, &err) == TS_OK, "a schema 3 file across ranks is refused: %s", err.message);
    CHECK(s.schema_version == 3 && s.n_ranks == 3 && s.ranks, "schema 3: the ranks");
    for (int k = 0; s.ranks && k < 3; k++) {
        const struct ts_rank_rec *r = &s.ranks[k];
        CHECK(isnan(r->allocation) && isnan(r->init) && isnan(r->kernel) && isnan(r->combine) && isnan(r->result)
                  && isnan(r->verify) && isnan(r->placement) && isnan(r->total),
              "schema 3: rank %d's own times are not NaN", k);
        CHECK(r->partial == fx.ranks[k].partial && r->time_median == fx.ranks[k].time_median
                  && r->reduction == fx.ranks[k].reduction && strcmp(r->host, fx.ranks[k].host) == 0,
              "schema 3: rank %d's other columns", k);
    }
    char *text = printed(&s);
    CHECK(strstr(text, "0.001221    -\n") != NULL, "schema 3: show's kernel column is not '-':\n%s", text);
    free(text);
    ts_run_summary_free(&s);
    expect_refused(older, "schema 4 without the ranks' own times",
                   "/mpi/ranks: expected 1-D compound of 3 rows (/mpi@size) (field allocation: a float)");
}

/* Sets the integer field of row `row` of a compound table. */
static int set_field(hid_t f, const char *path, const char *field, hsize_t row, int32_t v)
{
    hid_t set = H5Dopen2(f, path, H5P_DEFAULT), space = H5Dget_space(set);
    hid_t mem = H5Tcreate(H5T_COMPOUND, sizeof v), one = H5Screate_simple(1, (hsize_t[]){ 1 }, NULL);
    int bad = H5Tinsert(mem, field, 0, H5T_NATIVE_INT32) < 0
              || H5Sselect_elements(space, H5S_SELECT_SET, 1, (hsize_t[]){ row }) < 0
              || H5Dwrite(set, mem, one, space, H5P_DEFAULT, &v) < 0;
    H5Sclose(one);
    H5Tclose(mem);
    H5Sclose(space);
    H5Dclose(set);
    return bad;
}

static int set_double(hid_t f, const char *path, hsize_t i, hsize_t j, double v)
{
    hid_t set = H5Dopen2(f, path, H5P_DEFAULT), space = H5Dget_space(set);
    hid_t one = H5Screate_simple(1, (hsize_t[]){ 1 }, NULL);
    int bad = H5Sselect_elements(space, H5S_SELECT_SET, 1, (hsize_t[]){ i, j }) < 0
              || H5Dwrite(set, H5T_NATIVE_DOUBLE, one, space, H5P_DEFAULT, &v) < 0;
    H5Sclose(one);
    H5Sclose(space);
    H5Dclose(set);
    return bad;
}

/* rank_iteration of 3 x (FX_ITER - 1) values. */
static int shorten(hid_t f)
{
    double v[3 * (FX_ITER - 1)] = { 0 };
    if (H5Ldelete(f, "mpi/rank_iteration", H5P_DEFAULT) < 0)
        return 1;
    hid_t space = H5Screate_simple(2, (hsize_t[]){ 3, FX_ITER - 1 }, NULL);
    hid_t set = H5Dcreate2(f, "mpi/rank_iteration", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int bad = set < 0 || H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    H5Dclose(set);
    H5Sclose(space);
    return bad;
}

static int damage(hid_t f, int c)
{
    switch (c) {
    case 0: return set_int(f, "mpi", "size", 2);
    case 1: return set_int(f, "mpi", "size", 4);
    case 2: return set_int(f, "mpi", "n_hosts", 3);
    case 3: return set_field(f, "mpi/ranks", "first_thread", 1, 2);
    case 4: return set_field(f, "mpi/ranks", "rank", 1, 2);
    case 5: return set_field(f, "mpi/ranks", "n_threads", 2, 2);
    case 6: return set_field(f, "threads/table", "rank", 2, 1);
    case 7: return shorten(f);
    case 8: return set_double(f, "mpi/rank_iteration", 0, 0, 1.0);
    case 9: return set_double(f, "mpi/rank_halo_iteration", 1, 1, NAN);
    case 10: return set_field(f, "mpi/ranks", "local_rank", 0, 3);
    case 11: return set_int(f, "mpi", "shared_kernel", 2);
    default: return H5Ldelete(f, "mpi/rank_halo_iteration", H5P_DEFAULT) < 0;
    }
}

static void malformed(void)
{
    static const char *const expected[] = {
        "/mpi/ranks: expected 1-D compound of 2 rows (/mpi@size), found",
        "/mpi@size: 4 ranks, more than the run's 3 threads",
        "/mpi@n_hosts: 3, but /mpi/ranks names 2 distinct hosts",
        "/mpi/ranks:first_thread: rank 1 starts at thread row 2, expected 1",
        "/mpi/ranks:rank: row 1 holds rank 2",
        "/mpi/ranks:n_threads: ranks 0 to 2 have 4 threads, more than the run's 3",
        "/threads/table:rank: row 2: rank 1, local rank 0; /mpi/ranks says rank 2, local rank 0",
        "/mpi/rank_iteration: expected 2-D double of 3 x 5 values (/mpi@size x /timings@n_iterations)",
        ("/mpi/ranks:time_min: rank 0: min 0.001953125, max 0.005859375, but /mpi/rank_iteration[0] holds times "
         "from 0.0029296875 to 1"),
        "/mpi/rank_halo_iteration: [1][1] is NaN, its iteration time a number",
        "/mpi/ranks:local_rank: value [0] = 3 is out of range, expected 0..2",
        "/mpi@shared_kernel: 2 is out of range, expected 0..1",
        "/mpi/rank_halo_iteration: missing (expected 2-D double of 3 x 5 values",
    };
    static struct io_fixture fx;
    struct audit a;
    char good[4200], path[4200], cmd[9000];
    write_mpi_run(&fx, &a, "good.h5", good, sizeof good);
    for (int c = 0; c < (int)(sizeof expected / sizeof expected[0]); c++) {
        char name[32], what[48];
        snprintf(name, sizeof name, "bad-%d.h5", c);
        snprintf(what, sizeof what, "damage %d", c);
        path_of(path, sizeof path, name);
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", good, path);
        REQUIRE(system(cmd) == 0, "cp");
        hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        REQUIRE(f >= 0 && damage(f, c) == 0, "cannot damage the file %s (case %d)", path, c);
        H5Fclose(f);
        expect_refused(path, what, expected[c]);
    }
}

static void expect_write_refused(struct io_fixture *fx, const char *what, const char *message)
{
    char path[4200];
    path_of(path, sizeof path, "refused.h5");
    struct ts_error err;
    ts_error_clear(&err);
    int st = ts_record_write(&fx->rec, path, &err);
    CHECK(st == TS_INTERNAL_ERROR && strstr(err.message, message), "%s: status %d, '%s' lacks '%s'", what, st,
          err.message, message);
    CHECK(access(path, F_OK) != 0, "%s: a file was written", what);
}

static void writer(void)
{
    static struct io_fixture fx;
    io_fixture_mpi(&fx);
    fx.mpi.n_hosts = 3;
    expect_write_refused(&fx, "n_hosts", "/mpi: n_hosts 3, the ranks name 2");
    io_fixture_mpi(&fx);
    fx.ranks[1].first_thread = 2;
    expect_write_refused(&fx, "tiling", "/mpi/ranks row 1: rank 1, threads 1 from 2");
    io_fixture_mpi(&fx);
    fx.threads[2].rank = 0;
    expect_write_refused(&fx, "thread rank", "thread row 2 has rank 0, /mpi/ranks says 2");
    io_fixture_mpi(&fx);
    fx.ranks[0].time_max = 1;
    expect_write_refused(&fx, "rank times", "rank 0: time min");
    io_fixture_mpi(&fx);
    fx.ranks[1].total = NAN; /* not yet known: ts_run_ranks_total fills it as rank 0 writes */
    expect_write_refused(&fx, "own time", "rank 1: total time nan");
    io_fixture_mpi(&fx);
    fx.mpi.rank_halo_iteration = NULL;
    expect_write_refused(&fx, "halo array", "rank halo times but no array of them");
    io_fixture_full(&fx);
    fx.threads[1].rank = 1;
    expect_write_refused(&fx, "rank without /mpi", "thread row 1 has rank 1 but no /mpi");
}

static void show(void)
{
    static struct io_fixture fx;
    struct audit a;
    char path[4200];
    write_mpi_run(&fx, &a, "show.h5", path, sizeof path);
    struct ts_run_summary s;
    struct ts_error err;
    ts_error_clear(&err);
    REQUIRE(ts_run_read_file(path, &s, &err) == TS_OK, "read: %s", err.message);
    char *text = printed(&s);
    static const char *const lines[] = {
        "\nranks      3 on 2 hosts (some share one kernel: an emulated cluster), decomposition 3x1\n",
        "MPI        Open MPI v4.1.4, package: Debian OpenMPI, MPI_THREAD_FUNNELED, launcher OMPI_COMM_WORLD_SIZE=3\n",
        "  rank  host    local  threads  owns               partial       min s       median s    max s       halo s   "
        "   "
        "kernel s\n",
        "     1  node-a      1        1  x [2, 3) y [1, 3)  3             0.00293     0.004883    0.006836    "
        "0.001221    0.02441\n",
        "     2  node-b      0        1  x [3, 4) y [1, 3)  4.5           0.003906    0.005859    0.007812    "
        "0.001221    0.0293\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        CHECK(strstr(text, lines[i]) != NULL, "the ranks section lacks\n%s-- it is:\n%s", lines[i], text);
    free(text);
    json_t *o = ts_ranks_json(&s);
    json_t *r2 = o ? json_array_get(json_object_get(o, "ranks"), 2) : NULL;
    CHECK(o && json_integer_value(json_object_get(o, "size")) == 3
              && strcmp(json_string_value(json_object_get(o, "decomposition")), "3x1") == 0 && r2
              && strcmp(json_string_value(json_object_get(r2, "host")), "node-b") == 0
              && json_integer_value(json_object_get(r2, "threads")) == 1
              && json_real_value(json_object_get(r2, "time_max_s")) == 8.0 / 1024
              && json_real_value(json_object_get(r2, "halo_s")) == FX_ITER / 4096.0
              && json_real_value(json_object_get(r2, "kernel_s")) == f_kernel(2)
              && json_real_value(json_object_get(r2, "total_s")) == 1.0 + 2.0 / 64
              && json_integer_value(json_array_get(json_object_get(r2, "own_end"), 1)) == FX_NY - 1,
          "the ranks' JSON");
    json_decref(o);
    ts_run_summary_free(&s);
    /* Without /mpi: no section, JSON null. */
    text = printed(&s);
    CHECK(text[0] == '\0', "a run without ranks printed a ranks section: %s", text);
    free(text);
    o = ts_ranks_json(&s);
    CHECK(json_is_null(o), "a run without ranks: JSON is not null");
    json_decref(o);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } modes[] = { { "roundtrip", roundtrip }, { "schema2", schema2 }, { "schema3", schema3 },
                  { "malformed", malformed }, { "writer", writer },   { "show", show } };
    size_t m = 0;
    while (m < sizeof modes / sizeof modes[0] && (argc < 2 || strcmp(argv[1], modes[m].name)))
        m++;
    if (m == sizeof modes / sizeof modes[0]) {
        fprintf(stderr, "usage: %s roundtrip|schema2|schema3|malformed|writer|show\n", argv[0]);
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    io_dir_make(dir, sizeof dir);
    modes[m].run();
    io_dir_remove(dir);
    return ts_test_finish();
}
