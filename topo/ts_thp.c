#include "ts_thp.h"

#include <stdio.h>
#include <string.h>

const char *ts_thp_mode(const char *path, char *buf, size_t len)
{
    char line[256] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    const char *open = strchr(line, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (close && close > open + 1)
        snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
    else
        snprintf(buf, len, "unknown");
    return buf;
}
