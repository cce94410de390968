/* The warnings across ranks (topo/ts_rank_warnings.h) for the commands: this rank's facts as
 * one line, from what the process knows (its place in the world, its host's topology, where
 * its threads ran), and the collective that compares them on each machine and merges the
 * warnings toward rank 0. `topo` and `run` both use it, so that they warn alike. */
#ifndef TOUCHSTONE_APP_RANK_WARNINGS_H
#define TOUCHSTONE_APP_RANK_WARNINGS_H

#include "ts_dist.h"
#include "ts_error.h"
#include "ts_rank_warnings.h"
#include "ts_record.h"

/* This rank's facts as ts_rank_facts_format writes them (malloc'd into *line, the caller frees
 * it): rank, local rank, host and boot id from d; cores, PUs and NUMA nodes with memory from
 * machine (NULL: unknown); mask, the CPU list the process started with ("" or NULL: unknown,
 * then the CPUs its threads ran on stand for it); where each of the n threads ran (cpu_start,
 * core, node). TS_RESOURCE_ERROR when memory runs out. */
int ts_rank_facts_line(const struct ts_dist *d, const struct ts_topology_rec *machine, const char *mask,
                       const struct ts_thread_rec *threads, int n, char **line, struct ts_error *err);

/* Collective: every rank gives its line (NULL or "" when it could not make one: rank 0 then
 * fails, naming no rank, rather than leave the others waiting). The lines of each machine's
 * ranks meet at its first rank (dist/ts_dist_host.h), which compares them and sends each rank
 * the warnings that concern it; those are merged up a tree of ranks (dist/ts_dist_merge.h) into
 * one line a distinct warning, so that no rank holds more than its machine's lines or the merged
 * set. Rank 0 gets the notes and warnings across ranks in lines (up to max) and their count in
 * *n_lines, the others 0. TS_RESOURCE_ERROR on rank 0 when a rank's machine could not compare
 * its ranks (memory, or a line that does not read back),
 * TS_INTERNAL_ERROR when MPI fails. */
int ts_rank_warnings_gather(const struct ts_dist *d, const char *line, struct ts_rank_line *lines, int max,
                            int *n_lines, struct ts_error *err);

/* Collective: this rank's n own lines (warnings about itself), each with prefix before it (""
 * or NULL: none), merged with every rank's up a tree (dist/ts_dist_merge.h) into one line per
 * distinct text with its ranks and hosts (common/ts_rank_merge.h: "rank 3 (n1): TEXT" when one
 * rank says it, "8 of 8 ranks (ranks 0-7; host n1): TEXT" when several do), so that rank 0
 * holds the distinct lines and never every rank's. Rank 0 gets in *out the lines in the order
 * they first appear, at most max (the last then says how many more there are), NULL-terminated,
 * in one malloc'd block the caller frees; the others get NULL. TS_RESOURCE_ERROR when memory
 * runs out (rank 0 fails when any rank did), TS_INTERNAL_ERROR when MPI fails. */
int ts_rank_lines_merge(const struct ts_dist *d, const char *prefix, const char *const *lines, int n, int max,
                        char ***out, struct ts_error *err);

#endif
