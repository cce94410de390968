#include "ts_binding.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ts_affinity.h"

/* Set on re-execution; its value carries where each variable came from and the CPU list the
 * process had before the runtime bound it: "places=config;proc_bind=environment;cpus=0-3". */
#define MARKER "TOUCHSTONE_BINDING"

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

static void parse_marker(const char *marker, struct ts_binding_choice *choice)
{
    const char *p;
    if ((p = strstr(marker, "places=")) != NULL)
        copy(choice->places_source, sizeof choice->places_source, strncmp(p + 7, "config", 6) == 0 ? "config" : "environment");
    if ((p = strstr(marker, "proc_bind=")) != NULL)
        copy(choice->proc_bind_source, sizeof choice->proc_bind_source,
             strncmp(p + 10, "config", 6) == 0 ? "config" : "environment");
    if ((p = strstr(marker, "cpus=")) != NULL)
        copy(choice->launch_cpus, sizeof choice->launch_cpus, p + 5);
}

int ts_binding_apply(const struct ts_config *cfg, char **argv, struct ts_binding_choice *choice,
                     struct ts_error *err)
{
    memset(choice, 0, sizeof *choice);
    copy(choice->config_places, sizeof choice->config_places, cfg->places);
    copy(choice->config_proc_bind, sizeof choice->config_proc_bind, cfg->proc_bind);

    const char *marker = getenv(MARKER);
    if (marker) {
        /* Second pass: the variables are in place; learn where they came from. */
        parse_marker(marker, choice);
        copy(choice->places, sizeof choice->places, getenv("OMP_PLACES"));
        copy(choice->proc_bind, sizeof choice->proc_bind, getenv("OMP_PROC_BIND"));
        unsetenv(MARKER);
        return TS_OK;
    }

    const char *env_places = getenv("OMP_PLACES");
    const char *env_bind = getenv("OMP_PROC_BIND");
    int places_from_config = env_places == NULL || env_places[0] == '\0';
    int bind_from_config = env_bind == NULL || env_bind[0] == '\0';
    copy(choice->places, sizeof choice->places, places_from_config ? cfg->places : env_places);
    copy(choice->proc_bind, sizeof choice->proc_bind, bind_from_config ? cfg->proc_bind : env_bind);
    copy(choice->places_source, sizeof choice->places_source, places_from_config ? "config" : "environment");
    copy(choice->proc_bind_source, sizeof choice->proc_bind_source, bind_from_config ? "config" : "environment");

    /* The mask the process started with, read before the runtime could narrow it. */
    int launch_known = ts_affinity_launch_cpus(choice->launch_cpus, sizeof choice->launch_cpus) > 0;
    if (!places_from_config && !bind_from_config) {
        /* Without that record, the union of the places is the closest to what the process was
         * given: the runtime already read both and may have narrowed this thread to one place. */
        const char *source;
        if (!launch_known)
            ts_affinity_available_cpus(choice->launch_cpus, sizeof choice->launch_cpus, &source);
        return TS_OK;
    }

    /* Nothing bound this process yet when neither variable was set: its mask is the launch mask.
     * Otherwise the runtime has narrowed this thread to one place, and the re-executed process
     * would inherit that: widen it back first. */
    if (env_places == NULL && env_bind == NULL) {
        cpu_set_t mask;
        if (!launch_known && sched_getaffinity(0, sizeof mask, &mask) == 0)
            ts_cpulist_format(&mask, sizeof mask, choice->launch_cpus, sizeof choice->launch_cpus);
    } else if (launch_known ? ts_affinity_restore_launch_mask() != 0
                            : ts_affinity_widen_to_places(choice->launch_cpus, sizeof choice->launch_cpus) != 0) {
        return ts_fail_errno(err, TS_BAD_INPUT, errno, "cannot restore the CPU mask (%s) before applying the binding",
                             choice->launch_cpus);
    }

    char value[512];
    snprintf(value, sizeof value, "places=%s;proc_bind=%s;cpus=%s", choice->places_source,
             choice->proc_bind_source, choice->launch_cpus);
    if (setenv("OMP_PLACES", choice->places, 1) != 0 || setenv("OMP_PROC_BIND", choice->proc_bind, 1) != 0
        || setenv(MARKER, value, 1) != 0)
        return ts_fail_errno(err, TS_BAD_INPUT, errno, "cannot set OMP_PLACES/OMP_PROC_BIND");
    fflush(NULL);
    execv("/proc/self/exe", argv);
    return ts_fail_errno(err, TS_BAD_INPUT, errno,
                         "cannot re-execute /proc/self/exe to apply OMP_PLACES=%s OMP_PROC_BIND=%s "
                         "(set them in the environment instead)",
                         choice->places, choice->proc_bind);
}
