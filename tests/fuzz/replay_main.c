/* Runs a harness over files, as a libFuzzer binary does when given files instead of a corpus
 * to grow: replay [-flag...] FILE|DIR... (a directory: every regular file in it, sorted; flags
 * are libFuzzer's and ignored). Builds without clang use it, so that the regression cases and
 * the seeds replay under gcc's sanitizers too. Exit status 0 when every input ran (a broken
 * promise aborts), 2 on a file it cannot read. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fprintf(stderr, "replay: cannot read %s\n", path), 2;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        return fprintf(stderr, "replay: out of memory reading %s\n", path), 2;
    /* An exact-size copy, so that a read past the input is caught as it would be by libFuzzer. */
    unsigned char *exact = malloc(n ? n : 1);
    memcpy(exact, buf, n);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    int status = 0, runs = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue; /* a libFuzzer flag (-runs=0): the test commands are the same in both builds */
        struct stat st;
        if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            status |= run_file(argv[i]);
            runs++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, by_name);
        if (n < 0)
            return fprintf(stderr, "replay: cannot list %s\n", argv[i]), 2;
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && names[k]->d_name[0] != '.') {
                status |= run_file(path);
                runs++;
            }
            free(names[k]);
        }
        free(names);
    }
    fprintf(stderr, "replay: %d inputs ran\n", runs);
    return status;
}
