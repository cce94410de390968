#include "ts_distinct.h"

#include <stdlib.h>
#include <string.h>

static const char *text_or_empty(const char *s)
{
    return s ? s : "";
}

static int compare_texts(const void *a, const void *b)
{
    return strcmp(text_or_empty(*(const char *const *)a), text_or_empty(*(const char *const *)b));
}

size_t ts_count_distinct(const char **texts, size_t n)
{
    if (n == 0)
        return 0;
    qsort(texts, n, sizeof *texts, compare_texts);
    size_t count = 1;
    for (size_t i = 1; i < n; i++)
        count += compare_texts(&texts[i - 1], &texts[i]) != 0;
    return count;
}

static int compare_pairs(const void *a, const void *b)
{
    const struct ts_named_key *x = a, *y = b;
    int by_key = strcmp(text_or_empty(x->key), text_or_empty(y->key));
    return by_key ? by_key : strcmp(text_or_empty(x->name), text_or_empty(y->name));
}

int ts_key_has_two_names(struct ts_named_key *pairs, size_t n)
{
    qsort(pairs, n, sizeof *pairs, compare_pairs);
    /* Sorted by key, then name: two names of one key meet as neighbours. */
    for (size_t i = 1; i < n; i++) {
        const char *key = text_or_empty(pairs[i].key);
        if (key[0] && strcmp(key, text_or_empty(pairs[i - 1].key)) == 0
            && strcmp(text_or_empty(pairs[i].name), text_or_empty(pairs[i - 1].name)) != 0)
            return 1;
    }
    return 0;
}
