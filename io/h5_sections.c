/* /sections of survey.h5 (format 3): one group per section in the survey's order (/sections@order),
 * its attributes, /sections/NAME/columns/COLUMN (float64 with its unit, or fixed-length strings),
 * /sections/NAME/plots and /sections/NAME/facts. Read back as untrusted input: every count
 * bounded, every name an identifier, every column n_rows long, every plot naming columns that
 * exist, before the caller sees it. */
#include "h5_sections.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_section.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define PLOT struct ts_section_plot
#define FACT struct ts_section_fact
#define NAME_SIZE sizeof(((struct ts_survey_section *)0)->name)
/* A list of names joined by commas: the sections' order, a section's columns. */
#define LIST_SIZE (TS_SURVEY_MAX_SECTIONS * NAME_SIZE + 1)

const char *h5_sections_problem(const struct ts_survey_rec *s, char *why, size_t size)
{
    if (s->n_sections < 0 || s->n_sections > TS_SURVEY_MAX_SECTIONS || (s->n_sections > 0 && !s->sections))
        return "n_sections and sections disagree";
    for (int i = 0; i < s->n_sections; i++) {
        const struct ts_survey_section *x = &s->sections[i];
        char detail[200];
        if (ts_section_check(x, detail, sizeof detail)) {
            snprintf(why, size, "section %d (%.31s): %s", i, x->name, detail);
            return why;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(s->sections[j].name, x->name) == 0) {
                snprintf(why, size, "section %s given twice", x->name);
                return why;
            }
    }
    return NULL;
}

/* --- Writing ---------------------------------------------------------------------------------- */

/* The type of a text cell: TS_SECTION_TEXT bytes, NUL-terminated (ASCII-labelled as the tables'
 * strings, so that every reader's default type matches; the bytes are UTF-8). */
static hid_t text_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, TS_SECTION_TEXT) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)) {
        H5Tclose(t);
        t = -1;
    }
    return t;
}

static int write_column(struct h5w *w, hid_t g, const struct ts_survey_section *s, const struct ts_section_column *c)
{
    if (!c->is_text)
        return h5w_vector(w, g, c->name, H5T_NATIVE_DOUBLE, s->n_rows, c->num, c->unit);
    hid_t t = text_type();
    if (t < 0)
        return h5w_fail(w, g, "writing dataset", c->name);
    int st = h5w_vector(w, g, c->name, t, s->n_rows, c->text, "");
    H5Tclose(t);
    return st;
}

static void join_columns(const struct ts_survey_section *s, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < s->n_cols; i++) {
        const size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", i ? "," : "", s->cols[i].name);
    }
}

static int write_section(struct h5w *w, hid_t parent, const struct ts_survey_section *s)
{
    const struct h5w_member plot_members[] = {
        H5W_NUM(PLOT, kind, H5T_NATIVE_INT32),
        H5W_STR(PLOT, title),
        H5W_STR(PLOT, x),
        H5W_STR(PLOT, y),
        H5W_STR(PLOT, series),
        H5W_STR(PLOT, value),
        H5W_NUM(PLOT, log_x, H5T_NATIVE_INT32),
        H5W_STR(PLOT, boundaries),
    };
    const struct h5w_member fact_members[] = {
        H5W_STR(FACT, key),
        H5W_NUM(FACT, value, H5T_NATIVE_DOUBLE),
        H5W_STR(FACT, unit),
    };
    char columns[TS_SECTION_MAX_COLUMNS * NAME_SIZE + 1];
    join_columns(s, columns, sizeof columns);
    const struct h5w_str_attr strs[] = {
        { "title", s->title },     { "command", s->command }, { "conditions", s->conditions },
        { "summary", s->summary }, { "note", s->note },       { "columns", columns },
    };
    const struct h5w_num_attr nums[] = {
        { "seconds", H5T_NATIVE_DOUBLE, &s->seconds },    { "placed_fraction", H5T_NATIVE_DOUBLE, &s->placed_fraction },
        { "misplaced", H5T_NATIVE_INT32, &s->misplaced }, { "disturbed", H5T_NATIVE_INT32, &s->disturbed },
        { "n_rows", H5T_NATIVE_INT32, &s->n_rows },       { "n_plots", H5T_NATIVE_INT32, &s->n_plots },
        { "n_facts", H5T_NATIVE_INT32, &s->n_facts },
    };
    hid_t g = h5w_group(w, parent, s->name);
    if (g < 0)
        return -1;
    int st = h5w_attr_strs(w, g, strs, COUNT(strs)) || h5w_attr_nums(w, g, nums, COUNT(nums));
    hid_t cg = st ? -1 : h5w_group(w, g, "columns");
    st = st || cg < 0;
    for (int i = 0; !st && i < s->n_cols; i++)
        st = write_column(w, cg, s, &s->cols[i]);
    st = st || h5w_table(w, g, "plots", sizeof(PLOT), plot_members, COUNT(plot_members), s->n_plots, s->plots, "1")
         || h5w_table(w, g, "facts", sizeof(FACT), fact_members, COUNT(fact_members), s->n_facts, s->facts,
                      "each fact's own (unit)");
    if (cg >= 0)
        H5Gclose(cg);
    H5Gclose(g);
    return st;
}

