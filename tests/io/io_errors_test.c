/* Output that cannot be written: refused with the path and the OS reason, nothing printed,
 * nothing left behind, an existing file untouched. One case per argv[1]. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "h5_read.h"
#include "io_fixture.h"
#include "ts_h5_write.h"

static struct io_fixture fx;

struct write_call {
    const char *path;
    struct ts_error err;
    int status;
};

static void do_write(void *arg)
{
    struct write_call *c = arg;
    c->status = ts_record_write(&fx.rec, c->path, &c->err);
}

/* Runs the writer with stderr captured: HDF5 must never print on its own. */
static struct write_call write_quietly(const char *path)
{
    struct write_call c = { .path = path };
    long printed = io_stderr_bytes(do_write, &c);
    CHECK(printed == 0, "writing %s printed %ld bytes to stderr", path, printed);
    return c;
}

/* Both the pre-run check and the writer refuse path, naming it and the reason. */
static void expect_refused(const char *path, const char *reason)
{
    struct ts_error err = { 0 };
    int st = ts_output_check(path, &err);
    CHECK(st == TS_BAD_INPUT && strstr(err.message, path) && strstr(err.message, reason),
          "ts_output_check(%s) gave %d \"%s\", expected the path and \"%s\"", path, st, err.message, reason);
    struct write_call c = write_quietly(path);
    CHECK(c.status == TS_BAD_INPUT && strstr(c.err.message, path) && strstr(c.err.message, reason),
          "ts_record_write(%s) gave %d \"%s\", expected the path and \"%s\"", path, c.status, c.err.message, reason);
}

static void missing_dir(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/nope/run.h5", dir);
    expect_refused(path, "No such file or directory");
    CHECK(io_dir_entries(dir) == 0, "something was created in %s", dir);
}

/* Tests run as root, for whom mode 0555 stops nothing. sysfs refuses to create files for
 * everyone, root included (EACCES, or EROFS where /sys is mounted read-only), so it stands in
 * for a read-only directory; the reason expected is whatever the OS gives for a plain create. */
static void readonly(const char *dir)
{
    const char *path = "/sys/touchstone-test.h5";
    int fd = open("/sys/touchstone-test.h5.probe", O_WRONLY | O_CREAT | O_EXCL, 0666);
    CHECK(fd < 0, "/sys accepts new files here: the test needs another read-only place");
    if (fd >= 0) {
        close(fd);
        unlink("/sys/touchstone-test.h5.probe");
        return;
    }
    expect_refused(path, strerror(errno));
    CHECK(access(path, F_OK) != 0, "%s exists after a refused write", path);

    if (geteuid() != 0) {
        char sub[4200], sub_path[4300];
        snprintf(sub, sizeof sub, "%s/ro", dir);
        mkdir(sub, 0555);
        snprintf(sub_path, sizeof sub_path, "%s/run.h5", sub);
        expect_refused(sub_path, "Permission denied");
        CHECK(io_dir_entries(sub) == 0, "something was created in read-only %s", sub);
    }
}

static void is_dir(const char *dir)
{
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/out.h5", dir);
    mkdir(sub, 0755);
    expect_refused(sub, "Is a directory");
    struct stat st;
    CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && io_dir_entries(sub) == 0 && io_dir_entries(dir) == 1,
          "the directory %s was changed", sub);
}

/* A real mid-write failure: a file size limit below the file's size makes write() fail with
 * EFBIG (SIGXFSZ ignored) partway, as a full disk or quota would. */
