/* Text merged up a tree of the ranks instead of gathered to rank 0: each rank's text joined with
 * its neighbours' by the caller's function, so that rank 0 holds the merged result (the distinct
 * warnings of every rank, say) and never the text of every rank. */
#ifndef TOUCHSTONE_DIST_TS_DIST_MERGE_H
#define TOUCHSTONE_DIST_TS_DIST_MERGE_H

#include "ts_dist.h"
#include "ts_error.h"

/* Joins the text of a block of ranks (lower) with that of the block right after it (higher):
 * the text of both blocks, malloc'd, or NULL when memory runs out. */
typedef char *(*ts_dist_text_join)(void *ctx, const char *lower, const char *higher);

/* Collective: every rank's text, joined by join up a binomial tree (rank r takes in the blocks
 * of ranks r + 1, r + 2, r + 4, ... below it, each the block right after its own: the order of
 * the ranks is kept), O(log ranks) joins on rank 0. Rank 0 gets the text of all ranks in *all
 * (malloc'd, the caller frees it), the others NULL. A rank without its text (text NULL: it ran
 * out of memory making it) or without memory to join still takes part, and rank 0 fails
 * (TS_RESOURCE_ERROR), naming no rank; TS_INTERNAL_ERROR when MPI fails.
 * The ranks other than 0 return TS_OK unless MPI failed. Not started: a copy of text. */
int ts_dist_merge_text(const struct ts_dist *d, const char *text, ts_dist_text_join join, void *ctx, char **all,
                       struct ts_error *err);

#endif
