/* What every rank must find out together, in O(log P) collectives and O(1) memory a rank: which
 * rank is the first to raise a flag, and a text only one rank holds. */
#ifndef TOUCHSTONE_DIST_TS_DIST_AGREE_H
#define TOUCHSTONE_DIST_TS_DIST_AGREE_H

#include <stddef.h>

#include "ts_dist.h"
#include "ts_error.h"

/* Collective: *first is the lowest rank whose flag is non-zero, -1 when none; *count how many
 * ranks raised it (0 when none). Not started: this process's flag alone. */
int ts_dist_first_flagged(const struct ts_dist *d, int flag, int *first, int *count, struct ts_error *err);

/* Collective: root's text to every rank, *text malloc'd on every rank (root's included: a copy),
 * the caller frees it. Root passes its text in mine; the others' mine is ignored. Not started:
 * a copy of mine. TS_RESOURCE_ERROR when memory runs out on some rank (every rank then gets it:
 * the ranks agree on the outcome), TS_INTERNAL_ERROR when MPI fails. */
int ts_dist_bcast_text(const struct ts_dist *d, int root, const char *mine, char **text, struct ts_error *err);

/* A vote across ranks that does not stop them: posted after one iteration (MPI_Iallreduce of
 * the largest value) and read after the next, so the ranks meet in a reduction that had a whole
 * iteration to complete instead of in a barrier every iteration. Every rank posts and reads its
 * votes in the same order, so every rank reads the same result at the same iteration. */
struct ts_dist_vote;

/* Collective, non-blocking: posts value (a signal number, 0 for none) into *v, a new vote
 * (malloc'd; NULL when not started: then the result is the value itself). At most one vote
 * of a process is open at a time. */
int ts_dist_vote_post(const struct ts_dist *d, int value, struct ts_dist_vote **v, struct ts_error *err);

/* Completes and frees *v (sets it NULL): the largest value any rank posted in it. A NULL vote
 * (none open) gives 0. */
int ts_dist_vote_read(const struct ts_dist *d, struct ts_dist_vote **v, int *largest, struct ts_error *err);

#endif
