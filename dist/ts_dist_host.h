/* What only the ranks of one machine need to compare (the warnings across ranks: ranks whose CPUs
 * overlap, a host with more threads than cores), compared there instead of at rank 0: the world
 * split by machine, each machine's texts brought to its first rank, and an answer sent back to
 * each of its ranks. A machine's first rank holds that machine's ranks' texts, never the world's. */
#ifndef TOUCHSTONE_DIST_TS_DIST_HOST_H
#define TOUCHSTONE_DIST_TS_DIST_HOST_H

#include "ts_dist.h"
#include "ts_error.h"

/* Called on each machine's first rank with the texts of its n ranks (in rank order) and their
 * world ranks: fills out[0 .. n - 1] with one malloc'd text for each of them (NULL: none, "" on
 * arrival), returns 0, or -1 when it cannot (memory): every rank of the machine then gets NULL. */
typedef int (*ts_dist_host_fn)(void *ctx, const char *const *texts, const int *ranks, int n, char **out);

/* Collective: every rank gives text (NULL: it could not make one); the ranks of one machine,
 * the ranks with one kernel boot id (or, without one, one host name: d->boot_id, d->host), meet
 * at their lowest rank, which calls answer on their texts and sends each its answer, into *back
 * (malloc'd, the caller frees it; NULL when this rank's machine failed: a text missing, answer
 * failing, no memory). Point-to-point messages of one rank's text each: no count adds up the
 * machine's texts, so no int limits them together (one text at most 1 GiB). Not started: answer
 * called on text alone. TS_INTERNAL_ERROR when MPI fails; otherwise TS_OK, *back saying the rest. */
int ts_dist_host_exchange(const struct ts_dist *d, const char *text, ts_dist_host_fn answer, void *ctx, char **back,
                          struct ts_error *err);

#endif
