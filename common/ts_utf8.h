/* UTF-8 checks for text that is stored as UTF-8 (config text, HDF5 strings): where a text
 * stops being valid, and a valid copy with the offending bytes escaped. */
#ifndef TOUCHSTONE_COMMON_TS_UTF8_H
#define TOUCHSTONE_COMMON_TS_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence that starts at s, reading at most left bytes; 0 when
 * none starts there (a stray byte, a truncated or invalid sequence as below). */
size_t ts_utf8_sequence_length(const char *s, size_t left);

/* The length of the valid UTF-8 prefix of the len bytes at s: len when all of it is valid.
 * Valid means RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF. */
size_t ts_utf8_valid_prefix(const char *s, size_t len);

/* A copy of the string s (NUL-terminated) with every byte that is not part of a valid UTF-8
 * sequence written as the four characters \xNN (lower-case hex); valid text, backslashes
 * included, is copied as it is. Returns a malloc'd string (the caller frees it), or NULL
 * when out of memory. */
char *ts_utf8_escape(const char *s);

#endif
