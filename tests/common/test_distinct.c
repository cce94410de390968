/* Distinct names by sorting (common/ts_distinct.h): the count of hosts among ranks and whether
 * two host names share one kernel, against the pairwise answer on every small case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_distinct.h"
#include "ts_test.h"

/* What comparing every pair gives: the answer the sort must agree with. */
static size_t distinct_by_pairs(const char *const *t, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(t[i] ? t[i] : "", t[j] ? t[j] : "") == 0;
        count += !seen;
    }
    return count;
}

static int two_names_by_pairs(const struct ts_named_key *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (p[i].key[0] && strcmp(p[i].key, p[j].key) == 0 && strcmp(p[i].name, p[j].name) != 0)
                return 1;
    return 0;
}

static const char *const words[] = { "n1", "n2", "n10", "", "n1 ", "N1" };
enum { N_WORDS = sizeof words / sizeof words[0] };

/* Every list of up to 6 names drawn from the words (each index in base N_WORDS). */
static void counts(void)
{
    REQUIRE(ts_count_distinct(NULL, 0) == 0, "no names, no hosts");
    const char *with_null[] = { NULL, "", "a" };
    REQUIRE(ts_count_distinct(with_null, 3) == 2, "NULL and \"\" are one name");
    int checked = 0;
    for (size_t len = 1; len <= 5; len++) {
        size_t cases = 1;
        for (size_t i = 0; i < len; i++)
            cases *= N_WORDS;
        for (size_t c = 0; c < cases; c++) {
            const char *t[5], *copy[5];
            for (size_t i = 0, v = c; i < len; i++, v /= N_WORDS)
                t[i] = copy[i] = words[v % N_WORDS];
            size_t want = distinct_by_pairs(t, len), got = ts_count_distinct(copy, len);
            REQUIRE(got == want, "case %zu of length %zu: %zu distinct, pairs say %zu", c, len, got, want);
            checked++;
        }
    }
    printf("%d lists agree with the pairwise count\n", checked);
}

/* Hosts and boot ids: one machine under two names, two machines, unknown boot ids. */
static void kernels(void)
{
    static const char *const hosts[] = { "n1", "n2", "n3" };
    static const char *const boots[] = { "b1", "b2", "" };
    int checked = 0;
    for (size_t len = 1; len <= 4; len++) {
        size_t cases = 1;
        for (size_t i = 0; i < len; i++)
            cases *= 9;
        for (size_t c = 0; c < cases; c++) {
            struct ts_named_key p[4], copy[4];
            for (size_t i = 0, v = c; i < len; i++, v /= 9)
                p[i] = copy[i] = (struct ts_named_key){ .name = hosts[v % 9 / 3], .key = boots[v % 3] };
            int want = two_names_by_pairs(p, len), got = ts_key_has_two_names(copy, len);
            REQUIRE(got == want, "case %zu of length %zu: %d, pairs say %d", c, len, got, want);
            checked++;
        }
    }
    struct ts_named_key emulated[] = { { "b1", "n1" }, { "b1", "n1" }, { "b1", "n2" } };
    REQUIRE(ts_key_has_two_names(emulated, 3) == 1, "n1 and n2 on one kernel");
    struct ts_named_key unknown[] = { { "", "n1" }, { "", "n2" } };
    REQUIRE(ts_key_has_two_names(unknown, 2) == 0, "no boot id says nothing");
    printf("%d lists agree with the pairwise answer\n", checked);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: %s counts|kernels", argv[0]);
    if (strcmp(argv[1], "counts") == 0)
        counts();
    else if (strcmp(argv[1], "kernels") == 0)
        kernels();
    else
        REQUIRE(0, "no case %s", argv[1]);
    return 0;
}