int h5_sections_write(struct h5w *w, hid_t file, const struct ts_survey_rec *s)
{
    char order[LIST_SIZE] = "";
    for (int i = 0; i < s->n_sections; i++) {
        const size_t used = strlen(order);
        snprintf(order + used, sizeof order - used, "%s%s", i ? "," : "", s->sections[i].name);
    }
    hid_t g = h5w_group(w, file, "sections");
    if (g < 0)
        return -1;
    int st = h5w_attr_num(w, g, "n_sections", H5T_NATIVE_INT32, &s->n_sections) || h5w_attr_str(w, g, "order", order);
    for (int i = 0; !st && i < s->n_sections; i++)
        st = write_section(w, g, &s->sections[i]);
    H5Gclose(g);
    return st;
}

/* --- Reading ---------------------------------------------------------------------------------- */

#define FIELD(T, f) offsetof(T, f), sizeof(((T *)0)->f)
#define STRCOL(T, f)                                                                                                   \
    {                                                                                                                  \
#f, offsetof(T, f), 0, sizeof(((T *)0)->f), 0, 0, 0                                                            \
    }

static int identifier(const char *s)
{
    return s[0] != '\0' && !(s[0] >= '0' && s[0] <= '9')
           && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* Splits list ("a,b,c") into exactly n identifiers of fewer than NAME_SIZE bytes, each once. */
static int split_names(struct h5r *r, const char *where, const char *list, int n, char (*names)[NAME_SIZE])
{
    int k = 0;
    for (const char *p = list; n > 0; k++) {
        const size_t len = strcspn(p, ",");
        if (k >= n || len == 0 || len >= NAME_SIZE)
            return h5r_fail(r, where, "'%s' is not a list of %d names", list, n);
        memcpy(names[k], p, len);
        names[k][len] = '\0';
        if (!identifier(names[k]))
            return h5r_fail(r, where, "'%s' is not a name (lower-case letters, digits, '_')", names[k]);
        for (int j = 0; j < k; j++)
            if (strcmp(names[j], names[k]) == 0)
                return h5r_fail(r, where, "'%s' named twice", names[k]);
        p += len;
        if (*p == '\0')
            break;
        p++;
    }
    if (n > 0 ? k + 1 != n : list[0] != '\0')
        return h5r_fail(r, where, "'%s' is not a list of %d names", list, n);
    return TS_OK;
}

/* Exactly n links in the group at path: nothing a reader would not look at. */
static int links_are(struct h5r *r, const char *path, int n)
{
    H5G_info_t info;
    if (H5Gget_info_by_name(r->file, path, &info, H5P_DEFAULT) < 0)
        return h5r_fail_hdf5(r, path, "cannot list");
    if (info.nlinks != (hsize_t)n)
        return h5r_fail(r, path, "%llu members, expected %d", (unsigned long long)info.nlinks, n);
    return TS_OK;
}

/* The class of the dataset at path: H5T_FLOAT, H5T_STRING, or another (refused by the caller). */
static int dataset_class(struct h5r *r, const char *path, H5T_class_t *cls)
{
    int has = h5r_has(r, path, H5I_DATASET);
    if (has <= 0)
        return has == 0 ? h5r_fail(r, path, "missing (expected a column of n_rows values)") : r->err->status;
    hid_t set = H5Dopen2(r->file, path, H5P_DEFAULT), type = set < 0 ? -1 : H5Dget_type(set);
    int st = set < 0 || type < 0 ? h5r_fail_hdf5(r, path, "cannot open") : TS_OK;
    *cls = type < 0 ? H5T_NO_CLASS : H5Tget_class(type);
    if (type >= 0)
        H5Tclose(type);
    if (set >= 0)
        H5Dclose(set);
    return st;
}

static int read_texts(struct h5r *r, const char *path, int n_rows, struct ts_section_column *c)
{
    char *text = NULL;
    size_t bytes = 0;
    hsize_t n = 0;
    if (h5r_read_lines(r, path, (hsize_t)n_rows, TS_SECTION_TEXT - 1, &text, &bytes, &n))
        return r->err->status;
    if (n != (hsize_t)n_rows) {
        free(text);
        return h5r_fail(r, path, "%llu texts, expected n_rows = %d", (unsigned long long)n, n_rows);
    }
    c->text = calloc((size_t)(n_rows > 0 ? n_rows : 1), sizeof *c->text);
    if (!c->text) {
        free(text);
        return h5r_out_of_memory(r, path, "%d texts", n_rows);
    }
    /* The reader made every cell safe: control characters, '\n' among them, became '?'. */
    const char *p = text;
    for (int i = 0; p && i < n_rows; i++) {
        const size_t len = strcspn(p, "\n");
        snprintf(c->text[i], TS_SECTION_TEXT, "%.*s", (int)len, p);
        p += len + (p[len] == '\n');
    }
    free(text);
    return TS_OK;
}

/* Declares the column (s has no rows yet: ts_section_num refuses them), then reads its n_rows values. */
static int read_column(struct h5r *r, const char *dir, const char *name, int n_rows, struct ts_survey_section *s)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    H5T_class_t cls;
    if (dataset_class(r, path, &cls))
        return r->err->status;
    if (cls != H5T_FLOAT && cls != H5T_STRING)
        return h5r_fail(r, path, "neither numbers (float64) nor texts (strings)");
    struct ts_error ignored = { 0 };
    const int k = cls == H5T_STRING ? ts_section_text(s, name, &ignored) : ts_section_num(s, name, "", &ignored);
    if (k < 0)
        return h5r_fail(r, path, "not a column a section can hold");
    struct ts_section_column *c = &s->cols[k];
    if (cls == H5T_STRING)
        return read_texts(r, path, n_rows, c);
    const struct h5r_doubles want = { .path = path,
                                      .rank = 1,
                                      .dims = { (hsize_t)n_rows },
                                      .why = "n_rows",
                                      .min = -DBL_MAX,
                                      .max = DBL_MAX,
                                      .nan_ok = 1 };
    if (h5r_read_doubles_alloc(r, &want, &c->num))
        return r->err->status;
    return h5r_str_attr(r, path, "units", c->unit, sizeof c->unit);
}

