/* OMP_PROC_BIND, the place of every thread, and what libgomp 12 makes of a job's environment
 * as a whole (libgomp/env.c initialize_env, team.c gomp_team_start). The places list itself is
 * ts_omp_places.c. */
#include "ts_omp_model.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    enum ts_omp_bind bind;
} bind_names[] = { { "false", TS_OMP_BIND_FALSE },    { "true", TS_OMP_BIND_TRUE },
                   { "master", TS_OMP_BIND_PRIMARY }, { "primary", TS_OMP_BIND_PRIMARY },
                   { "close", TS_OMP_BIND_CLOSE },    { "spread", TS_OMP_BIND_SPREAD } };

static int bind_syntax(const char *s, size_t pos, const char *expected, struct ts_error *err)
{
    return ts_fail(err, TS_BAD_INPUT, "OMP_PROC_BIND '%s': at character %zu: expected %s", s, pos + 1, expected);
}

int ts_omp_bind_parse(const char *s, struct ts_omp_bind_list *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    size_t pos = 0;
    for (;;) {
        while (isspace((unsigned char)s[pos]))
            pos++;
        if (s[pos] == '\0')
            return bind_syntax(s, pos, out->n ? "a policy after ','" : "a policy (OMP_PROC_BIND is empty)", err);
        /* only the first level may be false or true, and only alone */
        size_t i = out->n ? 2 : 0, n = sizeof bind_names / sizeof bind_names[0];
        while (i < n && strncasecmp(s + pos, bind_names[i].name, strlen(bind_names[i].name)) != 0)
            i++;
        if (i == n)
            return bind_syntax(
                s, pos, out->n ? "master, primary, close or spread" : "false, true, master, primary, close or spread",
                err);
        /* libgomp takes any number of levels; those past the kept ones only nest deeper */
        if (out->n < TS_OMP_BIND_LEVELS)
            out->level[out->n++] = bind_names[i].bind;
        pos += strlen(bind_names[i].name);
        while (isspace((unsigned char)s[pos]))
            pos++;
        if (s[pos] == '\0')
            return TS_OK;
        if (s[pos] != ',')
            return bind_syntax(s, pos, "',' or the end", err);
        if (out->level[0] == TS_OMP_BIND_FALSE || out->level[0] == TS_OMP_BIND_TRUE)
            return bind_syntax(s, pos, "the end: false and true stand alone, not in a list", err);
        pos++;
    }
}

/* libgomp's gomp_team_start for a team started by the initial thread, which libgomp bound to
 * place 0 with the whole list as its partition. The threads are numbered as the runtime numbers
 * them; the walk over places is libgomp's, step by step. */
int ts_omp_bind_plan(const struct ts_omp_places *places, enum ts_omp_bind bind, int n_threads, int *thread_place,
                     struct ts_error *err)
{
    if (n_threads < 1)
        return ts_fail(err, TS_BAD_INPUT, "a team of %d threads: at least 1", n_threads);
    if (bind == TS_OMP_BIND_FALSE) {
        for (int i = 0; i < n_threads; i++)
            thread_place[i] = -1;
        return TS_OK;
    }
    const long n_places = places->n;
    if (n_places < 1)
        return ts_fail(err, TS_BAD_INPUT, "binding threads needs a places list, and it is empty");
    long p = 0, s = 0, rest = 0, k = 0; /* libgomp's P, S, REST and K */
    thread_place[0] = 0;
    switch (bind) {
    case TS_OMP_BIND_TRUE:
    case TS_OMP_BIND_CLOSE:
        /* T > P: S threads a place, then the T mod P left over one a place from place 0 again
         * (libgomp; the specification wants consecutive thread numbers in each place) */
        s = n_threads > n_places ? n_threads / n_places : 1;
        rest = n_threads > n_places ? n_threads % n_places : 0;
        k = 1;
        break;
    case TS_OMP_BIND_SPREAD:
        if (n_threads <= n_places) {
            /* T <= P: subpartitions of S + 1 places first (P mod T of them), then of S;
             * each thread on the first place of its own */
            s = n_places / n_threads;
            rest = (s + 1) * (n_places % n_threads);
            k = 0;
        } else {
            s = n_threads / n_places;
            rest = n_threads % n_places;
            k = 1;
        }
        break;
    default: break;
    }
    for (long i = 1; i < n_threads; i++) {
        if (bind == TS_OMP_BIND_PRIMARY) {
            thread_place[i] = 0;
            continue;
        }
        if (bind == TS_OMP_BIND_SPREAD && k == 0) {
            p += p < rest ? s + 1 : s;
            if (p == n_places)
                p = 0;
        } else if (k == s) {
            if (++p == n_places)
                p = 0;
            k = 1;
            if (i == n_threads - rest)
                s = 1;
        } else {
            ++k;
        }
        thread_place[i] = (int)p;
    }
    return TS_OK;
}

