#include "ts_thp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ts_thp_mode(const char *path, char *buf, size_t len)
{
    char line[256] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    const char *open = strchr(line, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (close && close > open + 1)
        snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
    else
        snprintf(buf, len, "unknown");
    return buf;
}

/* Whole 2 MiB-aligned 2 MiB blocks inside [begin, end). */
static uint64_t whole_blocks(uintptr_t begin, uintptr_t end)
{
    const uintptr_t huge = TS_THP_HUGE_PAGE;
    uintptr_t first = begin > UINTPTR_MAX - (huge - 1) ? UINTPTR_MAX : (begin + huge - 1) / huge * huge;
    uintptr_t last = end / huge * huge;
    return last > first ? (uint64_t)((last - first) / huge) : 0;
}

/* "7f12a0000000-7f12b0000000 rw-p ..." starts a VMA; field lines ("Size:", "AnonHugePages:")
 * start with a capital letter, never with a lower-case hex digit. */
static int vma_header(const char *line, uintptr_t *begin, uintptr_t *end)
{
    if (line[0] == '\0' || !strchr("0123456789abcdef", line[0]))
        return 0;
    char *dash, *space;
    uintmax_t b = strtoumax(line, &dash, 16);
    if (*dash != '-')
        return 0;
    uintmax_t e = strtoumax(dash + 1, &space, 16);
    if (space == dash + 1 || (*space != ' ' && *space != '\n' && *space != '\0') || e < b || e > UINTPTR_MAX)
        return 0;
    *begin = (uintptr_t)b;
    *end = (uintptr_t)e;
    return 1;
}

struct vma {
    int open; /* a header was read and not judged yet */
    uintptr_t begin, end;
    int has_huge_line;
    uint64_t huge_kib; /* AnonHugePages */
};

/* Judges one VMA against the ranges: 0 when it intersects one and is not wholly huge;
 * counts the blocks of each range it covers. */
static int judge(const struct vma *v, const struct ts_thp_range *ranges, int n, uint64_t *covered)
{
    int intersects = 0;
    for (int i = 0; i < n; i++) {
        uintptr_t lo = v->begin > ranges[i].begin ? v->begin : ranges[i].begin;
        uintptr_t hi = v->end < ranges[i].end ? v->end : ranges[i].end;
        if (lo >= hi)
            continue;
        intersects = 1;
        covered[i] += whole_blocks(lo, hi);
    }
    if (!intersects)
        return 1;
    return v->has_huge_line && v->huge_kib == whole_blocks(v->begin, v->end) * (TS_THP_HUGE_PAGE >> 10);
}

int ts_thp_all_huge(const char *smaps_path, const struct ts_thp_range *ranges, int n_ranges)
{
    if (n_ranges <= 0)
        return 0;
    uint64_t *covered = calloc((size_t)n_ranges, sizeof *covered);
    FILE *f = covered ? fopen(smaps_path, "r") : NULL;
    if (!f) {
        free(covered);
        return 0;
    }
    char *line = NULL;
    size_t cap = 0;
    struct vma v = { 0 };
    int all = 1;
    while (all && getline(&line, &cap, f) >= 0) {
        uintptr_t begin, end;
        unsigned long long kib;
        if (vma_header(line, &begin, &end)) {
            if (v.open)
                all = judge(&v, ranges, n_ranges, covered);
            v = (struct vma){ .open = 1, .begin = begin, .end = end };
        } else if (v.open && sscanf(line, "AnonHugePages: %llu kB", &kib) == 1) {
            v.has_huge_line = 1;
            v.huge_kib = kib;
        }
    }
    if (all && v.open)
        all = judge(&v, ranges, n_ranges, covered);
    if (ferror(f))
        all = 0;
    /* Every block of every range inside some VMA: none straddles two, none is unmapped. */
    for (int i = 0; all && i < n_ranges; i++) {
        uint64_t blocks = whole_blocks(ranges[i].begin, ranges[i].end);
        all = blocks > 0 && covered[i] == blocks;
    }
    free(line);
    free(covered);
    fclose(f);
    return all;
}
