/* Lines merged across ranks (common/ts_rank_merge.h): which texts are one line, the ranks and
 * hosts each line names, its numbers, the order of the lines, and a set that travels as text and
 * joins in blocks of ranks giving what one set of every rank gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_rank_merge.h"
#include "ts_test.h"

static char buf[2048];

/* Line i of m for a world of `world` ranks, into buf. */
static const char *line(const struct ts_rank_merge *m, int i, int world)
{
    ts_rank_merge_line(m, i, world, buf, sizeof buf);
    printf("%s\n", buf);
    return buf;
}

static struct ts_rank_merge *fresh(void)
{
    struct ts_rank_merge *m = ts_rank_merge_new();
    REQUIRE(m != NULL, "no memory for a set");
    return m;
}

static void add(struct ts_rank_merge *m, int rank, const char *host, const char *text)
{
    REQUIRE(ts_rank_merge_add(m, rank, host, text) == 0, "add failed");
}

/* The ranks of one line as ranges, the first four, then "...". */
static void ranges(void)
{
    struct ts_rank_merge *m = fresh();
    static const int said[] = { 0, 1, 2, 3, 5, 9, 10, 11, 12 };
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        add(m, said[i], "a", "binding is off");
    REQUIRE(ts_rank_merge_count(m) == 1, "one text: %d lines", ts_rank_merge_count(m));
    REQUIRE(strcmp(line(m, 0, 16), "9 of 16 ranks (ranks 0-3,5,9-12; host a): binding is off") == 0, "got '%s'", buf);
    add(m, 14, "b", "binding is off");
    add(m, 15, "b", "binding is off");
    REQUIRE(strcmp(line(m, 0, 16), "11 of 16 ranks (ranks 0-3,5,9-12,14-15; hosts a, b): binding is off") == 0,
            "got '%s'", buf);
    ts_rank_merge_free(m);

    /* Past four ranges and three hosts: the first ones, then "...". */
    m = fresh();
    for (int r = 0; r < 20; r += 2)
        add(m, r, r < 8 ? "n1" : r < 12 ? "n2" : r < 16 ? "n3" : "n4", "x");
    REQUIRE(strcmp(line(m, 0, 20), "10 of 20 ranks (ranks 0,2,4,6 ...; hosts n1, n2, n3 ...): x") == 0, "got '%s'",
            buf);
    REQUIRE(ts_rank_merge_ranks(m, 0) == 10, "10 ranks counted as %lld", ts_rank_merge_ranks(m, 0));
    ts_rank_merge_free(m);
}

/* One rank's line names the rank and its host alone. */
static void single(void)
{
    struct ts_rank_merge *m = fresh();
    add(m, 0, "vm", "every rank says this");
    add(m, 1, "vm", "every rank says this");
    add(m, 3, "vm", "only rank 3 says this");
    add(m, 2, "vm", "every rank says this"); /* out of order: still counted */
    REQUIRE(ts_rank_merge_count(m) == 2, "two texts: %d lines", ts_rank_merge_count(m));
    CHECK(strcmp(line(m, 0, 4), "3 of 4 ranks (ranks 0-2; host vm): every rank says this") == 0, "got '%s'", buf);
    REQUIRE(strcmp(line(m, 1, 4), "rank 3 (vm): only rank 3 says this") == 0, "got '%s'", buf);
    ts_rank_merge_free(m);
}

/* Texts that differ only in numbers are one line, each number that differs shown as the
 * smallest and largest of the ranks'; numbers inside words are letters. */
static void numbers(void)
{
    struct ts_rank_merge *m = fresh();
    for (int r = 0; r < 8; r++) {
        char text[200];
        snprintf(text, sizeof text,
                 "ALL 2 THREADS ARE ON ONE CORE (core %d): the process may use only CPU %d; mask %d-%d,%d of L3", r, r,
                 2 * r, 2 * r + 1, 40 + r);
        add(m, r, "vm", text);
    }
    REQUIRE(ts_rank_merge_count(m) == 1, "texts that differ in numbers: %d lines", ts_rank_merge_count(m));
    REQUIRE(strcmp(line(m, 0, 8),
                   "8 of 8 ranks (ranks 0-7; host vm): ALL 2 THREADS ARE ON ONE CORE (core 0..7): the process may "
                   "use only CPU 0..7; mask 0-1,40..14-15,47 of L3")
                == 0,
            "got '%s'", buf);
    /* A number that is part of a word is not a number: L2 and L3 are two texts, as are the
     * kernels stencil2d and stencil3d; a decimal is one number. */
    add(m, 8, "vm", "ALL 2 THREADS ARE ON ONE CORE (core 0): the process may use only CPU 0; mask 0-1,40 of L2");
    add(m, 8, "vm", "stencil2d took 0.25 s");
    add(m, 9, "vm", "stencil3d took 0.25 s");
    add(m, 10, "vm", "stencil2d took 1.5 s");
    REQUIRE(ts_rank_merge_count(m) == 4, "L2/L3, 2d/3d told apart: %d lines", ts_rank_merge_count(m));
    REQUIRE(strcmp(line(m, 2, 11), "2 of 11 ranks (ranks 8,10; host vm): stencil2d took 0.25..1.5 s") == 0, "got '%s'",
            buf);
    REQUIRE(strcmp(line(m, 3, 11), "rank 9 (vm): stencil3d took 0.25 s") == 0, "got '%s'", buf);
    ts_rank_merge_free(m);
}

