/* What the ranks compare before a job starts (app/same_job.c): the text that names a job (the
 * binary's build, the command, every config key, the restart file) and the differences between
 * two such texts as rank 0 prints them, including what one rank lacks and a list too long for
 * the message. Nothing runs across ranks here: tests/mpi/test_same_job.sh does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "same_job.h"
#include "ts_test.h"

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

static void text_names_the_whole_job(void)
{
    static struct ts_config cfg;
    static struct ts_cli cli;
    ts_config_defaults(&cfg);
    cli.command = TS_CMD_RUN;
    char *text = ts_same_job_text(&cfg, &cli);
    REQUIRE(text, "no text");
    CHECK(count_lines(text) == (int)ts_config_key_count() + 3, "%d lines for %zu keys", count_lines(text),
          ts_config_key_count());
    CHECK(strstr(text, "the binary\ttouchstone ") == text, "the binary first: %.80s", text);
    CHECK(strstr(text, ", build id ") && !strstr(text, "build id none"), "the build id is read");
    CHECK(strstr(text, "\nrun.iterations\t100\n"), "a key and its resolved value");
    CHECK(strstr(text, "\nthe restart file (--restart)\tnone\n"), "no restart file");
    char *same = ts_same_job_text(&cfg, &cli);
    CHECK(same && strcmp(same, text) == 0, "the same job gives the same text");
    free(same);

    struct ts_error err;
    ts_error_clear(&err);
    CHECK(ts_config_set(&cfg, "stencil.alpha=0.15", &err) == TS_OK, "%s", err.message);
    cli.restart_path = "/nonexistent/run.ckpt.h5";
    char *other = ts_same_job_text(&cfg, &cli), out[600];
    REQUIRE(other, "no text");
    int n = ts_same_job_differences(text, other, 5, out, sizeof out);
    CHECK(n == 2, "%d differences: %s", n, out);
    CHECK(strcmp(out, "stencil.alpha = \"0.1\" on rank 0, \"0.15\" on rank 5; the restart file (--restart) = \"none\" "
                      "on rank 0, \"/nonexistent/run.ckpt.h5 (not found)\" on rank 5")
              == 0,
          "%s", out);
    free(other);
    free(text);
}

static void facts_one_side_lacks(void)
{
    char out[300];
    int n = ts_same_job_differences("a\t1\nb\t2\n", "b\t2\nc\t3\n", 1, out, sizeof out);
    CHECK(n == 2, "%d", n);
    CHECK(strcmp(out, "a = \"1\" on rank 0, \"(none)\" on rank 1; c = \"(none)\" on rank 0, \"3\" on rank 1") == 0,
          "%s", out);
    CHECK(ts_same_job_differences("a\t1\n", "a\t1\n", 1, out, sizeof out) == 0 && out[0] == '\0', "equal: %s", out);
    /* A prefix is not the same value, nor the same name. */
    CHECK(ts_same_job_differences("ab\t12\n", "ab\t1\n", 1, out, sizeof out) == 1, "%s", out);
    CHECK(ts_same_job_differences("a\t1\n", "ab\t1\n", 1, out, sizeof out) == 2, "%s", out);
}

static void too_many_to_say(void)
{
    char zero[4000] = "", other[4000] = "", out[200];
    for (int i = 0; i < 40; i++) {
        char line[64];
        snprintf(line, sizeof line, "key%02d\t%d\n", i, i);
        strcat(zero, line);
        snprintf(line, sizeof line, "key%02d\t%d\n", i, i + 100);
        strcat(other, line);
    }
    int n = ts_same_job_differences(zero, other, 3, out, sizeof out);
    CHECK(n == 40, "all 40 counted: %d", n);
    CHECK(strlen(out) < sizeof out && strcmp(out + strlen(out) - 3, "...") == 0, "ends with ...: %s", out);
    CHECK(strncmp(out, "key00 = \"0\" on rank 0, \"100\" on rank 3; ", 40) == 0, "in order: %s", out);
}

int main(void)
{
    text_names_the_whole_job();
    facts_one_side_lacks();
    too_many_to_say();
    return ts_test_finish();
}