static int read_attributes(struct h5r *r, const char *g, struct ts_survey_section *s, int *n_rows)
{
    static const struct {
        const char *name;
        size_t offset, size;
    } strs[] = {
        { "title", FIELD(struct ts_survey_section, title) },
        { "command", FIELD(struct ts_survey_section, command) },
        { "conditions", FIELD(struct ts_survey_section, conditions) },
        { "summary", FIELD(struct ts_survey_section, summary) },
        { "note", FIELD(struct ts_survey_section, note) },
    };
    for (size_t i = 0; i < COUNT(strs); i++)
        if (h5r_str_attr(r, g, strs[i].name, (char *)s + strs[i].offset, strs[i].size))
            return r->err->status;
    int64_t v[5];
    static const struct {
        const char *name;
        int64_t min, max;
    } ints[] = {
        { "misplaced", 0, 1 },
        { "disturbed", -1, 1 },
        { "n_rows", 0, TS_SECTION_MAX_ROWS },
        { "n_plots", 0, TS_SECTION_MAX_PLOTS },
        { "n_facts", 0, TS_SECTION_MAX_FACTS },
    };
    for (size_t i = 0; i < COUNT(ints); i++)
        if (h5r_int_attr(r, g, ints[i].name, ints[i].min, ints[i].max, &v[i]))
            return r->err->status;
    s->misplaced = (int32_t)v[0];
    s->disturbed = (int32_t)v[1];
    *n_rows = (int)v[2];
    s->n_plots = (int32_t)v[3];
    s->n_facts = (int32_t)v[4];
    if (h5r_double_attr(r, g, "seconds", 0, 1e9, 1, &s->seconds)
        || h5r_double_attr(r, g, "placed_fraction", 0, 1, 1, &s->placed_fraction))
        return r->err->status;
    return TS_OK;
}

