/* Lines that ranks say, merged across ranks (issue 24): one line per distinct text with how many
 * ranks said it and which, instead of one line per rank. A layout mistake every rank makes is
 * one line on 1,000 ranks as on 2.
 *
 * The same warning: two texts are one when they are equal once every number in them is set
 * aside. A number is a run of digits that does not continue a word (the 2 of "stencil2d" and
 * the 3 of "L3" are letters of their word), together with the digits that follow it after one
 * '.', ',' or '-' (a decimal "0.25", a CPU list "0-3,8" is one number). So "core 0 (CPU 0)" on
 * rank 0 and "core 1 (CPU 1)" on rank 1 are one warning; identical texts always are one.
 * A merged line shows its text as the first rank said it, where each number the ranks do not
 * all give alike is shown as the smallest and largest of theirs, "0..7" (numbers compare by
 * their value, then as text: the CPU lists "0-3" and "4-7" give "0-3..4-7").
 *
 * Lines are ordered by first appearance: by the lowest rank that said them, then by their order
 * in that rank. Each line keeps its count, its first ranges of ranks and its first hosts, so a
 * set costs O(distinct texts), whatever the number of ranks. Sets of consecutive blocks of
 * ranks join in rank order (a reduction tree's), and travel as text. */
#ifndef TOUCHSTONE_COMMON_TS_RANK_MERGE_H
#define TOUCHSTONE_COMMON_TS_RANK_MERGE_H

#include <stddef.h>

/* A line names at most this many ranges of ranks and this many hosts, then "...". */
enum { TS_RANK_MERGE_RANGES = 4, TS_RANK_MERGE_HOSTS = 3 };

/* The most distinct lines a set keeps. */
enum { TS_RANK_MERGE_LINES = 256 };

struct ts_rank_merge;

/* An empty set, or NULL when memory runs out. */
struct ts_rank_merge *ts_rank_merge_new(void);

void ts_rank_merge_free(struct ts_rank_merge *m);

/* Rank `rank` on host says text. Ranks come in ascending order; one rank may say several
 * texts (counted once per line it joins). 0, or -1 when memory runs out. */
int ts_rank_merge_add(struct ts_rank_merge *m, int rank, const char *host, const char *text);

/* The lines of later, whose ranks all come after m's, joined into m. 0, or -1 (no memory). */
int ts_rank_merge_join(struct ts_rank_merge *m, const struct ts_rank_merge *later);

/* The set as text (malloc'd, the caller frees it), for ts_rank_merge_read; NULL without memory. */
char *ts_rank_merge_write(const struct ts_rank_merge *m);

/* Joins into m (as ts_rank_merge_join) the set ts_rank_merge_write wrote as text. 0; -1 when
 * memory runs out; -2 when the text is not such a set (m then holds the lines before it). */
int ts_rank_merge_read(struct ts_rank_merge *m, const char *text);

/* A join for dist's tree merge (ts_dist_merge_text), ctx a struct ts_rank_merge that holds the
 * lower block's set already: the higher block's text read into it, the set as text again to go
 * up the tree (malloc'd); NULL without memory or on a malformed text. */
char *ts_rank_merge_join_text(void *ctx, const char *lower, const char *higher);

/* How many distinct lines the set holds. */
int ts_rank_merge_count(const struct ts_rank_merge *m);

/* How many ranks said line i. */
long long ts_rank_merge_ranks(const struct ts_rank_merge *m, int i);

/* How many distinct lines were dropped past TS_RANK_MERGE_LINES, summed over the joined sets (a
 * text dropped in two blocks counts twice): 0 when the set is whole. */
long long ts_rank_merge_dropped(const struct ts_rank_merge *m);

/* The text of line i with its numbers as the ranks gave them ("core 0..7"), without its ranks. */
void ts_rank_merge_text(const struct ts_rank_merge *m, int i, char *buf, size_t len);

/* The first hosts of line i, "n1, n2, n3 ..." ("..." when there are more). */
void ts_rank_merge_hosts(const struct ts_rank_merge *m, int i, char *buf, size_t len);

/* Line i for the user, of a world of `world` ranks: "rank 3 (n1): TEXT" when one rank said it,
 * else "8 of 64 ranks (ranks 0-3,5,9-11 ...; hosts n1, n2): TEXT". */
void ts_rank_merge_line(const struct ts_rank_merge *m, int i, int world, char *buf, size_t len);

#endif
