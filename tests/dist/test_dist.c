/* dist/ without a launcher: which variables make a launched process, in which order, and
 * that a process no launcher started is one rank with its host and boot id, never touching
 * MPI (gathering text is a copy, a table's first rows its own, its machine itself alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_dist.h"
#include "ts_dist_host.h"
#include "ts_test.h"

static const char *const variables[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE" };

static void clear_launcher(void)
{
    for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++)
        unsetenv(variables[i]);
}

static void detection(void)
{
    char buf[64];
    clear_launcher();
    CHECK(ts_dist_launched(buf, sizeof buf) == 0, "launched without a launcher variable");
    CHECK(buf[0] == '\0', "launcher named without one: %s", buf);

    /* Each variable alone makes a launched process, and is named with its value. */
    for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++) {
        clear_launcher();
        setenv(variables[i], "3", 1);
        char want[64];
        snprintf(want, sizeof want, "%s=3", variables[i]);
        CHECK(ts_dist_launched(buf, sizeof buf) == 1, "%s set: not taken for a launcher", variables[i]);
        CHECK(strcmp(buf, want) == 0, "%s set: launcher named '%s', expected '%s'", variables[i], buf, want);
    }

    /* An empty variable is not a launcher. */
    clear_launcher();
    setenv("PMIX_RANK", "", 1);
    CHECK(ts_dist_launched(buf, sizeof buf) == 0, "an empty PMIX_RANK taken for a launcher");

    /* mpirun sets both OMPI_COMM_WORLD_SIZE and PMIX_RANK: Open MPI's is named. */
    setenv("PMIX_RANK", "1", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    CHECK(ts_dist_launched(buf, sizeof buf) == 1 && strcmp(buf, "OMPI_COMM_WORLD_SIZE=4") == 0,
          "mpirun's variables: launcher named '%s'", buf);
    clear_launcher();
}

/* ts_dist_host_fn for alone(): the machine's one text, upper-cased, back to its one rank. */
static int shout(void *ctx, const char *const *texts, const int *ranks, int n, char **out)
{
    *(int *)ctx += 1;
    if (n != 1 || ranks[0] != 0)
        return -1;
    out[0] = strdup(texts[0]);
    for (char *c = out[0]; c && *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    return out[0] ? 0 : -1;
}

static void alone(void)
{
    clear_launcher();
    struct ts_dist d;
    struct ts_error err;
    ts_error_clear(&err);
    REQUIRE(ts_dist_start(&d, &err) == TS_OK, "not launched, ts_dist_start failed: %s", err.message);
    CHECK(!d.started, "not launched, but MPI was started");
    CHECK(d.rank == 0 && d.size == 1 && d.local_rank == 0 && d.local_size == 1,
          "not launched: rank %d of %d, local %d of %d; expected 0 of 1", d.rank, d.size, d.local_rank, d.local_size);
    CHECK(d.launcher[0] == '\0' && d.library[0] == '\0', "not launched: launcher '%s', library '%s'", d.launcher,
          d.library);
    CHECK(d.host[0] != '\0', "no host name");
    /* The kernel's boot id is a UUID: 36 characters. */
    CHECK(strlen(d.boot_id) == 36, "boot id '%s' is not a UUID", d.boot_id);

    /* The first rows of a table alone: this process's rows, then zeros past them. */
    const int64_t rows[3] = { 7, 8, 9 };
    int64_t head[5] = { -1, -1, -1, -1, -1 };
    CHECK(ts_dist_head(&d, rows, sizeof *rows, 0, 3, 5, head, &err) == TS_OK, "head alone: %s", err.message);
    CHECK(head[0] == 7 && head[1] == 8 && head[2] == 9 && head[3] == 0 && head[4] == 0,
          "head alone: %lld %lld %lld %lld %lld, expected 7 8 9 0 0", (long long)head[0], (long long)head[1],
          (long long)head[2], (long long)head[3], (long long)head[4]);
    CHECK(ts_dist_head(&d, rows, sizeof *rows, 0, 3, 2, head, &err) == TS_OK && head[0] == 7 && head[1] == 8,
          "a head shorter than the rows: %lld %lld", (long long)head[0], (long long)head[1]);
    /* A machine of one rank: the answer comes back to it; without its text, none does. */
    int calls = 0;
    char *back = NULL;
    CHECK(ts_dist_host_exchange(&d, "rank 0", shout, &calls, &back, &err) == TS_OK && calls == 1 && back
              && strcmp(back, "RANK 0") == 0,
          "a machine alone: '%s' after %d calls", back ? back : "(null)", calls);
    free(back);
    CHECK(ts_dist_host_exchange(&d, NULL, shout, &calls, &back, &err) == TS_OK && !back && calls == 1,
          "a machine alone without its text: an answer");
    CHECK(ts_dist_finish(&d, &err) == TS_OK, "finishing alone: %s", err.message);
    ts_dist_abort(&d, 2); /* returns: nothing was started */
}

int main(void)
{
    detection();
    alone();
    return ts_test_finish();
}