/* Lines come in the order they first appear: by lowest rank, then in that rank's order. */
static void order(void)
{
    struct ts_rank_merge *m = fresh();
    add(m, 0, "a", "first of rank 0");
    add(m, 0, "a", "second of rank 0");
    add(m, 1, "a", "only rank 1");
    add(m, 2, "a", "second of rank 0");
    add(m, 2, "a", "first of rank 0");
    static const char *const want[] = { "2 of 3 ranks (ranks 0,2; host a): first of rank 0",
                                        "2 of 3 ranks (ranks 0,2; host a): second of rank 0",
                                        "rank 1 (a): only rank 1" };
    REQUIRE(ts_rank_merge_count(m) == 3, "3 texts: %d lines", ts_rank_merge_count(m));
    for (int i = 0; i < 3; i++)
        REQUIRE(strcmp(line(m, i, 3), want[i]) == 0, "line %d: '%s', expected '%s'", i, buf, want[i]);
    ts_rank_merge_free(m);
}

/* Every rank r of 37 says "stacked on core r%3" and, when r%5 == 0, one more line; each on
 * host "h r/10 %name". All ranks in one set, or blocks of ranks joined in rank order through
 * their text as a reduction tree does, give the same lines. */
static struct ts_rank_merge *ranks_set(int from, int to)
{
    struct ts_rank_merge *m = fresh();
    for (int r = from; r < to; r++) {
        char text[80], host[40];
        snprintf(host, sizeof host, "h %d %%name", r / 10);
        snprintf(text, sizeof text, "threads stacked on core %d", r % 3);
        add(m, r, host, text);
        if (r % 5 == 0)
            add(m, r, host, "rank with 100% of its pages remote");
    }
    return m;
}

static void join_as_text(void)
{
    struct ts_rank_merge *whole = ranks_set(0, 37);
    char want[2][sizeof buf];
    REQUIRE(ts_rank_merge_count(whole) == 2, "two texts: %d lines", ts_rank_merge_count(whole));
    for (int i = 0; i < 2; i++)
        snprintf(want[i], sizeof want[i], "%s", line(whole, i, 37));
    REQUIRE(strcmp(want[0], "37 of 37 ranks (ranks 0-36; hosts h 0 %name, h 1 %name, h 2 %name ...): threads stacked "
                            "on core 0..2")
                == 0,
            "got '%s'", want[0]);
    REQUIRE(strcmp(want[1], "8 of 37 ranks (ranks 0,5,10,15 ...; hosts h 0 %name, h 1 %name, h 2 %name ...): rank "
                            "with 100% of its pages remote")
                == 0,
            "got '%s'", want[1]);
    /* Blocks of 1, 2, 3 and 7 ranks, each joined in through its text, pairwise as a tree. */
    static const int blocks[] = { 1, 2, 3, 7 };
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        struct ts_rank_merge *parts[40];
        int n = 0;
        for (int from = 0; from < 37; from += blocks[b])
            parts[n++] = ranks_set(from, from + blocks[b] < 37 ? from + blocks[b] : 37);
        for (int step = 1; step < n; step *= 2)
            for (int i = 0; i + step < n; i += 2 * step) {
                char *text = ts_rank_merge_write(parts[i + step]);
                REQUIRE(text != NULL, "no memory to write a set");
                REQUIRE(ts_rank_merge_read(parts[i], text) == 0, "a written set does not read back: %s", text);
                free(text);
                ts_rank_merge_free(parts[i + step]);
            }
        for (int i = 0; i < 2; i++)
            CHECK(strcmp(line(parts[0], i, 37), want[i]) == 0, "blocks of %d: line %d '%s', expected '%s'", blocks[b],
                  i, buf, want[i]);
        ts_rank_merge_free(parts[0]);
    }
    /* ts_rank_merge_join does what reading the text does. */
    struct ts_rank_merge *low = ranks_set(0, 20), *high = ranks_set(20, 37);
    REQUIRE(ts_rank_merge_join(low, high) == 0, "join failed");
    for (int i = 0; i < 2; i++)
        CHECK(strcmp(line(low, i, 37), want[i]) == 0, "joined: line %d '%s'", i, buf);
    ts_rank_merge_free(low);
    ts_rank_merge_free(high);
    ts_rank_merge_free(whole);
}

