/* Tables of runs printed four ways: aligned text and markdown for people, CSV and JSON for
 * programs. The commands fill cells; the renderers own layout, number formats and escaping,
 * so every command prints the same way. */
#ifndef TOUCHSTONE_IO_TS_TABLE_H
#define TOUCHSTONE_IO_TS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ts_table_format { TS_TABLE_TEXT, TS_TABLE_CSV, TS_TABLE_JSON, TS_TABLE_MARKDOWN };

enum ts_col_type {
    TS_COL_TEXT,
    TS_COL_NUM, /* a double; NaN is "does not apply": "-" in text, empty in CSV, null in JSON */
    TS_COL_INT  /* a whole number, stored as a double (exact below 2^53) */
};

struct ts_column {
    const char *key;   /* CSV header and JSON key, units in the name: "time_median_s" */
    const char *title; /* text and markdown header, units in parentheses */
    enum ts_col_type type;
    const char *fmt; /* text and markdown format of numbers ("%.4g"); CSV and JSON print
                        * every digit (%.17g), so a double reads back exactly */
    enum ts_col_show {
        TS_SHOW_ALL,
        TS_SHOW_MACHINE, /* CSV and JSON only: people see it another way (a heading, a range) */
        TS_SHOW_PEOPLE   /* text and markdown only: a combination of machine columns */
    } show;
};

#define TS_TABLE_NO_GROUP SIZE_MAX
#define TS_TABLE_MAX_COLS 64

struct ts_table {
    const char *name;  /* JSON: the key holding the array of rows */
    const char *title; /* text and markdown: a line above the table, or NULL */
    const struct ts_column *cols;
    size_t n_cols;
    int transpose;    /* text and markdown: one column per row (side by side) */
    size_t group_col; /* text and markdown: this column as a heading over each run of
                                    * rows with the same value; TS_TABLE_NO_GROUP for none */
    size_t n_rows, cap;
    struct ts_cell {
        double num;
        char *text;
    } * cells; /* n_rows x n_cols, row-major */
};

/* Appends an empty row (text "", numbers NaN); returns its index, or -1 out of memory. */
long ts_table_add_row(struct ts_table *t);
/* The column with this key, or TS_TABLE_NO_COL. */
size_t ts_table_col(const struct ts_table *t, const char *key);
#define TS_TABLE_NO_COL SIZE_MAX

/* Setters ignore a column the table does not have, so shared code can fill any table. */
void ts_table_num(struct ts_table *t, size_t row, size_t col, double v);
/* Copies s; returns -1 out of memory. */
int ts_table_text(struct ts_table *t, size_t row, size_t col, const char *s);

/* Parses "text", "csv", "json", "markdown"; -1 for anything else. */
int ts_table_format_parse(const char *name, enum ts_table_format *out);

/* Prints the table; -1 when memory ran out or the stream failed. */
int ts_table_print(const struct ts_table *t, enum ts_table_format format, FILE *out);
int ts_table_print_json(const struct ts_table *t, FILE *out);

void ts_table_free(struct ts_table *t);

#endif
