#include "run_continue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Characters no POSIX shell gives a meaning to inside a word. */
static int plain(const char *word)
{
    if (!*word)
        return 0;
    for (const char *p = word; *p; p++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-", *p))
            return 0;
    return 1;
}

int ts_shell_quote(const char *word, char *buf, size_t len)
{
    size_t n = 0;
    int quote = !plain(word);
    if (len == 0)
        return 0;
#define PUT(c)                                                                                                         \
    do {                                                                                                               \
        if (n + 1 >= len) {                                                                                            \
            buf[n] = '\0';                                                                                             \
            return 0;                                                                                                  \
        }                                                                                                              \
        buf[n++] = (c);                                                                                                \
    } while (0)
    if (quote)
        PUT('\'');
    for (const char *p = word; *p; p++) {
        if (*p == '\'' && quote) {
            PUT('\'');
            PUT('\\');
            PUT('\'');
            PUT('\'');
        } else {
            PUT(*p);
        }
    }
    if (quote)
        PUT('\'');
#undef PUT
    buf[n] = '\0';
    return 1;
}

struct words {
    char *buf;
    size_t len, used;
    int fit;
};

static void add(struct words *w, const char *word)
{
    if (!w->fit)
        return;
    if (w->used > 0) {
        if (w->used + 1 >= w->len) {
            w->fit = 0;
            return;
        }
        w->buf[w->used++] = ' ';
        w->buf[w->used] = '\0';
    }
    w->fit = ts_shell_quote(word, w->buf + w->used, w->len - w->used);
    w->used += strlen(w->buf + w->used);
}

/* The option as the user gave it: --set S.K=V, or the shorthand with its value. */
static void add_override(struct words *w, const struct ts_cli *cli, int i)
{
    const char *option = cli->override_options[i];
    if (!option) {
        add(w, "--set");
        add(w, cli->overrides[i]);
        return;
    }
    add(w, option);
    if (strcmp(option, "--serial-init") != 0 && strcmp(option, "--overwrite") != 0) {
        const char *eq = strchr(cli->overrides[i], '=');
        add(w, eq ? eq + 1 : "");
    }
}

/* -o and --set output.file=...: replaced by the name this run wrote. */
static int names_output(const struct ts_cli *cli, int i)
{
    return strncmp(cli->overrides[i], "output.file=", strlen("output.file=")) == 0;
}

/* The launcher's words before this program's, when the parent process is the launcher
 * (mpirun starts the ranks of its own node itself): its command line ends with ours, whose
 * first word is argv0 and which has `ours` words (our argc: the binding's re-execution keeps it). Returns how many words were added, 0 when
 * the parent is not that (srun's slurmstepd, mpirun's orted on another node). */
static int add_launcher(struct words *w, const char *argv0, int ours)
{
    char path[64], text[16384];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)getppid());
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    int full = feof(f);
    fclose(f);
    if (!full || n == 0)
        return 0;
    text[n] = '\0';
    const char *word[512];
    int count = 0;
    for (size_t at = 0; at < n && count < 512; at += strlen(text + at) + 1)
        word[count++] = text + at;
    int start = count - ours;
    if (start < 1 || strcmp(word[start], argv0) != 0)
        return 0;
    for (int i = 0; i < start; i++)
        add(w, word[i]);
    return start;
}

int ts_run_continue_command(const struct ts_cli *cli, int argc, const char *argv0, const char *output,
                            const char *checkpoint, const struct ts_dist *dist, int *launcher_unknown, char *buf,
                            size_t len)
{
    struct words w = { .buf = buf, .len = len, .used = 0, .fit = len > 0 };
    if (len > 0)
        buf[0] = '\0';
    *launcher_unknown = 0;
    if (dist->size > 1)
        *launcher_unknown = add_launcher(&w, argv0, argc) == 0;
    add(&w, argv0);
    add(&w, "run");
    add(&w, cli->config_path);
    for (int i = 0; i < cli->n_overrides; i++)
        if (!names_output(cli, i))
            add_override(&w, cli, i);
    if (cli->quiet)
        add(&w, "--quiet");
    add(&w, "-o");
    add(&w, output);
    add(&w, "--restart");
    add(&w, checkpoint);
    return w.fit;
}