static void atomic_fsize(const char *dir)
{
    enum { NY = 256, NX = 1024 }; /* 2 MiB of doubles against a 256 KiB limit */
    static double field[NY * NX];
    unsigned long long x = 88172645463325252ull;
    for (size_t i = 0; i < NY * NX; i++) { /* xorshift: deflate cannot shrink it much */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        field[i] = (double)(x >> 11) * 0x1p-53;
    }
    fx.rec.field = field;
    fx.rec.field_dims[0] = 1, fx.rec.field_dims[1] = NY, fx.rec.field_dims[2] = NX;

    char path[4200];
    const char before[] = "previous run, must survive\n";
    snprintf(path, sizeof path, "%s/run.h5", dir);
    FILE *f = fopen(path, "wb");
    fputs(before, f);
    fclose(f);

    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = { 256 * 1024, old.rlim_max };
    setrlimit(RLIMIT_FSIZE, &small);
    struct write_call c = write_quietly(path);
    setrlimit(RLIMIT_FSIZE, &old);

    CHECK(c.status == TS_IO_ERROR && strstr(c.err.message, path) && strstr(c.err.message, "File too large"),
          "a write over the size limit gave %d \"%s\"", c.status, c.err.message);
    char got[sizeof before + 8] = "";
    f = fopen(path, "rb");
    size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
    if (f)
        fclose(f);
    CHECK(n == strlen(before) && strcmp(got, before) == 0, "%s changed by a failed write", path);
    CHECK(io_dir_entries(dir) == 1, "temporary files left in %s", dir);
    CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0, "HDF5 objects left open");

    c = write_quietly(path);
    CHECK(c.status == TS_OK && H5Fis_hdf5(path) > 0 && io_dir_entries(dir) == 1,
          "writing again without the limit failed: %s", c.err.message);
}

static void bad_record(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.h5", dir);
    fx.rec.threads = NULL;
    struct write_call c = write_quietly(path);
    CHECK(c.status == TS_INTERNAL_ERROR && strstr(c.err.message, path) && strstr(c.err.message, "thread rows"),
          "3 thread rows without an array gave %d \"%s\"", c.status, c.err.message);
    fx.rec.threads = fx.threads;

    /* A failure inside HDF5 itself: the message names the object being written. */
    snprintf(fx.config[1].name, sizeof fx.config[1].name, "%s", fx.config[0].name);
    c = write_quietly(path);
    CHECK(c.status == TS_INTERNAL_ERROR && strstr(c.err.message, path)
              && strstr(c.err.message, "attribute /config/run.kernel"),
          "a duplicate config key gave %d \"%s\"", c.status, c.err.message);

    fx.rec.topology = NULL;
    c = write_quietly(path);
    CHECK(c.status == TS_INTERNAL_ERROR && strstr(c.err.message, "topology"),
          "a record without topology gave %d \"%s\"", c.status, c.err.message);
    CHECK(io_dir_entries(dir) == 0, "a refused record left files in %s", dir);
}

/* What the ranks do between the two stages of a file they write together, done here by one
 * process with serial HDF5: the field's values into the dataset rank 0 created empty. */
struct fill_probe {
    const char *final_path;
    int fail;         /* return this failure instead of writing */
    int final_there;  /* the final name existed while the ranks wrote */
    const char *swap; /* put a link to this file in the temporary file's place instead */
};

static int fill_field(const char *tmp, void *ctx, struct ts_error *err)
{
    struct fill_probe *p = ctx;
    p->final_there = access(p->final_path, F_OK) == 0;
    if (p->fail)
        return ts_fail(err, TS_IO_ERROR, "rank 2: cannot write /field/u: No space left on device");
    if (p->swap)
        return unlink(tmp) == 0 && symlink(p->swap, tmp) == 0 ? TS_OK : ts_fail(err, TS_IO_ERROR, "swap failed");
    hid_t file = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t set = file < 0 ? -1 : H5Dopen2(file, "/field/u", H5P_DEFAULT);
    herr_t wrote = set < 0 ? -1 : H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, fx.field);
    if (set >= 0)
        H5Dclose(set);
    if (file >= 0)
        H5Fclose(file);
    return wrote < 0 ? ts_fail(err, TS_IO_ERROR, "cannot write the field into %s", tmp) : TS_OK;
}

