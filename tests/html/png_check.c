/* png_check FILE.png [WIDTH]: a screenshot is a picture, not an empty page.
 *
 * Decodes the PNG (8-bit grey, grey+alpha, RGB or RGBA, not interlaced: what chromium
 * writes) with zlib, then fails (exit 1) when it is not WIDTH pixels wide (when given), when
 * every pixel has the same colour, or when fewer than 1 in 1000 pixels differ from the most
 * common colour (a blank page with a speck). Prints one line: the size, the number of colours
 * (counted up to 4096) and the share of pixels off the most common colour. Exit 2: not a PNG
 * this program reads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { MAX_COLOURS = 4096, TABLE = 8192 };

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = n;
    return buf;
}

static int fail(int status, const char *path, const char *why)
{
    printf("%s: %s\n", path, why);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: png_check FILE.png [WIDTH]\n");
        return 2;
    }
    const char *path = argv[1];
    size_t size = 0;
    unsigned char *png = read_all(path, &size);
    if (!png)
        return fail(2, path, "cannot read the file");
    static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    if (size < 33 || memcmp(png, magic, 8) != 0 || memcmp(png + 12, "IHDR", 4) != 0) {
        free(png);
        return fail(2, path, size ? "not a PNG" : "empty file, not a PNG");
    }
    uint32_t width = be32(png + 16), height = be32(png + 20);
    int depth = png[24], type = png[25], interlace = png[28];
    int channels = type == 0 ? 1 : type == 4 ? 2 : type == 2 ? 3 : type == 6 ? 4 : 0;
    if (depth != 8 || channels == 0 || interlace != 0 || width == 0 || height == 0 || width > 65536 || height > 65536) {
        free(png);
        return fail(2, path, "a PNG this checker does not read (8-bit, not interlaced, not paletted only)");
    }
    /* The image data: every IDAT chunk, in order. */
    size_t idat_size = 0;
    unsigned char *idat = malloc(size);
    for (size_t at = 8; idat && at + 12 <= size;) {
        uint32_t len = be32(png + at);
        if (len > size - at - 12)
            break;
        if (memcmp(png + at + 4, "IDAT", 4) == 0) {
            memcpy(idat + idat_size, png + at + 8, len);
            idat_size += len;
        }
        if (memcmp(png + at + 4, "IEND", 4) == 0)
            break;
        at += 12 + (size_t)len;
    }
    free(png);
    size_t stride = (size_t)width * (size_t)channels;
    uLongf raw_size = (uLongf)((stride + 1) * height);
    unsigned char *raw = idat ? malloc(raw_size) : NULL;
    if (!raw || uncompress(raw, &raw_size, idat, (uLong)idat_size) != Z_OK || raw_size != (stride + 1) * height) {
        free(idat);
        free(raw);
        return fail(2, path, "its image data does not inflate to the size its header gives");
    }
    free(idat);
    /* Undo the per-row filters in place; row y starts at raw + y (stride + 1) + 1. */
    for (uint32_t y = 0; y < height; y++) {
        unsigned char *row = raw + (size_t)y * (stride + 1), *cur = row + 1;
        const unsigned char *up = y ? row - stride : NULL;
        int filter = row[0];
        for (size_t x = 0; x < stride; x++) {
            int a = x >= (size_t)channels ? cur[x - channels] : 0, b = up ? up[x] : 0;
            int c = up && x >= (size_t)channels ? up[x - channels] : 0;
            switch (filter) {
            case 0: break;
            case 1: cur[x] = (unsigned char)(cur[x] + a); break;
            case 2: cur[x] = (unsigned char)(cur[x] + b); break;
            case 3: cur[x] = (unsigned char)(cur[x] + (a + b) / 2); break;
            case 4: cur[x] = (unsigned char)(cur[x] + paeth(a, b, c)); break;
            default: free(raw); return fail(2, path, "a row with an unknown filter");
            }
        }
    }
    /* Colours counted in a small open-addressing table; past MAX_COLOURS new ones are only
     * counted as "more". */
    static uint32_t colour[TABLE];
    static uint64_t count[TABLE];
    static unsigned char used[TABLE];
    unsigned colours = 0;
    int more = 0;
    for (uint32_t y = 0; y < height; y++) {
        const unsigned char *p = raw + (size_t)y * (stride + 1) + 1;
        for (uint32_t x = 0; x < width; x++, p += channels) {
            uint32_t v = 0;
            for (int k = 0; k < channels; k++)
                v = v << 8 | p[k];
            uint32_t h = (v * 2654435761u) >> 19;
            while (used[h] && colour[h] != v)
                h = (h + 1) % TABLE;
            if (used[h]) {
                count[h]++;
            } else if (colours < MAX_COLOURS) {
                used[h] = 1;
                colour[h] = v;
                count[h] = 1;
                colours++;
            } else {
                more = 1;
            }
        }
    }
    free(raw);
    uint64_t top = 0, pixels = (uint64_t)width * height;
    for (unsigned i = 0; i < TABLE; i++)
        if (used[i] && count[i] > top)
            top = count[i];
    double off = 100.0 * (double)(pixels - top) / (double)pixels;
    char line[256];
    snprintf(line, sizeof line, "%ux%u px, %u%s colours, %.2f%% of the pixels off the most common colour",
             (unsigned)width, (unsigned)height, colours, more ? " or more" : "", off);
    if (argc == 3 && strtoul(argv[2], NULL, 10) != width) {
        printf("%s: %s, not %s px wide\n", path, line, argv[2]);
        return 1;
    }
    if (colours < 2) {
        printf("%s: %s: a single colour, an empty picture\n", path, line);
        return 1;
    }
    if (pixels - top < pixels / 1000) {
        printf("%s: %s: under 0.1%%, a blank page\n", path, line);
        return 1;
    }
    printf("%s\n", line);
    return 0;
}
