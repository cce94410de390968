/* How a finished temporary file takes its name (io/ts_file_place.c) when another file arrives
 * at that name between the look and the rename: the moment a stopped or preempted run loses
 * (tests/cli/test_output.sh stops runs at random moments and met it). The look is an lstat;
 * this test is linked with -Wl,--wrap=lstat, so that its __wrap_lstat can put a foreign file
 * under the name right after a chosen look, every time:
 *   own_replaced   this run's own earlier file is replaced, its old file gone, no temporary left
 *   foreign_kept   a foreign file arriving after the look that saw the run's own: it stays,
 *                  the run's file moves on to the next name, and `written` is that file
 *   written_is_ours  `written` describes the file placed even when another takes the name right
 *                  after the rename */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ts_error.h"
#include "ts_file_place.h"
#include "ts_test.h"

static char dir[4096];

/* Armed: at the look number `armed_skip` + 1 at `armed_path` (counting from the arming),
 * `armed_from` is renamed over it, before that lstat when armed_before, else right after it. */
static char armed_path[4200], armed_from[4200];
static int armed_skip, armed_before;

static void put_foreign(const char *path)
{
    armed_path[0] = '\0';
    if (rename(armed_from, path) != 0)
        FAIL("cannot put %s under %s: %s", armed_from, path, strerror(errno));
}

int __real_lstat(const char *path, struct stat *st);
int __wrap_lstat(const char *path, struct stat *st);
int __wrap_lstat(const char *path, struct stat *st)
{
    const int mine = armed_path[0] && strcmp(path, armed_path) == 0 && armed_skip-- == 0;
    if (mine && armed_before)
        put_foreign(path);
    const int rc = __real_lstat(path, st);
    if (mine && !armed_before)
        put_foreign(path);
    return rc;
}

static void arm(const char *path, const char *from, int skip, int before)
{
    snprintf(armed_from, sizeof armed_from, "%s", from);
    armed_skip = skip;
    armed_before = before;
    snprintf(armed_path, sizeof armed_path, "%s", path);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    REQUIRE(f, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void read_text(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static int exists(const char *path)
{
    struct stat st;
    return __real_lstat(path, &st) == 0;
}

static const char *next_name(void *ctx, const char *path)
{
    (void)path;
    return ctx;
}

/* A temporary file beside `final` holding text, as the writers make them. */
static void temp_with(const char *final, const char *text, char *tmp, size_t len)
{
    struct ts_error err = { 0 };
    int fd = ts_file_create_temp(final, tmp, len, &err);
    REQUIRE(fd >= 0, "cannot create a temporary file for %s: %s", final, err.message);
    REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "cannot write %s", tmp);
    close(fd);
}

/* The run's first file at path: placed as new; its id, as the run keeps it. */
static struct ts_file_id first_file(const char *path)
{
    char tmp[4300];
    temp_with(path, "first", tmp, sizeof tmp);
    struct ts_place p = { .path = path };
    struct ts_error err = { 0 };
    REQUIRE(ts_file_place(tmp, &p, &err) == TS_OK, "placing the first file: %s", err.message);
    return p.written;
}

static void own_replaced(void)
{
    char path[4200], tmp[4300], text[64];
    snprintf(path, sizeof path, "%s/own.ckpt.h5", dir);
    struct ts_file_id own = first_file(path);
    temp_with(path, "second", tmp, sizeof tmp);
    struct ts_place p = { .path = path, .may_replace = &own, .n_may_replace = 1 };
    struct ts_error err = { 0 };
    CHECK(ts_file_place(tmp, &p, &err) == TS_OK, "replacing the run's own file: %s", err.message);
    read_text(path, text, sizeof text);
    CHECK(strcmp(text, "second") == 0, "the name holds '%s', not the new file", text);
    CHECK(!exists(tmp), "the temporary name %s is left (the old file under it?)", tmp);
    struct ts_file_id now = ts_file_id_of(path);
    CHECK(ts_file_id_same(&now, &p.written), "written is not the file placed");
}

static void foreign_kept(void)
{
    char path[4200], moved[4200], foreign[4200], tmp[4300], text[64];
    snprintf(path, sizeof path, "%s/race.ckpt.h5", dir);
    snprintf(moved, sizeof moved, "%s/race-2.ckpt.h5", dir);
    snprintf(foreign, sizeof foreign, "%s/someone-else", dir);
    struct ts_file_id own = first_file(path);
    temp_with(path, "second", tmp, sizeof tmp);
    write_text(foreign, "someone else's");
    /* The look sees the run's own file; right after it, the foreign one takes the name. */
    arm(path, foreign, 0, 0);
    struct ts_place p = { .path = path, .may_replace = &own, .n_may_replace = 1, .taken = next_name, .ctx = moved };
    struct ts_error err = { 0 };
    CHECK(ts_file_place(tmp, &p, &err) == TS_OK, "placing after a foreign file took the name: %s", err.message);
    CHECK(!armed_path[0], "the foreign file was never put under the name (no look at it?)");
    read_text(path, text, sizeof text);
    CHECK(strcmp(text, "someone else's") == 0, "the foreign file was replaced: the name holds '%s'", text);
    CHECK(strcmp(p.path, moved) == 0, "the file went to %s, expected the next name %s", p.path, moved);
    read_text(moved, text, sizeof text);
    CHECK(strcmp(text, "second") == 0, "the next name holds '%s', not the new file", text);
    CHECK(!exists(tmp), "the temporary name %s is left", tmp);
    struct ts_file_id there = ts_file_id_of(moved);
    CHECK(ts_file_id_same(&there, &p.written), "written is not the file placed under the next name");
}

static void written_is_ours(void)
{
    char path[4200], foreign[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/late.ckpt.h5", dir);
    snprintf(foreign, sizeof foreign, "%s/late-foreign", dir);
    temp_with(path, "ours", tmp, sizeof tmp);
    struct ts_file_id before = ts_file_id_of(tmp);
    write_text(foreign, "a later file");
    /* The name is free at the look; another file takes it before the next look at it, which a
     * placing that read `written` back from the name would make right after its rename. */
    arm(path, foreign, 1, 1);
    struct ts_place p = { .path = path };
    struct ts_error err = { 0 };
    CHECK(ts_file_place(tmp, &p, &err) == TS_OK, "placing as new: %s", err.message);
    struct ts_file_id now = ts_file_id_of(path);
    CHECK(!armed_path[0], "the later file was never put under the name");
    CHECK(ts_file_id_same(&p.written, &before), "written is not the file that was placed");
    CHECK(!ts_file_id_same(&now, &p.written), "written describes the file that took the name later");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s own_replaced|foreign_kept|written_is_ours\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/touchstone-place-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    REQUIRE(mkdtemp(dir), "cannot make a directory: %s", strerror(errno));
    if (strcmp(argv[1], "own_replaced") == 0)
        own_replaced();
    else if (strcmp(argv[1], "foreign_kept") == 0)
        foreign_kept();
    else if (strcmp(argv[1], "written_is_ours") == 0)
        written_is_ours();
    else
        FAIL("unknown case %s", argv[1]);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", dir);
    return ts_test_finish();
}
