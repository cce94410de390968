#include "topology_internal.h"
#include "ts_affinity.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

void ts_list_init(struct ts_list *l, char *buf, size_t len)
{
    *l = (struct ts_list){ .buf = buf, .len = len, .full = len == 0 };
    if (len)
        buf[0] = '\0';
}

static void flush(struct ts_list *l, int more)
{
    if (!l->open || l->full)
        return;
    char piece[32];
    const char *sep = l->used ? "," : "";
    const char *ellipsis = l->used ? ",..." : "...";
    int w = l->last > l->first ? snprintf(piece, sizeof piece, "%s%d-%d", sep, l->first, l->last)
                               : snprintf(piece, sizeof piece, "%s%d", sep, l->first);
    size_t reserve = more ? strlen(",...") : 0;
    if (l->used + (size_t)w + reserve >= l->len) {
        if (l->used + strlen(ellipsis) < l->len)
            memcpy(l->buf + l->used, ellipsis, strlen(ellipsis) + 1);
        l->full = 1;
        return;
    }
    memcpy(l->buf + l->used, piece, (size_t)w + 1);
    l->used += (size_t)w;
}

void ts_list_add(struct ts_list *l, int v)
{
    if (l->open && v == l->last + 1) {
        l->last = v;
        return;
    }
    flush(l, 1);
    l->first = l->last = v;
    l->open = 1;
}

void ts_list_end(struct ts_list *l)
{
    flush(l, 0);
    l->open = 0;
}

void ts_cpulist_format(const void *cpu_set, size_t set_size, char *buf, size_t len)
{
    struct ts_list l;
    ts_list_init(&l, buf, len);
    for (size_t cpu = 0; cpu < set_size * 8; cpu++)
        if (CPU_ISSET_S(cpu, set_size, (const cpu_set_t *)cpu_set))
            ts_list_add(&l, (int)cpu);
    ts_list_end(&l);
}

void ts_bitmap_format(hwloc_const_bitmap_t set, char *buf, size_t len)
{
    if (hwloc_bitmap_weight(set) < 0) {
        /* An infinite set; hwloc's own syntax says so ("0-"). */
        hwloc_bitmap_list_snprintf(buf, len, set);
        return;
    }
    struct ts_list l;
    ts_list_init(&l, buf, len);
    unsigned id;
    hwloc_bitmap_foreach_begin(id, set) ts_list_add(&l, (int)id);
    hwloc_bitmap_foreach_end();
    ts_list_end(&l);
}
