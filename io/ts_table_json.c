/* The JSON form of a table: {"<name>": [ {"<key>": value, ...}, ... ]}, one object per row,
 * keys in column order. jansson prints reals with 17 significant digits, so every double
 * reads back exactly; NaN and infinities, which JSON cannot hold, become null. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts_table.h"
#include "ts_text_safe.h"

static json_t *value(const struct ts_column *c, const struct ts_cell *cell)
{
    if (c->type == TS_COL_TEXT) {
        json_t *s = json_string(cell->text ? cell->text : "");
        if (s || !cell->text)
            return s;
        /* Not UTF-8: only text the commands composed could be, and '?' beats no report. */
        char *copy = strdup(cell->text);
        if (copy) {
            ts_sanitize_text(copy);
            s = json_string(copy);
        }
        free(copy);
        return s;
    }
    if (!isfinite(cell->num))
        return json_null();
    return c->type == TS_COL_INT ? json_integer((json_int_t)cell->num) : json_real(cell->num);
}

static json_t *row_json(const struct ts_table *t, size_t r)
{
    json_t *o = json_object();
    for (size_t c = 0; o && c < t->n_cols; c++) {
        if (t->cols[c].show == TS_SHOW_PEOPLE)
            continue;
        if (json_object_set_new(o, t->cols[c].key, value(&t->cols[c], &t->cells[r * t->n_cols + c])) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

int ts_table_print_json(const struct ts_table *t, FILE *out)
{
    json_t *rows = json_array();
    for (size_t r = 0; rows && r < t->n_rows; r++) {
        if (json_array_append_new(rows, row_json(t, r)) != 0) {
            json_decref(rows);
            rows = NULL;
        }
    }
    json_t *root = rows ? json_pack("{s:o}", t->name, rows) : NULL;
    int st = root && json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? 0 : -1;
    json_decref(root);
    if (st == 0)
        fputc('\n', out);
    return st == 0 && fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
