#include "ts_text_safe.h"

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s, or 0. Overlong forms and surrogates are invalid. */
static size_t utf8_length(const unsigned char *s)
{
    size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminator */
            return 0;
    if ((n == 2 && s[0] < 0xc2) || (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
        || (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] > 0xf4)
        || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

void ts_sanitize_text(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        size_t n = utf8_length(p);
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}