/* Text that is not a written set is refused, never read as one. */
static void read_refuses(void)
{
    static const char *const bad[] = {
        "x\n",
        "1 0 1 0 1 0 0 0 a text\n",                 /* a field missing */
        "0 0 1 0 1 0 0 0 0 a text \n",              /* a count of 0 */
        "1 0 1 0 1 0 0 0 1 a text \n",              /* a slot without its largest value */
        "1 0 1 0 1 0 0 0 1 a 3 3 text \n",          /* a slot the text has not */
        "1 0 1 0 1 0 0 0 0 a%zz text \n",           /* a broken escape */
        "1 0 1 0 1 0 0 0 0 a text ",                /* no end of line */
        "1 0 5 0 1 0 0 0 0 0 0 0 0 0 0 0 0 a t \n", /* more ranges than a line keeps */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ts_rank_merge *m = fresh();
        CHECK(ts_rank_merge_read(m, bad[i]) == -2 && ts_rank_merge_count(m) == 0, "read '%s'", bad[i]);
        ts_rank_merge_free(m);
    }
    struct ts_rank_merge *m = fresh();
    REQUIRE(ts_rank_merge_read(m, "1 0 1 0 1 0 0 0 0 a text \n2 1 1 0 1 0 1 0 1 a 0 1 core%200 \n") == 0,
            "good lines refused");
    REQUIRE(ts_rank_merge_count(m) == 2, "two lines read as %d", ts_rank_merge_count(m));
    REQUIRE(strcmp(line(m, 1, 2), "2 of 2 ranks (ranks 0-1; host a): core 0..1") == 0, "got '%s'", buf);
    ts_rank_merge_free(m);
}

/* A set keeps the first TS_RANK_MERGE_LINES distinct lines and counts the others as dropped, as
 * text too and across a join: what a rank of the merge holds is bounded whatever the ranks say. */
static void capped(void)
{
    struct ts_rank_merge *m = fresh(), *later = fresh(), *back = fresh();
    char text[32];
    /* Distinct texts differ in letters, not numbers: "w aa", "w ab", ... */
    for (int i = 0; i < TS_RANK_MERGE_LINES + 10; i++) {
        snprintf(text, sizeof text, "w %c%c", 'a' + i / 26, 'a' + i % 26);
        add(m, 0, "a", text);
    }
    REQUIRE(ts_rank_merge_count(m) == TS_RANK_MERGE_LINES && ts_rank_merge_dropped(m) == 10,
            "%d lines kept, %lld dropped", ts_rank_merge_count(m), ts_rank_merge_dropped(m));
    add(later, 1, "b", "w aa"); /* kept: it is the first line */
    add(later, 1, "b", "w zz"); /* new, past the cap */
    REQUIRE(ts_rank_merge_join(m, later) == 0, "join failed");
    REQUIRE(ts_rank_merge_ranks(m, 0) == 2 && ts_rank_merge_dropped(m) == 11,
            "after the join: %lld ranks, %lld dropped", ts_rank_merge_ranks(m, 0), ts_rank_merge_dropped(m));
    char *t = ts_rank_merge_write(m);
    REQUIRE(t && ts_rank_merge_read(back, t) == 0, "the capped set does not read back");
    REQUIRE(ts_rank_merge_count(back) == TS_RANK_MERGE_LINES && ts_rank_merge_dropped(back) == 11,
            "read back: %d lines, %lld dropped", ts_rank_merge_count(back), ts_rank_merge_dropped(back));
    REQUIRE(ts_rank_merge_read(back, "+x\n") == -2, "a broken count of dropped lines is read");
    free(t);
    ts_rank_merge_free(m);
    ts_rank_merge_free(later);
    ts_rank_merge_free(back);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = { { "ranges", ranges }, { "single", single },     { "numbers", numbers },
                  { "order", order },   { "join", join_as_text }, { "read_refuses", read_refuses },
                  { "capped", capped } };
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            return ts_test_finish();
        }
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}
