#include "ts_section.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int identifier(const char *s)
{
    if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

void ts_section_init(struct ts_survey_section *s, const char *name, const char *title)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->title, sizeof s->title, "%s", title);
    s->seconds = NAN;
    s->placed_fraction = NAN;
    s->disturbed = -1;
}

static int declare(struct ts_survey_section *s, const char *name, const char *unit, int is_text, struct ts_error *err)
{
    if (s->n_rows > 0 || s->n_cols >= TS_SECTION_MAX_COLUMNS || !identifier(name)
        || strlen(name) >= sizeof s->cols[0].name || ts_section_column(s, name) >= 0) {
        ts_fail(err, TS_INTERNAL_ERROR, "survey section %s: column '%s' cannot be declared", s->name, name);
        return -1;
    }
    struct ts_section_column *c = &s->cols[s->n_cols];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->unit, sizeof c->unit, "%s", unit ? unit : "");
    c->is_text = is_text;
    return s->n_cols++;
}

int ts_section_num(struct ts_survey_section *s, const char *name, const char *unit, struct ts_error *err)
{
    return declare(s, name, unit, 0, err);
}

int ts_section_text(struct ts_survey_section *s, const char *name, struct ts_error *err)
{
    return declare(s, name, "", 1, err);
}

int ts_section_rows(struct ts_survey_section *s, int n_rows, struct ts_error *err)
{
    if (s->n_rows > 0 || n_rows < 0 || n_rows > TS_SECTION_MAX_ROWS)
        return ts_fail(err, TS_INTERNAL_ERROR, "survey section %s: %d rows cannot be allocated", s->name, n_rows);
    const size_t n = (size_t)(n_rows > 0 ? n_rows : 1);
    for (int i = 0; i < s->n_cols; i++) {
        struct ts_section_column *c = &s->cols[i];
        if (c->is_text)
            c->text = calloc(n, sizeof *c->text);
        else if ((c->num = malloc(n * sizeof *c->num)))
            for (size_t r = 0; r < n; r++)
                c->num[r] = NAN;
        if (!c->text && !c->num) {
            for (int j = 0; j < i; j++) {
                free(s->cols[j].num);
                free(s->cols[j].text);
                s->cols[j].num = NULL;
                s->cols[j].text = NULL;
            }
            return ts_fail_errno(err, TS_RESOURCE_ERROR, ENOMEM, "survey section %s: %d rows", s->name, n_rows);
        }
    }
    s->n_rows = n_rows;
    return TS_OK;
}

void ts_section_set(struct ts_survey_section *s, int col, int row, double v)
{
    if (col >= 0 && col < s->n_cols && row >= 0 && row < s->n_rows && !s->cols[col].is_text)
        s->cols[col].num[row] = v;
}

void ts_section_set_text(struct ts_survey_section *s, int col, int row, const char *text)
{
    if (col >= 0 && col < s->n_cols && row >= 0 && row < s->n_rows && s->cols[col].is_text)
        snprintf(s->cols[col].text[row], TS_SECTION_TEXT, "%s", text);
}

int ts_section_column(const struct ts_survey_section *s, const char *name)
{
    for (int i = 0; i < s->n_cols; i++)
        if (strcmp(s->cols[i].name, name) == 0)
            return i;
    return -1;
}

struct ts_section_plot *ts_section_add_plot(struct ts_survey_section *s, int kind, const char *title, const char *x,
                                            const char *y)
{
    if (s->n_plots >= TS_SECTION_MAX_PLOTS)
        return NULL;
    struct ts_section_plot *p = &s->plots[s->n_plots++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    snprintf(p->title, sizeof p->title, "%s", title);
    snprintf(p->x, sizeof p->x, "%s", x);
    snprintf(p->y, sizeof p->y, "%s", y);
    return p;
}

void ts_section_set_fact(struct ts_survey_section *s, const char *key, double value, const char *unit)
{
    struct ts_section_fact *f = NULL;
    for (int i = 0; i < s->n_facts && !f; i++)
        if (strcmp(s->facts[i].key, key) == 0)
            f = &s->facts[i];
    if (!f) {
        if (s->n_facts >= TS_SECTION_MAX_FACTS)
            return;
        f = &s->facts[s->n_facts++];
        snprintf(f->key, sizeof f->key, "%s", key);
    }
    f->value = value;
    snprintf(f->unit, sizeof f->unit, "%s", unit ? unit : "");
}

double ts_section_fact(const struct ts_survey_section *s, const char *key)
{
    for (int i = 0; i < s->n_facts; i++)
        if (strcmp(s->facts[i].key, key) == 0)
            return s->facts[i].value;
    return NAN;
}

/* The column named by a plot's field: "" allowed only when optional. */
static int names_column(const struct ts_survey_section *s, const char *name, int optional)
{
    return name[0] ? ts_section_column(s, name) >= 0 : optional;
}

/* boundaries: "" or existing columns, comma separated, none empty. */
static int boundary_columns(const struct ts_survey_section *s, const char *list)
{
    char name[sizeof s->cols[0].name];
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof name)
            return 0;
        memcpy(name, p, n);
        name[n] = '\0';
        if (ts_section_column(s, name) < 0)
            return 0;
        p += n;
        if (*p == ',' && !*++p)
            return 0; /* a trailing comma */
    }
    return 1;
}

