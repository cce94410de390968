/* UTF-8 validation and escaping. */
#include "ts_utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ts_utf8_sequence_length(const char *text, size_t left)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (n > left)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 2 && s[0] < 0xc2) || (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
        || (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] > 0xf4)
        || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

size_t ts_utf8_valid_prefix(const char *s, size_t len)
{
    size_t at = 0;
    while (at < len) {
        size_t n = ts_utf8_sequence_length(s + at, len - at);
        if (n == 0)
            return at;
        at += n;
    }
    return len;
}

char *ts_utf8_escape(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(4 * len + 1); /* every byte escaped at worst */
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t used = 0;
    for (size_t at = 0; at < len;) {
        size_t n = ts_utf8_sequence_length(s + at, len - at);
        if (n == 0) {
            used += (size_t)snprintf(out + used, 5, "\\x%02x", p[at]);
            at++;
        } else {
            memcpy(out + used, p + at, n);
            used += n;
            at += n;
        }
    }
    out[used] = '\0';
    return out;
}
