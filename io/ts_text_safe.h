/* Text from files is untrusted: it goes to terminals (escape sequences) and to JSON (which
 * must be UTF-8), so it is made safe for both once, where it is read. */
#ifndef TOUCHSTONE_IO_TS_TEXT_SAFE_H
#define TOUCHSTONE_IO_TS_TEXT_SAFE_H

/* Replaces control characters and bytes that are not valid UTF-8 with '?', in place. */
void ts_sanitize_text(char *s);

#endif
