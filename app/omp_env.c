#include "omp_env.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_node.h"
#include "ts_omp_model.h"
#include "ts_topology.h"

const char *ts_omp_env_shown(const char *value, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *p = value; *p && n + 4 < len; p++)
        buf[n++] = isprint((unsigned char)*p) ? *p : '?';
    if (value[n] != '\0' && n + 4 >= len)
        memcpy(buf + n, "...", 3), n += 3;
    buf[n] = '\0';
    return buf;
}

static int judge(const struct ts_node *node, const char *places, const char *bind, const struct ts_omp_env_names *names,
                 struct ts_error *err)
{
    struct ts_omp_outcome o;
    int status = ts_omp_libgomp(node, places, bind, &o, err);
    if (status == TS_OK && o.bind_ignored) {
        struct ts_omp_bind_list list;
        struct ts_error why = { 0 };
        ts_omp_bind_parse(bind, &list, &why);
        status = ts_fail(err, TS_BAD_INPUT,
                         "%s: the OpenMP runtime refuses it (%s) and would run with binding off instead: give "
                         "false, true, primary, close or spread, or a list of primary, close and spread for nested "
                         "levels (docs/binding-model.md)",
                         names->proc_bind, why.message);
    } else if (status == TS_OK && places && o.places_warned && (o.places_ignored || o.places.n == 0)) {
        /* The syntax (even under OMP_PROC_BIND=false, where libgomp checks it all the same), a
         * CPU past the machine's, a count of zero: libgomp warns and goes on without it. */
        struct ts_omp_places p;
        struct ts_error why = { 0 };
        if (ts_omp_places_parse(node, places, &p, &why) == TS_OK) {
            ts_omp_places_free(&p);
            ts_omp_places_syntax(places, &why);
        }
        status = ts_fail(err, TS_BAD_INPUT,
                         "%s: the OpenMP runtime refuses it (%s) and would go on without it instead (one place "
                         "per hardware thread when binding is on, none when it is off): give threads, cores, "
                         "sockets, ll_caches or numa_domains (optionally with a count), or places of this "
                         "machine's CPUs such as {0:4},{4:4} (docs/binding-model.md)",
                         names->places, why.message);
    }
    ts_omp_outcome_free(&o);
    return status;
}

int ts_omp_env_judge(const char *places, const char *proc_bind, const struct ts_omp_env_names *names,
                     struct ts_error *err)
{
    places = places && *places ? places : NULL;
    proc_bind = proc_bind && *proc_bind ? proc_bind : NULL;
    if (!places && !proc_bind)
        return TS_OK; /* the runtime's defaults: nothing to judge */
    const ts_topology *topo = NULL;
    struct ts_node node = { 0 };
    int status = ts_topology_shared(&topo, err);
    if (status == TS_OK)
        status = ts_node_from_topology(topo, &node, err);
    if (status == TS_OK)
        status = judge(&node, places, proc_bind, names, err);
    ts_node_free(&node);
    return status;
}

int ts_omp_env_check(struct ts_error *err)
{
    const char *places = getenv("OMP_PLACES"), *bind = getenv("OMP_PROC_BIND");
    char places_shown[96], bind_shown[96], places_what[112], bind_what[112];
    snprintf(places_what, sizeof places_what, "OMP_PLACES=%s",
             places ? ts_omp_env_shown(places, places_shown, sizeof places_shown) : "");
    snprintf(bind_what, sizeof bind_what, "OMP_PROC_BIND=%s",
             bind ? ts_omp_env_shown(bind, bind_shown, sizeof bind_shown) : "");
    const struct ts_omp_env_names names = { places_what, bind_what };
    return ts_omp_env_judge(places, bind, &names, err);
}