static int read_tables(struct h5r *r, const char *g, struct ts_survey_section *s)
{
    const struct h5r_col plot_cols[] = {
        { "kind", offsetof(PLOT, kind), H5T_NATIVE_INT32, 0, TS_SECTION_LINES, TS_SECTION_HEAT, 0 },
        STRCOL(PLOT, title),
        STRCOL(PLOT, x),
        STRCOL(PLOT, y),
        STRCOL(PLOT, series),
        STRCOL(PLOT, value),
        { "log_x", offsetof(PLOT, log_x), H5T_NATIVE_INT32, 0, 0, 1, 0 },
        STRCOL(PLOT, boundaries),
    };
    const struct h5r_col fact_cols[] = {
        STRCOL(FACT, key),
        { "value", offsetof(FACT, value), H5T_NATIVE_DOUBLE, 0, -DBL_MAX, DBL_MAX, 1 },
        STRCOL(FACT, unit),
    };
    char path[256];
    snprintf(path, sizeof path, "%s/plots", g);
    if (h5r_read_table(r, path, (hsize_t)s->n_plots, "n_plots", sizeof(PLOT), plot_cols, COUNT(plot_cols), 0, s->plots))
        return r->err->status;
    snprintf(path, sizeof path, "%s/facts", g);
    return h5r_read_table(r, path, (hsize_t)s->n_facts, "n_facts", sizeof(FACT), fact_cols, COUNT(fact_cols), 0,
                          s->facts);
}

static int read_section(struct h5r *r, const char *name, struct ts_survey_section *s)
{
    char g[128], dir[160], list[TS_SECTION_MAX_COLUMNS * NAME_SIZE + 1];
    char names[TS_SECTION_MAX_COLUMNS][NAME_SIZE];
    snprintf(g, sizeof g, "/sections/%s", name);
    snprintf(dir, sizeof dir, "%s/columns", g);
    ts_section_init(s, name, "");
    int n_rows = 0;
    if (h5r_group(r, g) || read_attributes(r, g, s, &n_rows) || read_tables(r, g, s))
        return r->err->status;
    int has = h5r_has_attr(r, g, "columns");
    if (has <= 0)
        return has == 0 ? h5r_fail(r, g, "no @columns (the columns' names in order)") : r->err->status;
    if (h5r_str_attr(r, g, "columns", list, sizeof list) || h5r_group(r, dir))
        return r->err->status;
    int n_cols = list[0] ? 1 : 0;
    for (const char *p = list; *p; p++)
        n_cols += *p == ',';
    if (n_cols > TS_SECTION_MAX_COLUMNS)
        return h5r_fail(r, g, "%d columns, at most %d", n_cols, TS_SECTION_MAX_COLUMNS);
    char where[160];
    snprintf(where, sizeof where, "%s@columns", g);
    if (split_names(r, where, list, n_cols, names) || links_are(r, dir, n_cols))
        return r->err->status;
    for (int i = 0; i < n_cols; i++)
        if (read_column(r, dir, names[i], n_rows, s))
            return r->err->status;
    s->n_rows = n_rows;
    char why[200];
    if (ts_section_check(s, why, sizeof why))
        return h5r_fail(r, g, "%s", why);
    return links_are(r, g, 3); /* columns, plots, facts */
}

int h5_sections_read(struct h5r *r, struct ts_survey_rec *s)
{
    char order[LIST_SIZE], names[TS_SURVEY_MAX_SECTIONS][NAME_SIZE];
    int64_t n = 0;
    if (h5r_group(r, "/sections") || h5r_int_attr(r, "/sections", "n_sections", 0, TS_SURVEY_MAX_SECTIONS, &n)
        || h5r_str_attr(r, "/sections", "order", order, sizeof order)
        || split_names(r, "/sections@order", order, (int)n, names) || links_are(r, "/sections", (int)n))
        return r->err->status;
    if (n == 0)
        return TS_OK;
    s->sections = calloc((size_t)n, sizeof *s->sections);
    if (!s->sections)
        return h5r_out_of_memory(r, "/sections", "%d sections", (int)n);
    s->n_sections = (int32_t)n;
    for (int i = 0; i < s->n_sections; i++)
        if (read_section(r, names[i], &s->sections[i]))
            return r->err->status;
    return TS_OK;
}
