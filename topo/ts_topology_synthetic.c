/* Bounds on an hwloc synthetic description, checked before hwloc builds it: hwloc inserts each
 * object by walking down from the root past the siblings at every level, comparing CPU sets as
 * wide as the machine, so a description of many PUs under few parents ("pu:8192") takes minutes
 * and "pu:100000000" never ends (bench/README.md, "Notes behind the code"). */
#include "topology_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Skips "(...)" attributes (nested parentheses too); NULL when one is not closed. */
static const char *skip_attributes(const char *p)
{
    int depth = 0;
    do {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        else if (*p == '\0')
            return NULL;
        p++;
    } while (depth > 0);
    return p;
}

/* Reads the levels' counts ("package:2 core:16 pu:2", "2 16 2", attributes in parentheses
 * anywhere) into count; returns how many levels, or -1 for a form this reader does not know
 * (hwloc then judges it, and its objects are counted after the load). Counts past
 * TS_SYNTHETIC_MAX_PUS are kept at TS_SYNTHETIC_MAX_PUS + 1: out of range either way. */
static int levels(const char *desc, unsigned long long *count, int max)
{
    int n = 0;
    for (const char *p = desc;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            return n;
        if (*p == '(') {
            if (!(p = skip_attributes(p)))
                return -1;
            continue;
        }
        const char *colon = strchr(p, ':'), *end = p + strcspn(p, " \t\n(");
        const char *digits = colon && colon < end ? colon + 1 : p;
        if (!isdigit((unsigned char)*digits) || n == max)
            return -1;
        unsigned long long c = 0;
        for (p = digits; isdigit((unsigned char)*p); p++)
            c = c > TS_SYNTHETIC_MAX_PUS ? c : c * 10 + (unsigned long long)(*p - '0');
        count[n++] = c > TS_SYNTHETIC_MAX_PUS ? TS_SYNTHETIC_MAX_PUS + 1 : c;
        if (*p == '(' && !(p = skip_attributes(p)))
            return -1;
        if (*p && !isspace((unsigned char)*p))
            return -1;
    }
}

int ts_synthetic_bound(const char *desc, struct ts_error *err)
{
    unsigned long long count[64];
    int n = levels(desc, count, 64);
    if (n <= 0)
        return TS_OK; /* hwloc's to parse, or to refuse; ts_topology_load counts its PUs */
    /* PUs: the product of the counts. Work: every object passes the siblings of each level above
     * and at its own on the way down, comparing CPU sets of one bit per PU. */
    unsigned long long objects = 1, passed = 0, work = 0;
    for (int i = 0; i < n; i++) {
        objects *= count[i];
        if (objects > TS_SYNTHETIC_MAX_PUS || objects == 0)
            break;
        passed += count[i];
        work += objects * passed;
    }
    if (objects == 0)
        return TS_OK; /* hwloc refuses a level of 0 objects with its own words */
    if (objects > TS_SYNTHETIC_MAX_PUS)
        return ts_fail(err, TS_BAD_INPUT,
                       "--synthetic '%s': more than %d PUs; touchstone describes nodes of at most %d PUs "
                       "(hardware threads)",
                       desc, TS_SYNTHETIC_MAX_PUS, TS_SYNTHETIC_MAX_PUS);
    /* work <= 64 levels * 16384 objects * 64 * 16384 siblings, times 256 words: fits 64 bits */
    unsigned long long cost = work * ((objects + 63) / 64);
    if (cost > TS_SYNTHETIC_MAX_WORK)
        return ts_fail(err, TS_BAD_INPUT,
                       "--synthetic '%s': %llu PUs under too few parents for hwloc to build in seconds: its work "
                       "(each object times the siblings it passes on its way down, times the 64-bit words of "
                       "a CPU set) is %.2g here, at most %.2g (pu:4096 is the most without levels); describe "
                       "the levels between, such as package:2 numa:4 l3:2 core:16 pu:2",
                       desc, objects, (double)cost, (double)TS_SYNTHETIC_MAX_WORK);
    return TS_OK;
}
