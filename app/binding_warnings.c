#include "binding_warnings.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_affinity.h"
#include "ts_config_values.h"

/* The config asked for one value and the environment set another, which wins. */
static int overridden(const char *source, const char *value, const char *config_value)
{
    return strcmp(source, "environment") == 0 && config_value[0] && strcmp(value, config_value) != 0;
}

int ts_binding_warnings(const struct ts_binding_choice *binding, const ts_topology *topo,
                        const struct ts_binding_observed *seen, char (*lines)[512], int max)
{
    int n = 0;
    if (n < max && overridden(binding->places_source, binding->places, binding->config_places))
        snprintf(lines[n++], sizeof lines[0], "OMP_PLACES=%.200s from the environment overrides openmp.places = %.200s",
                 binding->places, binding->config_places);
    if (n < max && overridden(binding->proc_bind_source, binding->proc_bind, binding->config_proc_bind))
        snprintf(lines[n++], sizeof lines[0], "OMP_PROC_BIND=%s from the environment overrides openmp.proc_bind = %s",
                 binding->proc_bind, binding->config_proc_bind);

    struct ts_binding_facts facts = {
        .bound = omp_get_proc_bind() != omp_proc_bind_false,
        .n_threads = seen->n_threads,
        .init_node = seen->init_node,
        .migrations = seen->migrations,
    };
    snprintf(facts.places, sizeof facts.places, "%s", binding->places);
    snprintf(facts.proc_bind, sizeof facts.proc_bind, "%s", binding->proc_bind);
    ts_affinity_available(topo, binding->launch_cpus, &facts);
    int named[1024];
    int n_named = ts_places_named_cpus(binding->places, named, 1024);
    if (n_named > 0)
        ts_affinity_outside(&facts, named, n_named);
    return n + ts_affinity_warnings(&facts, seen->threads, seen->n_threads, lines + n, max - n);
}

void ts_binding_from_environment(struct ts_binding_choice *choice)
{
    memset(choice, 0, sizeof *choice);
    const char *places = getenv("OMP_PLACES"), *bind = getenv("OMP_PROC_BIND");
    snprintf(choice->places, sizeof choice->places, "%s", places ? places : "");
    snprintf(choice->proc_bind, sizeof choice->proc_bind, "%s", bind ? bind : "");
    snprintf(choice->places_source, sizeof choice->places_source, "%s", places ? "environment" : "unset");
    snprintf(choice->proc_bind_source, sizeof choice->proc_bind_source, "%s", bind ? "environment" : "unset");
    ts_affinity_launch_cpus(choice->launch_cpus, sizeof choice->launch_cpus);
}
