#include "ts_check.h"
#include "ts_thp.h"

#include <unistd.h>

/* The mode as read from a file holding text (NULL: no file at all). */
static const char *mode_of(const char *text, char *buf, size_t len)
{
    char path[] = "/tmp/touchstone-thp.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "cannot create a temporary file");
    if (text)
        CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "cannot write %s", path);
    close(fd);
    if (!text)
        unlink(path);
    const char *mode = ts_thp_mode(path, buf, len);
    unlink(path);
    return mode;
}

static void bracketed(void)
{
    char buf[32];
    const char *mode = mode_of("always [madvise] never\n", buf, sizeof buf);
    CHECK(mode == buf && strcmp(buf, "madvise") == 0, "got \"%s\", want \"madvise\"", buf);
    mode_of("[always] madvise never\n", buf, sizeof buf);
    CHECK(strcmp(buf, "always") == 0, "got \"%s\", want \"always\"", buf);
}

static void unreadable(void)
{
    char buf[32];
    mode_of(NULL, buf, sizeof buf);
    CHECK(strcmp(buf, "unknown") == 0, "missing file: got \"%s\", want \"unknown\"", buf);
}

static void unbracketed(void)
{
    char buf[32];
    mode_of("always madvise never\n", buf, sizeof buf);
    CHECK(strcmp(buf, "unknown") == 0, "no selection: got \"%s\", want \"unknown\"", buf);
    mode_of("[] never\n", buf, sizeof buf);
    CHECK(strcmp(buf, "unknown") == 0, "empty selection: got \"%s\", want \"unknown\"", buf);
}

/* Whatever this machine says, it is one word, never empty. */
static void this_machine(void)
{
    char buf[32];
    ts_thp_mode(TS_THP_ENABLED, buf, sizeof buf);
    printf("THP: %s\n", buf);
    CHECK(buf[0] && !strpbrk(buf, " []\n"), "THP mode \"%s\" is not one word", buf);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        {"bracketed", bracketed},
        {"unreadable", unreadable},
        {"unbracketed", unbracketed},
        {"this_machine", this_machine},
    };
    return TS_RUN_CASES(cases);
}