int ts_omp_libgomp(const struct ts_node *node, const char *omp_places, const char *omp_proc_bind,
                   struct ts_omp_outcome *out, struct ts_error *err)
{
    memset(out, 0, sizeof *out);
    out->bind_list.n = 1;
    out->bind_list.level[0] = TS_OMP_BIND_FALSE;
    struct ts_error e = { 0 };
    int bind_given = 0;
    if (omp_proc_bind) {
        struct ts_omp_bind_list list;
        if (ts_omp_bind_parse(omp_proc_bind, &list, &e) == TS_OK) {
            out->bind_list = list;
            bind_given = 1;
        } else {
            /* libgomp: "Invalid value for environment variable OMP_PROC_BIND", binding stays off */
            out->bind_ignored = 1;
            snprintf(out->note, sizeof out->note, "%s: libgomp warns and leaves binding off", e.message);
        }
    }
    out->bind = out->bind_list.level[0];
    int have_places = 0;
    if (omp_places && bind_given && out->bind == TS_OMP_BIND_FALSE) {
        /* libgomp checks the syntax (and warns) but builds no places */
        int rc = ts_omp_places_syntax(omp_places, &e);
        out->places_ignored = 1;
        out->places_warned = rc != TS_OK;
        snprintf(out->note, sizeof out->note, "%s%sOMP_PROC_BIND=false: OMP_PLACES is not used", rc ? e.message : "",
                 rc ? "; " : "");
    } else if (omp_places) {
        int rc = ts_omp_places_parse(node, omp_places, &out->places, &e);
        if (rc == TS_RESOURCE_ERROR)
            return ts_fail(err, rc, "%s", e.message);
        if (rc) {
            out->places_ignored = out->places_warned = 1;
            snprintf(out->note, sizeof out->note, "%s: libgomp warns and goes on without it", e.message);
        } else {
            have_places = 1;
            /* libgomp: "Number of places reduced from N to M because some places didn't contain
             * any usable logical CPUs" */
            out->places_warned = out->places.dropped > 0;
            /* OMP_PLACES alone turns binding on, as OMP_PROC_BIND=true */
            if (out->bind == TS_OMP_BIND_FALSE)
                out->bind = out->bind_list.level[0] = TS_OMP_BIND_TRUE;
        }
    }
    if (out->bind != TS_OMP_BIND_FALSE && !have_places) {
        /* binding on without a places list: one place per hardware thread (gomp_init_affinity) */
        int rc = ts_omp_places_parse(node, "threads", &out->places, &e);
        if (rc == TS_RESOURCE_ERROR)
            return ts_fail(err, rc, "%s", e.message);
        if (rc)
            out->places.n = 0; /* no CPU to bind to: libgomp runs unbound */
    }
    return TS_OK;
}

void ts_omp_outcome_free(struct ts_omp_outcome *o)
{
    ts_omp_places_free(&o->places);
}

int ts_omp_libgomp_plan(const struct ts_omp_outcome *o, int n_threads, int *thread_place, struct ts_error *err)
{
    return ts_omp_bind_plan(&o->places, o->places.n > 0 ? o->bind : TS_OMP_BIND_FALSE, n_threads, thread_place, err);
}
