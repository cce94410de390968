/* The exact sum across ranks: every rank's exact accumulator (kernels/ts_xsum.h) merged by one
 * MPI_Allreduce with a user operation, so the partials combine in a tree, O(log ranks) deep,
 * and every rank rounds the same exact sum itself: no rank gathers them, none broadcasts.
 *
 * Why the tree's shape cannot change a bit (tests/dist/test_dist_xsum.c checks it):
 * - the accumulator is plain data (integer limbs, a counter, a double; no pointer), so its bytes
 *   travel as they are, between ranks of one binary;
 * - a normalised accumulator is the unique base-2^32 form of its exact value V (limbs 0..70
 *   digits in [0, 2^32), the top limb floor(V / 2^1198)), and ts_xsum_merge normalises both
 *   sides and adds limb by limb: integer addition, associative and commutative as long as
 *   nothing overflows;
 * - nothing does: every finite double is below 2^1024 in magnitude, so V of n deposits is below
 *   n 2^1024 and the top limb is 0 or -1 for any n below 2^174; after a merge the other limbs
 *   are below 2^33, far from the 2^63 an int64_t holds; ts_xsum_round depends on V alone;
 * - the non-finite deposits add up in `special`, a double: its class (0, +inf, -inf, NaN) does
 *   not depend on the order, but the bits of a NaN do (x86 keeps the first operand's payload), so
 *   the operation makes every NaN the same quiet NaN. */
#ifndef TOUCHSTONE_DIST_TS_DIST_XSUM_H
#define TOUCHSTONE_DIST_TS_DIST_XSUM_H

#include "ts_dist.h"
#include "ts_error.h"
#include "ts_xsum.h"

/* Collective: acc becomes the exact sum of every rank's acc, the same bytes on every rank
 * (normalised: ts_xsum_round gives every rank the same double). Not started: acc, untouched,
 * no MPI call. TS_INTERNAL_ERROR when MPI fails. */
int ts_dist_xsum_allreduce(const struct ts_dist *d, struct ts_xsum *acc, struct ts_error *err);

/* The operation the reduction applies, as MPI calls it (here without MPI's types, for the
 * tests): inout[i] += in[i] exactly for i < len, every NaN made one quiet NaN. in is read only. */
void ts_dist_xsum_merge_op(const struct ts_xsum *in, struct ts_xsum *inout, int len);

#endif
