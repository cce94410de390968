/* h5dump, the reference reader, must read a written file: headers (-H) and all data. */
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "io_fixture.h"
#include "ts_h5_write.h"

extern char **environ;

/* Runs h5dump with `flag` (may be NULL) on path, output to out; returns its exit status. */
static int run_h5dump(const char *flag, const char *path, const char *out)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char *argv[] = { "h5dump", (char *)(flag ? flag : path), (char *)(flag ? path : NULL), NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, "h5dump", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        CHECK(0, "cannot run h5dump (%s): install hdf5-tools", strerror(rc));
        return -1;
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The whole output file as a string (caller frees). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = '\0';
    fclose(f);
    return s;
}

static void write_sample(void (*fill)(struct io_fixture *), const char *path)
{
    static struct io_fixture fx;
    fill(&fx);
    struct ts_error err = { 0 };
    CHECK(ts_record_write(&fx.rec, path, &err) == TS_OK, "write failed: %s", err.message);
}

/* Fails unless h5dump exits 0 and its output shows every mark. */
static void expect_dump(const char *flag, const char *path, const char *out, const char *const *marks, size_t n)
{
    int status = run_h5dump(flag, path, out);
    CHECK(status == 0, "h5dump %s exited with %d on %s", flag ? flag : "", status, path);
    if (status != 0)
        return;
    char *text = slurp(out);
    for (size_t i = 0; i < n; i++)
        CHECK(strstr(text, marks[i]), "h5dump %s of %s shows no %s", flag ? flag : "", path, marks[i]);
    free(text);
}

int main(void)
{
    char dir[4096], full[4200], minimal[4200], out[4200];
    io_dir_make(dir, sizeof dir);
    snprintf(full, sizeof full, "%s/full.h5", dir);
    snprintf(minimal, sizeof minimal, "%s/minimal.h5", dir);
    snprintf(out, sizeof out, "%s/dump.txt", dir);
    write_sample(io_fixture_full, full);
    write_sample(io_fixture_minimal, minimal);

    const char *headers[] = { "GROUP \"topology\"",  "DATASET \"thread_iteration\"", "DATASET \"table\"",
                              "H5T_STR_NULLTERM",    "\"schema_version\"",           "DATASET \"u\"",
                              "DATASET \"warnings\"" };
    expect_dump("-H", full, out, headers, sizeof headers / sizeof headers[0]);
    const char *data[] = { "node 1 has 2 threads, node 0 has 1", "\"{3}\"" };
    expect_dump(NULL, full, out, data, sizeof data / sizeof data[0]);
    /* No field, zero warnings: an empty string dataset must not trip the reader. */
    const char *empty[] = { "SIMPLE { ( 0 ) / ( 0 ) }" };
    expect_dump(NULL, minimal, out, empty, 1);

    io_dir_remove(dir);
    return ts_test_finish();
}
