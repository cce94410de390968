#include "ts_section.h"

#include <errno.h>
#include <math.h>
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

void ts_section_free(struct ts_survey_section *s)
{
    for (int i = 0; i < s->n_cols && i < TS_SECTION_MAX_COLUMNS; i++) {
        free(s->cols[i].num);
        free(s->cols[i].text);
    }
    memset(s, 0, sizeof *s);
}