/* A record whose field the ranks write (field_later): the file gets its name only after the
 * fill, with the fill's values; a failed fill leaves the previous file and no temporary. */
static void filled_by_ranks(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.h5", dir);
    const char before[] = "previous run, must survive\n";
    FILE *f = fopen(path, "wb");
    fputs(before, f);
    fclose(f);
    fx.rec.field = NULL;
    fx.rec.field_later = 1;

    struct ts_error err = { 0 };
    struct ts_place place = { .path = path, .replace = 1 };
    CHECK(ts_record_write_placed(&fx.rec, &place, NULL, &err) == TS_INTERNAL_ERROR,
          "a field left to ranks without a fill was written");

    struct fill_probe probe = { .final_path = path, .fail = 1 };
    struct ts_h5_fill fill = { fill_field, &probe };
    int st = ts_record_write_placed(&fx.rec, &place, &fill, &err);
    CHECK(st == TS_IO_ERROR && strstr(err.message, "rank 2: cannot write /field/u"), "a failed fill gave %d \"%s\"", st,
          err.message);
    char got[sizeof before + 8] = "";
    f = fopen(path, "rb");
    size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
    if (f)
        fclose(f);
    CHECK(n == strlen(before) && strcmp(got, before) == 0, "%s changed by a write whose fill failed", path);
    CHECK(io_dir_entries(dir) == 1, "a failed fill left its temporary file in %s", dir);

    probe.fail = 0;
    unlink(path);
    st = ts_record_write_placed(&fx.rec, &place, &fill, &err);
    CHECK(st == TS_OK, "the filled write failed: %s", err.message);
    CHECK(!probe.final_there, "the final name existed while the ranks were writing");
    double back[FX_NY * FX_NX] = { 0 };
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file >= 0 && rd_all(file, "/field/u", H5T_NATIVE_DOUBLE, back, FX_NY * FX_NX) == 0
              && memcmp(back, fx.field, sizeof back) == 0,
          "/field/u does not hold what the fill wrote");
    if (file >= 0)
        H5Fclose(file);
    CHECK(io_dir_entries(dir) == 1, "temporary files left in %s", dir);

    /* In a folder others write to, a link put in the temporary file's place while the ranks
     * write is neither written through nor given the output's name. */
    char victim[4300];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    f = fopen(victim, "wb");
    fputs(before, f);
    fclose(f);
    unlink(path);
    probe.swap = victim;
    st = ts_record_write_placed(&fx.rec, &place, &fill, &err);
    CHECK(st == TS_IO_ERROR && strstr(err.message, "was replaced"),
          "a temporary file swapped for a link gave %d \"%s\"", st, err.message);
    struct stat sb;
    CHECK(lstat(path, &sb) != 0, "the link took the output's name %s", path);
    f = fopen(victim, "rb");
    n = f ? fread(got, 1, sizeof got - 1, f) : 0;
    got[n] = '\0';
    if (f)
        fclose(f);
    CHECK(n == strlen(before) && strcmp(got, before) == 0, "the file the link named was written");
    CHECK(io_dir_entries(dir) == 1, "the link was left in %s", dir);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(const char *dir);
    } cases[] = {
        { "unwritable.missing_dir", missing_dir }, { "unwritable.readonly", readonly },
        { "unwritable.is_dir", is_dir },           { "atomic.fsize", atomic_fsize },
        { "record.invalid", bad_record },          { "atomic.filled", filled_by_ranks },
    };
    for (size_t i = 0; argc > 1 && i < sizeof cases / sizeof cases[0]; i++) {
        if (strcmp(argv[1], cases[i].name) != 0)
            continue;
        io_fixture_full(&fx);
        char dir[4096];
        io_dir_make(dir, sizeof dir);
        cases[i].run(dir);
        io_dir_remove(dir);
        return ts_test_finish();
    }
    fprintf(stderr, "usage: %s CASE (unknown case)\n", argv[0]);
    return 2;
}
