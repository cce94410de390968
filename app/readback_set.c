#include "readback_set.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int grow(struct ts_run_set *set, const char *path, struct ts_error *err)
{
    if (set->n < set->cap)
        return TS_OK;
    size_t cap = set->cap ? 2 * set->cap : 8;
    struct ts_run_summary *runs = realloc(set->runs, cap * sizeof *runs);
    if (runs)
        set->runs = runs;
    struct ts_run_stats *stats = runs ? realloc(set->stats, cap * sizeof *stats) : NULL;
    if (!stats)
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot read %s", path);
    set->stats = stats;
    set->cap = cap;
    return TS_OK;
}

/* skippable: the file came from a directory listing, where what is not a run is passed over. */
static int add_file(struct ts_run_set *set, const char *path, int skippable, struct ts_error *err)
{
    if (grow(set, path, err))
        return err->status;
    struct ts_run_summary *s = &set->runs[set->n];
    if (ts_run_read_file_isolated(path, s, err) != TS_OK) {
        if (!skippable || (s->kind != TS_FILE_CHECKPOINT && s->kind != TS_FILE_FOREIGN))
            return err->status;
        fprintf(stderr, "touchstone: skipping %s\n", err->message);
        ts_error_clear(err);
        return TS_OK;
    }
    if (ts_run_stats_of(s, &set->stats[set->n]) != 0) {
        ts_run_summary_free(s);
        return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot read %s", path);
    }
    set->n++;
    return TS_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_run_name(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 3 && strcmp(name + len - 3, ".h5") == 0;
}

/* Names first, then read in order, so the result does not depend on readdir's order. */
static int add_dir(struct ts_run_set *set, const char *dir, const char *cmd, struct ts_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return ts_fail_errno(err, ts_file_status(errno), errno, "cannot read directory %s", dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int st = TS_OK;
    for (struct dirent *e; st == TS_OK && (e = readdir(d));) {
        if (!is_run_name(e->d_name))
            continue;
        char **more = n == cap ? realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names) : names;
        if (more)
            names = more;
        if (!more || !(names[n] = strdup(e->d_name)))
            st = ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "cannot read directory %s", dir);
        else
            n++;
    }
    closedir(d);
    if (st == TS_OK && n == 0)
        st = ts_fail(err, TS_BAD_INPUT, "%s: no *.h5 files in directory %s", cmd, dir);
    if (names)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; st == TS_OK && i < n; i++) {
        char path[PATH_MAX];
        struct stat sb;
        /* "DIR/name" as typed: no "./" in front, no doubled slash after "results/". */
        size_t len = strlen(dir);
        int bare = strcmp(dir, ".") == 0, slash = len > 0 && dir[len - 1] == '/';
        if (snprintf(path, sizeof path, "%s%s%s", bare ? "" : dir, bare || slash ? "" : "/", names[i])
            >= (int)sizeof path)
            st = ts_fail_errno(err, TS_BAD_INPUT, ENAMETOOLONG, "cannot read %s/%s", dir, names[i]);
        else if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
            continue; /* not recursive */
        else
            st = add_file(set, path, 1, err);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

size_t ts_run_set_candidates(const char *arg)
{
    struct stat sb;
    if (stat(arg, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 1;
    DIR *d = opendir(arg);
    if (!d)
        return 1; /* the load says why */
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += is_run_name(e->d_name);
    closedir(d);
    return n;
}

int ts_run_set_load(struct ts_run_set *set, char *const *args, int n_args, int allow_dirs, const char *cmd,
                    struct ts_error *err)
{
    memset(set, 0, sizeof *set);
    for (int i = 0; i < n_args; i++) {
        struct stat sb;
        int is_dir = stat(args[i], &sb) == 0 && S_ISDIR(sb.st_mode);
        if (is_dir && !allow_dirs)
            return ts_fail(err, TS_BAD_INPUT, "%s: %s is a directory; %s takes run files", cmd, args[i], cmd);
        if (is_dir ? add_dir(set, args[i], cmd, err) : add_file(set, args[i], 0, err))
            return err->status;
    }
    if (set->n == 0)
        return ts_fail(err, TS_BAD_INPUT, "%s: no run files among the arguments", cmd);
    return TS_OK;
}

void ts_run_set_free(struct ts_run_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        ts_run_summary_free(&set->runs[i]);
    free(set->runs);
    free(set->stats);
    memset(set, 0, sizeof *set);
}
