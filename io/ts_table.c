#include "ts_table.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

long ts_table_add_row(struct ts_table *t)
{
    if (t->n_rows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8;
        struct ts_cell *cells = realloc(t->cells, cap * t->n_cols * sizeof *cells);
        if (!cells)
            return -1;
        t->cells = cells;
        t->cap = cap;
    }
    struct ts_cell *row = &t->cells[t->n_rows * t->n_cols];
    for (size_t c = 0; c < t->n_cols; c++)
        row[c] = (struct ts_cell){ NAN, NULL };
    return (long)t->n_rows++;
}

size_t ts_table_col(const struct ts_table *t, const char *key)
{
    for (size_t c = 0; c < t->n_cols; c++)
        if (strcmp(t->cols[c].key, key) == 0)
            return c;
    return TS_TABLE_NO_COL;
}

void ts_table_num(struct ts_table *t, size_t row, size_t col, double v)
{
    if (col < t->n_cols)
        t->cells[row * t->n_cols + col].num = v;
}

int ts_table_text(struct ts_table *t, size_t row, size_t col, const char *s)
{
    if (col >= t->n_cols)
        return 0;
    struct ts_cell *cell = &t->cells[row * t->n_cols + col];
    free(cell->text);
    cell->text = strdup(s ? s : "");
    return cell->text ? 0 : -1;
}

void ts_table_free(struct ts_table *t)
{
    for (size_t i = 0; t->cells && i < t->n_rows * t->n_cols; i++)
        free(t->cells[i].text);
    free(t->cells);
    t->cells = NULL;
    t->n_rows = t->cap = 0;
}

int ts_table_format_parse(const char *name, enum ts_table_format *out)
{
    static const char *const names[] = { "text", "csv", "json", "markdown" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (enum ts_table_format)i;
            return 0;
        }
    return -1;
}

static const struct ts_cell *cell_at(const struct ts_table *t, size_t row, size_t col)
{
    return &t->cells[row * t->n_cols + col];
}

/* For people: "-" for what does not apply. */
static void human(const struct ts_column *c, const struct ts_cell *cell, char *buf, size_t size)
{
    if (c->type == TS_COL_TEXT)
        snprintf(buf, size, "%s", cell->text ? cell->text : "");
    else if (isnan(cell->num))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, c->type == TS_COL_INT ? "%.0f" : c->fmt ? c->fmt : "%.4g", cell->num);
}

/* Columns a person sees: all but the group column. */
static size_t shown(const struct ts_table *t, size_t *cols)
{
    size_t n = 0;
    for (size_t c = 0; c < t->n_cols; c++)
        if (c != t->group_col && t->cols[c].show != TS_SHOW_MACHINE)
            cols[n++] = c;
    return n;
}

/* Code points, not bytes: text from files may hold UTF-8. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* The grid people read: grid[r][k], r = 0 the header. Transposed, each table column becomes
 * a line led by its title, and the first shown column (the file) is the header line. */
struct grid {
    size_t rows, cols;
    char **text;  /* rows x cols */
    int *right;   /* rows x cols: numbers align right */
    size_t *from; /* rows: the table row each grid line came from (untransposed) */
};

static void grid_free(struct grid *g)
{
    for (size_t i = 0; g->text && i < g->rows * g->cols; i++)
        free(g->text[i]);
    free(g->text);
    free(g->right);
    free(g->from);
}

static int grid_build(const struct ts_table *t, struct grid *g)
{
    size_t cols[TS_TABLE_MAX_COLS];
    if (t->n_cols > TS_TABLE_MAX_COLS)
        return -1;
    size_t n = shown(t, cols);
    g->rows = t->transpose ? n : t->n_rows + 1;
    g->cols = t->transpose ? t->n_rows + 1 : n;
    g->text = calloc(g->rows * g->cols, sizeof *g->text);
    g->right = calloc(g->rows * g->cols, sizeof *g->right);
    g->from = calloc(g->rows, sizeof *g->from);
    if (!g->text || !g->right || !g->from || n == 0)
        return -1;
    char buf[1200];
    for (size_t k = 0; k < n; k++) {
        const struct ts_column *c = &t->cols[cols[k]];
        for (size_t r = 0; r <= t->n_rows; r++) {
            if (r == 0)
                snprintf(buf, sizeof buf, "%s", c->title);
            else
                human(c, cell_at(t, r - 1, cols[k]), buf, sizeof buf);
            size_t at = t->transpose ? k * g->cols + r : r * g->cols + k;
            if (!(g->text[at] = strdup(buf)))
                return -1;
            /* Side by side, a line mixes text and numbers: all start at their column. */
            g->right[at] = c->type != TS_COL_TEXT && !t->transpose;
        }
    }
    for (size_t r = 1; !t->transpose && r < g->rows; r++)
        g->from[r] = r - 1;
    return 0;
}

static const char *group_of(const struct ts_table *t, const struct grid *g, size_t r)
{
    if (t->transpose || t->group_col == TS_TABLE_NO_GROUP || r == 0)
        return NULL;
    const char *s = cell_at(t, g->from[r], t->group_col)->text;
    return s ? s : "";
}

