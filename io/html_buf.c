/* The report's text buffer, its escaping, and the pictures every section draws the same way. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_doc.h"

static int grow(struct hbuf *b, size_t more)
{
    if (b->failed)
        return -1;
    if (b->len + more + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static void put(struct hbuf *b, const char *s, size_t n)
{
    if (grow(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void hb_raw(struct hbuf *b, const char *s)
{
    put(b, s, strlen(s));
}

void hb_fmt(struct hbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || grow(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 when it is not one (a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short). */
static size_t utf8_length(const unsigned char *s)
{
    const unsigned char c = s[0];
    size_t len = c < 0x80                 ? 1
                 : c >= 0xc2 && c <= 0xdf ? 2
                 : c >= 0xe0 && c <= 0xef ? 3
                 : c >= 0xf0 && c <= 0xf4 ? 4
                                          : 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || (c == 0xf0 && s[1] < 0x90)
        || (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return len;
}

void hb_escn(struct hbuf *b, const char *s, size_t n)
{
    /* A character begun before n is written whole: a cut never splits one. Bytes that are not
     * UTF-8 become '?', so that the page is valid UTF-8 whatever a record held. */
    for (size_t i = 0; s[i] && i < n;) {
        const unsigned char ch = (unsigned char)s[i];
        size_t len = 1;
        switch (ch) {
        case '&': hb_raw(b, "&amp;"); break;
        case '<': hb_raw(b, "&lt;"); break;
        case '>': hb_raw(b, "&gt;"); break;
        case '"': hb_raw(b, "&quot;"); break;
        case '\'': hb_raw(b, "&#39;"); break;
        case '\n': put(b, "\n", 1); break;
        case '\t': put(b, " ", 1); break;
        default:
            if (ch < 0x20 || ch == 0x7f)
                put(b, "?", 1);
            else if ((len = utf8_length((const unsigned char *)&s[i])) == 0) {
                put(b, "?", 1);
                len = 1;
            } else
                put(b, &s[i], len);
        }
        i += len;
    }
}

void hb_esc(struct hbuf *b, const char *s)
{
    hb_escn(b, s ? s : "", s ? strlen(s) : 0);
}

void hb_num(struct hbuf *b, const char *fmt, double v)
{
    if (isnan(v))
        hb_raw(b, "&#8211;");
    else if (isinf(v))
        hb_raw(b, v > 0 ? "&#8734;" : "-&#8734;");
    else
        hb_fmt(b, fmt, v);
}

void hb_td_num(struct hbuf *b, const char *fmt, double v)
{
    if (isfinite(v))
        hb_fmt(b, "<td class=\"n\" data-v=\"%.17g\">", v);
    else
        hb_raw(b, "<td class=\"n\" data-v=\"\">");
    hb_num(b, fmt, v);
    hb_raw(b, "</td>");
}

void hb_td_text(struct hbuf *b, const char *s)
{
    hb_raw(b, "<td>");
    hb_esc(b, s);
    hb_raw(b, "</td>");
}

/* A perceptually ordered scale from pale yellow to dark blue (viridis' ends, reversed). */
void html_heat_color(double t, char out[8])
{
    static const double stops[5][3] = {
        { 253, 231, 37 }, { 94, 201, 98 }, { 33, 145, 140 }, { 59, 82, 139 }, { 68, 1, 84 },
    };
    if (!isfinite(t))
        t = 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double x = t * 4;
    int k = (int)x;
    if (k > 3)
        k = 3;
    double f = x - k;
    int rgb[3];
    for (int i = 0; i < 3; i++)
        rgb[i] = (int)lround(stops[k][i] + f * (stops[k + 1][i] - stops[k][i]));
    snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 0xff, rgb[1] & 0xff, rgb[2] & 0xff);
}

const char *html_category_color(int k)
{
    static const char *const colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                          "#9467bd", "#8c564b", "#e377c2", "#7f7f7f" };
    return colors[(k < 0 ? -k : k) % 8];
}

void html_bars(struct hbuf *b, const char *title, const char *unit, const char *const *labels, const double *values,
               int n, const char *fmt)
{
    const int label_w = 170, bar_w = 220, row_h = 22, top = 26, bottom = 34;
    double max = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(values[i]) && values[i] > max)
            max = values[i];
    const int w = label_w + bar_w + 80, h = top + n * row_h + bottom;
    hb_fmt(b, "<figure><svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\"><title>", w, h, w);
    hb_esc(b, title);
    hb_raw(b, " (");
    hb_esc(b, unit);
    hb_raw(b, ")</title>");
    hb_fmt(b, "<text x=\"4\" y=\"16\" class=\"ct\">");
    hb_esc(b, title);
    hb_raw(b, "</text>");
    for (int i = 0; i < n; i++) {
        const int y = top + i * row_h;
        hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 6, y + 15);
        hb_escn(b, labels[i], 28);
        hb_raw(b, "</text>");
        if (!isfinite(values[i]) || max <= 0) {
            hb_fmt(b, "<text x=\"%d\" y=\"%d\" class=\"muted\">not measured</text>", label_w + 4, y + 15);
            continue;
        }
        const double len = values[i] / max * bar_w;
        hb_fmt(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", label_w, y + 3, len,
               row_h - 6, html_category_color(i));
        hb_esc(b, labels[i]);
        hb_raw(b, ": ");
        hb_num(b, fmt, values[i]);
        hb_raw(b, " ");
        hb_esc(b, unit);
        hb_fmt(b, "</title></rect><text x=\"%.1f\" y=\"%d\">", label_w + len + 4, y + 15);
        hb_num(b, fmt, values[i]);
        hb_raw(b, "</text>");
    }
    const int axis_y = top + n * row_h + 4;
    hb_fmt(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", label_w, axis_y, label_w + bar_w,
           axis_y);
    hb_fmt(b, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w, axis_y + 14,
           label_w + bar_w, axis_y + 14);
    hb_num(b, fmt, max);
    hb_fmt(b, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"muted\">", label_w + bar_w / 2,
           axis_y + 28);
    hb_esc(b, unit);
    hb_raw(b, "</text></svg></figure>\n");
}
