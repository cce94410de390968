/* A fake /proc and /sys tree in a temporary directory, for the topo tests whose readers take a
 * root (memory limits, machine conditions): fake_file writes one file, making its directories,
 * fake_tree_remove takes the whole tree away. One tree at a time per test program. */
#ifndef TOUCHSTONE_TESTS_TOPO_FAKE_TREE_H
#define TOUCHSTONE_TESTS_TOPO_FAKE_TREE_H

#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ts_test.h"

static char fake[64];

static inline void fake_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fake, rel);
    for (char *s = strchr(path + strlen(fake) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(path, 0700);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    REQUIRE(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

static inline int fake_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static inline void fake_tree_remove(void)
{
    nftw(fake, fake_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