static int new_group(const struct ts_table *t, const struct grid *g, size_t r)
{
    const char *now = group_of(t, g, r);
    return now && (r == 1 || strcmp(now, group_of(t, g, r - 1)) != 0);
}

static void text_line(const struct grid *g, size_t r, const size_t *w, const char *indent, FILE *out)
{
    fputs(indent, out);
    for (size_t k = 0; k < g->cols; k++) {
        const char *s = g->text[r * g->cols + k];
        size_t pad = w[k] - width(s);
        int last = k + 1 == g->cols;
        if (g->right[r * g->cols + k])
            fprintf(out, "%*s%s", (int)pad, "", s);
        else
            fprintf(out, "%s%*s", s, last ? 0 : (int)pad, "");
        fputs(last ? "\n" : "  ", out);
    }
}

static int print_text(const struct ts_table *t, const struct grid *g, FILE *out)
{
    size_t *w = calloc(g->cols, sizeof *w);
    if (!w)
        return -1;
    for (size_t r = 0; r < g->rows; r++)
        for (size_t k = 0; k < g->cols; k++)
            if (width(g->text[r * g->cols + k]) > w[k])
                w[k] = width(g->text[r * g->cols + k]);
    if (t->title)
        fprintf(out, "%s\n\n", t->title);
    int grouped = group_of(t, g, 1) != NULL;
    for (size_t r = grouped ? 1 : 0; r < g->rows; r++) {
        if (new_group(t, g, r)) {
            fprintf(out, "%s%s\n", r > 1 ? "\n" : "", group_of(t, g, r));
            text_line(g, 0, w, "  ", out);
        }
        text_line(g, r, w, grouped ? "  " : "", out);
    }
    free(w);
    return 0;
}

/* Text inside **...**: what could end the emphasis or start code is escaped, and '_' only where
 * it could: between two letters or digits (OMP_PLACES) it is plain text in CommonMark, and a
 * "\_" there reads wrong in a job log (gather.sbatch prints this table). */
static void md_inline(const char *text, FILE *out)
{
    for (const char *s = text; *s; s++) {
        const int inside_word = *s == '_' && s > text && isalnum((unsigned char)s[-1]) && isalnum((unsigned char)s[1]);
        if (strchr("*`\\", *s) || (*s == '_' && !inside_word))
            fputc('\\', out);
        fputc(*s, out);
    }
}

static void md_cell(const char *s, FILE *out)
{
    fputs("| ", out);
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc(' ', out);
}

static void md_header(const struct grid *g, FILE *out)
{
    for (size_t k = 0; k < g->cols; k++)
        md_cell(g->text[k], out);
    fputs("|\n", out);
    for (size_t k = 0; k < g->cols; k++)
        fputs(g->right[g->cols + k] ? "| ---: " : "| --- ", out);
    fputs("|\n", out);
}

static void print_markdown(const struct ts_table *t, const struct grid *g, FILE *out)
{
    if (t->title)
        fprintf(out, "%s\n\n", t->title);
    int grouped = group_of(t, g, 1) != NULL;
    if (!grouped)
        md_header(g, out);
    for (size_t r = 1; r < g->rows; r++) {
        if (new_group(t, g, r)) {
            fprintf(out, "%s**", r > 1 ? "\n" : "");
            md_inline(group_of(t, g, r), out);
            fputs("**\n\n", out);
            md_header(g, out);
        }
        for (size_t k = 0; k < g->cols; k++)
            md_cell(g->text[r * g->cols + k], out);
        fputs("|\n", out);
    }
}

static void csv_text(const char *s, FILE *out)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* Every column, the group too, one line per row: what a script reads. */
static void print_csv(const struct ts_table *t, FILE *out)
{
    const char *sep = "";
    for (size_t c = 0; c < t->n_cols; c++) {
        if (t->cols[c].show == TS_SHOW_PEOPLE)
            continue;
        fprintf(out, "%s%s", sep, t->cols[c].key);
        sep = ",";
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->n_rows; r++) {
        sep = "";
        for (size_t c = 0; c < t->n_cols; c++) {
            const struct ts_cell *cell = cell_at(t, r, c);
            if (t->cols[c].show == TS_SHOW_PEOPLE)
                continue;
            fputs(sep, out);
            sep = ",";
            if (t->cols[c].type == TS_COL_TEXT)
                csv_text(cell->text ? cell->text : "", out);
            else if (!isnan(cell->num))
                fprintf(out, t->cols[c].type == TS_COL_INT ? "%.0f" : "%.17g", cell->num);
        }
        fputc('\n', out);
    }
}

int ts_table_print(const struct ts_table *t, enum ts_table_format format, FILE *out)
{
    if (format == TS_TABLE_JSON)
        return ts_table_print_json(t, out);
    if (format == TS_TABLE_CSV) {
        print_csv(t, out);
        return fflush(out) == 0 && !ferror(out) ? 0 : -1;
    }
    struct grid g = { 0 };
    int st = grid_build(t, &g);
    if (st == 0 && format == TS_TABLE_MARKDOWN)
        print_markdown(t, &g, out);
    else if (st == 0)
        st = print_text(t, &g, out);
    grid_free(&g);
    return st == 0 && fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