static const char *plot_problem(const struct ts_survey_section *s, const struct ts_section_plot *p)
{
    if (p->kind < TS_SECTION_LINES || p->kind > TS_SECTION_HEAT)
        return "is of no known kind";
    if (strnlen(p->title, sizeof p->title) >= sizeof p->title || strnlen(p->x, sizeof p->x) >= sizeof p->x
        || strnlen(p->y, sizeof p->y) >= sizeof p->y || strnlen(p->series, sizeof p->series) >= sizeof p->series
        || strnlen(p->value, sizeof p->value) >= sizeof p->value
        || strnlen(p->boundaries, sizeof p->boundaries) >= sizeof p->boundaries)
        return "has a text not terminated";
    if (p->log_x != 0 && p->log_x != 1)
        return "has log_x neither 0 nor 1";
    if (!names_column(s, p->x, 0) || !names_column(s, p->y, 0))
        return "names an x or y column the section does not have";
    if (p->kind != TS_SECTION_HEAT && !names_column(s, p->series, 1))
        return "names a series column the section does not have";
    if (p->kind == TS_SECTION_HEAT && (!names_column(s, p->value, 0) || !boundary_columns(s, p->boundaries)))
        return "names a value or boundary column the section does not have";
    return NULL;
}

static int fail_why(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_why(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

int ts_section_check(const struct ts_survey_section *s, char *why, size_t size)
{
    if (strnlen(s->name, sizeof s->name) >= sizeof s->name || !identifier(s->name))
        return fail_why(why, size, "its name is not an identifier");
    if (s->n_rows < 0 || s->n_rows > TS_SECTION_MAX_ROWS || s->n_cols < 0 || s->n_cols > TS_SECTION_MAX_COLUMNS
        || s->n_plots < 0 || s->n_plots > TS_SECTION_MAX_PLOTS || s->n_facts < 0 || s->n_facts > TS_SECTION_MAX_FACTS)
        return fail_why(why, size, "a count (rows, columns, plots, facts) out of range");
    if (s->misplaced != 0 && s->misplaced != 1)
        return fail_why(why, size, "misplaced is neither 0 nor 1");
    if (s->disturbed < -1 || s->disturbed > 1)
        return fail_why(why, size, "disturbed is not -1, 0 or 1");
    if (!isnan(s->placed_fraction) && !(s->placed_fraction >= 0 && s->placed_fraction <= 1))
        return fail_why(why, size, "placed_fraction %g is not a fraction", s->placed_fraction);
    if (!isnan(s->seconds) && !(s->seconds >= 0 && s->seconds <= 1e9))
        return fail_why(why, size, "seconds %g out of range", s->seconds);
    for (int i = 0; i < s->n_cols; i++) {
        const struct ts_section_column *c = &s->cols[i];
        if (strnlen(c->name, sizeof c->name) >= sizeof c->name || !identifier(c->name)
            || ts_section_column(s, c->name) != i)
            return fail_why(why, size, "column %d's name is not an identifier, or taken twice", i);
        if ((c->is_text != 0 && c->is_text != 1) || (s->n_rows > 0 && !(c->is_text ? (void *)c->text : c->num)))
            return fail_why(why, size, "column %s has no values", c->name);
        if (strnlen(c->unit, sizeof c->unit) >= sizeof c->unit)
            return fail_why(why, size, "column %s's unit is not terminated", c->name);
    }
    for (int i = 0; i < s->n_plots; i++) {
        const char *problem = plot_problem(s, &s->plots[i]);
        if (problem)
            return fail_why(why, size, "plot %d %s", i, problem);
    }
    for (int i = 0; i < s->n_facts; i++) {
        const struct ts_section_fact *f = &s->facts[i];
        if (strnlen(f->key, sizeof f->key) >= sizeof f->key || !identifier(f->key))
            return fail_why(why, size, "fact %d's key is not an identifier", i);
        for (int j = 0; j < i; j++)
            if (strcmp(s->facts[j].key, f->key) == 0)
                return fail_why(why, size, "fact %s given twice", f->key);
    }
    return 0;
}

struct ts_survey_section *ts_survey_section_of(const struct ts_survey_rec *s, const char *name)
{
    for (int i = 0; s->sections && i < s->n_sections; i++)
        if (strcmp(s->sections[i].name, name) == 0)
            return &s->sections[i];
    return NULL;
}

int64_t ts_survey_inferred_llc(const struct ts_survey_rec *s)
{
    const struct ts_survey_section *sweep = s ? ts_survey_section_of(s, "sweep") : NULL;
    if (!sweep || ts_section_fact(sweep, "llc_sure") != 1.0)
        return 0;
    const double llc = ts_section_fact(sweep, "llc_bytes");
    return isfinite(llc) && llc > 0 && llc < 0x1p62 ? (int64_t)llc : 0; /* a file's fact: bounded */
}

void ts_section_free(struct ts_survey_section *s)
{
    for (int i = 0; i < s->n_cols && i < TS_SECTION_MAX_COLUMNS; i++) {
        free(s->cols[i].num);
        free(s->cols[i].text);
    }
    memset(s, 0, sizeof *s);
}
