#include "ts_text_safe.h"

#include <string.h>

#include "ts_utf8.h"

void ts_sanitize_text(char *s)
{
    size_t len = strlen(s);
    for (size_t at = 0; at < len;) {
        unsigned char c = (unsigned char)s[at];
        size_t n = ts_utf8_sequence_length(s + at, len - at);
        if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f))) {
            s[at++] = '?';
            continue;
        }
        at += n;
    }
}
