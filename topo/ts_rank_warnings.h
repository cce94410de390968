/* The warnings that compare ranks (issue 14): ranks of one host that share CPUs, a rank whose
 * threads all run on one core (mpirun's binding in an allocation), a rank spanning NUMA nodes
 * on a host with one rank per node, unequal ranks per host, more threads on a host than cores.
 * Pure functions over the facts each rank gives as one text line, so that topo and run warn
 * alike and the tests feed them made-up layouts. Only ranks of one machine are compared: under
 * ranks, each machine's first rank compares that machine's ranks (ts_rank_warnings_machine),
 * each rank adds what concerns it to a set of lines merged across ranks (ts_rank_warnings_add,
 * common/ts_rank_merge.h), and rank 0 shows the merged set (ts_rank_warnings_lines): one line a
 * distinct warning, whatever the number of ranks or hosts that give it. */
#ifndef TOUCHSTONE_TOPO_TS_RANK_WARNINGS_H
#define TOUCHSTONE_TOPO_TS_RANK_WARNINGS_H

#include <stddef.h>

#include "ts_error.h"
#include "ts_rank_merge.h"

/* Where one thread of a rank ran; -1 when unknown. */
struct ts_rank_thread {
    int cpu;  /* OS number */
    int core; /* hwloc logical index: compared only within the rank */
    int node; /* OS number of its NUMA node */
};

/* What one rank knows of itself and of its host. */
struct ts_rank_facts {
    int rank, local_rank;
    char host[256];
    char boot_id[40];           /* its kernel's boot id: host names that share one are one machine; "" unknown */
    char mask[1024];            /* the CPUs the rank may run on, a list of OS numbers ("0-3,8"); "" unknown */
    int n_cores, n_pus, n_numa; /* of its host; n_numa counts the nodes with memory; -1 unknown */
    int n_threads;
    struct ts_rank_thread *threads; /* n_threads; filled by the caller for format, malloc'd by parse */
};

/* One line for the user: a warning (what is wrong, with the numbers, then the fix) or a note. */
struct ts_rank_line {
    int note; /* 1: a note (nothing wrong, worth knowing), 0: a warning */
    char text[1024];
};

/* The facts as one line of text ending in '\n', malloc'd into *line (the caller frees it).
 * TS_RESOURCE_ERROR when memory runs out; TS_INTERNAL_ERROR when a field holds what the line
 * cannot carry (a host name over 255 bytes, a boot id or mask of other characters). */
int ts_rank_facts_format(const struct ts_rank_facts *f, char **line, struct ts_error *err);

/* Reads a line ts_rank_facts_format wrote (up to '\n' or the end) into f, whose threads are
 * malloc'd (ts_rank_facts_free). TS_INTERNAL_ERROR, saying which field is wrong, for anything
 * else (the line is touchstone's own: another one is a bug); f then holds nothing to free. */
int ts_rank_facts_parse(const char *line, struct ts_rank_facts *f, struct ts_error *err);

void ts_rank_facts_free(struct ts_rank_facts *f);

/* The warnings of the n ranks of one machine (or of several whole machines: every rank of a
 * kernel boot id, or of a host name without one), as items: out[i] (malloc'd, NULL for none) the
 * lines "K TEXT\n" of r[i], K the kind. A warning about a rank goes to it; one about a host (its
 * ranks overlap, its threads outnumber its cores, its rank count) to the host's first rank; the
 * note of host names on one kernel to the kernel's first rank. Hosts are told apart by name and
 * boot id; host names that share a boot id get that note instead of warnings about the CPUs their
 * ranks share. 0, or -1 when memory runs out (out then holds nothing). */
int ts_rank_warnings_machine(const struct ts_rank_facts *r, int n, char **out);

/* Rank `rank` on host adds its items (ts_rank_warnings_machine's text) to set, ranks in
 * ascending order. 0; -1 without memory; -2 when items is not such a text. */
int ts_rank_warnings_add(struct ts_rank_merge *set, int rank, const char *host, const char *items);

/* The lines for the user of a set of every rank's items, of a world of `world` ranks, into lines
 * (up to max), in a fixed order of kinds, each kind's lines by their first rank: a note of a
 * shared kernel; "ranks per host differ" when the hosts' counts do; a host's warning as "host H:
 * TEXT", or "K of N hosts (hosts a, b, c ...): TEXT" when several hosts give it (numbers that
 * differ as their smallest..largest); a rank's as "rank R (H): TEXT" or "K of P ranks (ranks
 * 0-7 ...; hosts ...): TEXT". When more were found than fit, or the set dropped lines, the last
 * line says so. Returns how many lines. */
int ts_rank_warnings_lines(const struct ts_rank_merge *set, int world, struct ts_rank_line *lines, int max);

/* All of the above on the facts of every rank (n, in rank order) in one process: what the ranks
 * give together, for the tests and a single process. -1 when memory runs out. */
int ts_rank_warnings(const struct ts_rank_facts *ranks, int n, struct ts_rank_line *lines, int max);

#endif
