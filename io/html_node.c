/* The node and where the threads ran on it: the topology drawn as packages holding NUMA nodes
 * (with their memory) holding cores (with their PUs), the caches on the box that shares them; the
 * same picture with each run's threads on their cores, and a bar of each thread's pages by node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_doc.h"
#include "ts_units.h"

#define CORE_W 66
#define CORE_H 40
#define GAP 6
#define COLS 8
#define PAD 8
#define HEAD 22
#define WIDTH (6 * PAD + COLS * (CORE_W + GAP) - GAP)
#define MAX_PICTURES 8
#define MAX_THREAD_ROWS 256
/* What is drawn at most: larger machines (or files claiming them) are described in words, so
 * that drawing stays fast whatever a file holds. */
#define MAX_DRAWN_CORES 2048
#define MAX_DRAWN_GROUPS 64
#define MAX_DRAWN_THREADS 4096

/* Cores of package p on node (numa) in the order of /topology/cores. */
static int cores_on(const struct ts_topology_rec *t, int32_t p, int32_t numa, int *idx)
{
    int n = 0;
    for (int32_t i = 0; i < t->n_cores_rec; i++)
        if (t->cores[i].package == p && t->cores[i].numa == numa)
            idx[n++] = i;
    return n;
}

static const struct ts_numa_rec *node_of(const struct ts_topology_rec *t, int32_t os)
{
    for (int32_t i = 0; i < t->n_numa; i++)
        if (t->numa[i].os_index == os)
            return &t->numa[i];
    return NULL;
}

/* The file counts each kind of cache in the machine, not which cores share one: a kind with as
 * many instances as packages is drawn on each package, as many as NUMA nodes with cores on each
 * node, as many as cores in the legend as each core's; any other count is listed as it is. */
enum cache_place { CACHE_PACKAGE, CACHE_NODE, CACHE_CORE, CACHE_ELSEWHERE };

static enum cache_place cache_place(const struct ts_cache_rec *c, int n_packages, int n_cpu_nodes, int n_cores)
{
    if (c->count == n_packages)
        return CACHE_PACKAGE;
    if (c->count == n_cpu_nodes)
        return CACHE_NODE;
    if (c->count == n_cores)
        return CACHE_CORE;
    return CACHE_ELSEWHERE;
}

/* "L3 32 MiB" */
static void cache_name(const struct ts_cache_rec *c, char *buf, size_t n)
{
    char size[32];
    ts_bytes_text(c->size_bytes, size, sizeof size);
    snprintf(buf, n, "L%d%s %s", (int)c->level,
             strcmp(c->type, "data") == 0          ? "d"
             : strcmp(c->type, "instruction") == 0 ? "i"
                                                   : "",
             size);
}

/* The caches at one place as a box at (x, y), right-aligned to x_end; nothing when none. */
static void draw_caches(struct hbuf *b, const struct ts_topology_rec *t, enum cache_place where, const int counts[3],
                        int x_end, int y)
{
    char text[160] = "";
    size_t len = 0;
    for (int32_t i = 0; i < t->n_caches && i < 16; i++) {
        if (cache_place(&t->caches[i], counts[0], counts[1], counts[2]) != where)
            continue;
        char name[48];
        cache_name(&t->caches[i], name, sizeof name);
        if (len + strlen(name) + 3 < sizeof text)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", len ? ", " : "", name);
    }
    if (!len)
        return;
    const int w = (int)len * 7 + 12;
    hb_fmt(
        b,
        "<g><title>cache shared by the cores inside</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"16\" rx=\"2\" "
        "fill=\"#e3eefb\" stroke=\"#6f8fb5\"/><text x=\"%d\" y=\"%d\" class=\"muted\">",
        x_end - w, y, w, x_end - w + 6, y + 12);
    hb_esc(b, text);
    hb_raw(b, "</text></g>");
}

static void draw_core(struct hbuf *b, const struct ts_core_rec *core, int x, int y, const struct ts_run_summary *s)
{
    int used = 0;
    char threads[128] = "";
    size_t len = 0;
    for (int32_t t = 0; s && s->threads && t < s->n_threads; t++)
        if (s->threads[t].core == core->index) {
            if (len + 8 < sizeof threads)
                len += (size_t)snprintf(threads + len, sizeof threads - len, "%st%d", used ? "," : "", (int)t);
            used++;
        }
    hb_fmt(b, "<g><title>core %d (hwloc logical %d), PUs ", (int)core->os_index, (int)core->index);
    hb_esc(b, core->cpus);
    if (s && used)
        hb_fmt(b, ": threads %s", threads);
    else if (s)
        hb_raw(b, ": no thread");
    hb_fmt(b, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" fill=\"%s\" stroke=\"#777\"/>", x, y,
           CORE_W, CORE_H,
           !s         ? "#eef3f8"
           : used > 1 ? "#f4a259"
           : used     ? "#ffd27f"
                      : "#f5f5f5");
    hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">core %d</text>", x + CORE_W / 2, y + 15,
           (int)core->os_index);
    hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"muted\">", x + CORE_W / 2, y + 31);
    if (s && used) {
        hb_fmt(b, "%.10s%s", threads, strlen(threads) > 10 ? "&#8230;" : "");
    } else {
        hb_raw(b, "PU ");
        hb_escn(b, core->cpus, 9);
    }
    hb_raw(b, "</text></g>");
}

/* One NUMA node's box at y with its cores; returns its height. */
static int draw_node(struct hbuf *b, const struct ts_topology_rec *t, int32_t numa, const int *idx, int n, int x, int y,
                     const struct ts_run_summary *s, const int counts[3])
{
    const int rows = n ? (n + COLS - 1) / COLS : 0;
    const int h = HEAD + rows * (CORE_H + GAP) + PAD;
    const int w = WIDTH - 4 * PAD;
    hb_fmt(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fbfbf3\" stroke=\"#8a8a5c\"/>", x, y, w, h);
    hb_fmt(b, "<text x=\"%d\" y=\"%d\">", x + 6, y + 15);
    const struct ts_numa_rec *node = numa >= 0 ? node_of(t, numa) : NULL;
    if (node) {
        char mem[32];
        ts_bytes_text(node->memory_bytes, mem, sizeof mem);
        hb_fmt(b, "NUMA node %d: %s of memory, CPUs ", (int)numa, mem);
        hb_escn(b, node->cpus, 40);
    } else {
        hb_raw(b, "cores of no known NUMA node");
    }
    hb_raw(b, "</text>");
    draw_caches(b, t, CACHE_NODE, counts, x + w - 4, y + 3);
    for (int k = 0; k < n; k++)
        draw_core(b, &t->cores[idx[k]], x + PAD + (k % COLS) * (CORE_W + GAP), y + HEAD + (k / COLS) * (CORE_H + GAP),
                  s);
    return h;
}

static int by_int(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The topology as inline SVG (s: with its threads on their cores, NULL: the machine alone). */
static void draw_topology(struct hbuf *b, const struct ts_topology_rec *t, const struct ts_run_summary *s,
                          const char *title)
{
    if (t->n_cores_rec > MAX_DRAWN_CORES || t->n_numa > MAX_DRAWN_GROUPS) {
        hb_fmt(b, "<p class=\"empty\">%d cores and %d NUMA nodes: more than this report draws.</p>\n",
               (int)t->n_cores_rec, (int)t->n_numa);
        return;
    }
    int *idx = malloc((size_t)t->n_cores_rec * sizeof *idx);
    int32_t *packages = malloc((size_t)t->n_cores_rec * sizeof *packages);
    int32_t *nodes = malloc(((size_t)t->n_numa + 1) * sizeof *nodes);
    if (!idx || !packages || !nodes) {
        free(idx);
        free(packages);
        free(nodes);
        b->failed = 1;
        return;
    }
    int n_packages = 0;
    for (int32_t i = 0; i < t->n_cores_rec; i++) {
        int seen = 0;
        for (int k = 0; k < n_packages && !seen; k++)
            seen = packages[k] == t->cores[i].package;
        if (!seen)
            packages[n_packages++] = t->cores[i].package;
    }
    qsort(packages, (size_t)n_packages, sizeof *packages, by_int);
    if (n_packages > MAX_DRAWN_GROUPS) {
        hb_fmt(b, "<p class=\"empty\">%d packages: more than this report draws.</p>\n", n_packages);
        free(idx);
        free(packages);
        free(nodes);
        return;
    }
    int n_cpu_nodes = 0;
    for (int32_t i = 0; i < t->n_numa; i++)
        for (int32_t k = 0; k < t->n_cores_rec; k++)
            if (t->cores[k].numa == t->numa[i].os_index) {
                n_cpu_nodes++;
                break;
            }
    const int counts[3] = { n_packages, n_cpu_nodes, (int)t->n_cores_rec };
    /* The height first: the SVG's viewBox needs it before its content. */
    struct hbuf body = { 0 };
    int y = 4;
    for (int p = 0; p < n_packages; p++) {
        const int top = y;
        y += HEAD;
        int n_nodes = 0;
        for (int32_t i = 0; i < t->n_numa; i++)
            nodes[n_nodes++] = t->numa[i].os_index;
        nodes[n_nodes++] = -1;
        struct hbuf inner = { 0 };
        for (int k = 0; k < n_nodes; k++) {
            const int n = cores_on(t, packages[p], nodes[k], idx);
            if (n > 0)
                y += draw_node(&inner, t, nodes[k], idx, n, PAD + PAD, y, s, counts) + GAP;
        }
        y += PAD - GAP;
        hb_fmt(&body, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\" fill=\"none\" stroke=\"#444\"/>",
               PAD, top, WIDTH - 2 * PAD, y - top);
        hb_fmt(&body, "<text x=\"%d\" y=\"%d\" class=\"ct\">package %d</text>", PAD + 6, top + 15, (int)packages[p]);
        draw_caches(&body, t, CACHE_PACKAGE, counts, WIDTH - 2 * PAD, top + 3);
        hb_raw(&body, inner.p ? inner.p : "");
        body.failed |= inner.failed;
        free(inner.p);
        y += GAP;
    }
    /* Nodes with memory and no core (KNL's MCDRAM, CXL memory). */
    for (int32_t i = 0; i < t->n_numa; i++) {
        int has_core = 0;
        for (int32_t k = 0; k < t->n_cores_rec && !has_core; k++)
            has_core = t->cores[k].numa == t->numa[i].os_index;
        if (has_core)
            continue;
        char mem[32];
        ts_bytes_text(t->numa[i].memory_bytes, mem, sizeof mem);
        hb_fmt(&body,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"24\" fill=\"#fbfbf3\" stroke=\"#8a8a5c\"/>"
               "<text x=\"%d\" y=\"%d\">NUMA node %d: %s of memory, no CPU</text>",
               PAD, y, WIDTH - 2 * PAD, PAD + 6, y + 16, (int)t->numa[i].os_index, mem);
        y += 24 + GAP;
    }
    /* The caches each core has, and those whose count fits no box (drawn on packages and nodes). */
    hb_fmt(&body, "<text x=\"%d\" y=\"%d\">caches: ", PAD, y + 14);
    int listed = 0;
    for (int32_t i = 0; i < t->n_caches; i++) {
        const enum cache_place where = cache_place(&t->caches[i], counts[0], counts[1], counts[2]);
        char name[48];
        cache_name(&t->caches[i], name, sizeof name);
        if (where == CACHE_CORE)
            hb_fmt(&body, "%s%s per core", listed++ ? ", " : "", name);
        else if (where == CACHE_ELSEWHERE)
            hb_fmt(&body, "%s%s x %d", listed++ ? ", " : "", name, (int)t->caches[i].count);
    }
    if (t->n_caches == 0)
        hb_raw(&body, "none recorded");
    else if (!listed)
        hb_raw(&body, "as drawn");
    hb_raw(&body, "</text>");
    y += 22;
    if (s)
        hb_fmt(&body,
               "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#ffd27f\" stroke=\"#777\"/>"
               "<text x=\"%d\" y=\"%d\">one thread</text>"
               "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#f4a259\" stroke=\"#777\"/>"
               "<text x=\"%d\" y=\"%d\">several threads (sharing a core)</text>"
               "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#f5f5f5\" stroke=\"#777\"/>"
               "<text x=\"%d\" y=\"%d\">idle</text>",
               PAD, y, PAD + 16, y + 11, PAD + 110, y, PAD + 126, y + 11, PAD + 360, y, PAD + 376, y + 11);
    y += s ? 20 : 0;
    hb_fmt(b, "<figure><svg class=\"topo\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\"><title>", WIDTH, y, WIDTH);
    hb_esc(b, title);
    hb_raw(b, "</title>");
    hb_raw(b, body.p ? body.p : "");
    b->failed |= body.failed;
    free(body.p);
    hb_raw(b, "</svg></figure>\n");
    free(idx);
    free(packages);
    free(nodes);
}

/* The run whose machine the section draws: the first one read that has a topology. */
static int first_with_topology(const struct html_ctx *c)
{
    for (int i = 0; i < c->n_runs; i++)
        if (html_has_run(c, i) && c->runs[i].topology.n_cores_rec > 0)
            return i;
    return -1;
}

void html_node(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"node\">\n<h2>The node</h2>\n");
    const int k = first_with_topology(c);
    if (k < 0) {
        hb_raw(b, "<p class=\"empty\">No run file here records its machine (<code>/topology</code>), so there is "
                  "no node to draw.</p>\n</section>\n");
        return;
    }
    const struct ts_run_summary *s = &c->runs[k];
    const struct ts_topology_rec *t = &s->topology;
    hb_raw(b, "<p><b>");
    hb_esc(b, s->host);
    hb_fmt(b, "</b>: %d package%s, %d NUMA node%s, %d cores, %d PUs, as ", (int)t->n_packages,
           t->n_packages == 1 ? "" : "s", (int)t->n_numa, t->n_numa == 1 ? "" : "s", (int)t->n_cores, (int)t->n_pus);
    html_run_link(b, c, k);
    hb_raw(b, " saw it.</p>\n");
    for (int i = 0; i < c->n_runs; i++)
        if (html_has_run(c, i) && strcmp(c->runs[i].host, s->host) != 0) {
            hb_raw(b, "<p class=\"warn\">Not every run ran on this host: ");
            html_run_link(b, c, i);
            hb_raw(b, " ran on ");
            hb_esc(b, c->runs[i].host);
            hb_raw(b, ".</p>\n");
            break;
        }
    draw_topology(b, t, NULL, "the node: packages, NUMA nodes with their memory, cores with their PUs");
    if (t->n_numa > 1 && t->distances) {
        hb_raw(b, "<div class=\"scroll\"><table><caption>NUMA distances (relative, 10 = local)</caption><thead><tr>"
                  "<th>from \\ to</th>");
        for (int32_t j = 0; j < t->n_numa; j++)
            hb_fmt(b, "<th>node %d</th>", (int)t->numa[j].os_index);
        hb_raw(b, "</tr></thead><tbody>");
        for (int32_t i = 0; i < t->n_numa; i++) {
            hb_fmt(b, "<tr><th>node %d</th>", (int)t->numa[i].os_index);
            for (int32_t j = 0; j < t->n_numa; j++)
                hb_td_num(b, "%.0f", t->distances[(size_t)i * (size_t)t->n_numa + (size_t)j]);
            hb_raw(b, "</tr>");
        }
        hb_raw(b, "</tbody></table></div>\n");
    }
    hb_raw(b, "</section>\n");
}

/* Each thread's sampled pages by node, as stacked bars coloured by node. */
static void pages_bars(struct hbuf *b, const struct ts_run_summary *s)
{
    const int rows = s->n_threads < MAX_THREAD_ROWS ? s->n_threads : MAX_THREAD_ROWS;
    const int label_w = 150, bar_w = 360, row_h = 16, top = 24;
    const int h = top + rows * row_h + 30;
    hb_fmt(b,
           "<figure><svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\"><title>each thread's pages "
           "by NUMA node (share of its sampled pages)</title>",
           label_w + bar_w + 80, h, label_w + bar_w + 80);
    hb_raw(b, "<text x=\"4\" y=\"16\" class=\"ct\">each thread's pages by node (%)</text>");
    for (int t = 0; t < rows; t++) {
        const int y = top + t * row_h;
        const int32_t own = s->threads ? s->threads[t].node : -1;
        int64_t total = 0;
        for (int32_t k = 0; k < s->n_place_nodes; k++)
            total += s->thread_node_pages[(size_t)t * (size_t)s->n_place_nodes + (size_t)k];
        hb_fmt(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">thread %d on node %d</text>", label_w - 6, y + 12, t,
               (int)own);
        if (total == 0) {
            hb_fmt(b, "<text x=\"%d\" y=\"%d\" class=\"muted\">owns no page</text>", label_w + 4, y + 12);
            continue;
        }
        double x = label_w;
        for (int32_t k = 0; k < s->n_place_nodes; k++) {
            const int64_t pages = s->thread_node_pages[(size_t)t * (size_t)s->n_place_nodes + (size_t)k];
            if (pages == 0)
                continue;
            const double w = (double)pages / (double)total * bar_w;
            hb_fmt(b,
                   "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s><title>thread %d: %lld "
                   "pages (%.1f%%) on node %d%s</title></rect>",
                   x, y + 2, w, row_h - 4, html_category_color(k),
                   s->place_node_ids[k] == own ? "" : " stroke=\"#c0392b\" stroke-width=\"1.5\"", t, (long long)pages,
                   100.0 * (double)pages / (double)total, (int)s->place_node_ids[k],
                   s->place_node_ids[k] == own ? ", its own" : ", remote");
            x += w;
        }
        const double local = s->thread_local_fraction ? s->thread_local_fraction[t] : NAN;
        hb_fmt(b, "<text x=\"%d\" y=\"%d\">", label_w + bar_w + 4, y + 12);
        hb_num(b, "%.0f%% local", local * 100);
        hb_raw(b, "</text>");
    }
    const int ly = top + rows * row_h + 8;
    for (int32_t k = 0; k < s->n_place_nodes && k < 16; k++)
        hb_fmt(b,
               "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">node "
               "%d</text>",
               label_w + (int)k * 70, ly, html_category_color(k), label_w + (int)k * 70 + 16, ly + 11,
               (int)s->place_node_ids[k]);
    hb_raw(b, "</svg></figure>\n");
    if (s->n_threads > rows)
        hb_fmt(b, "<p class=\"muted\">The first %d of %d threads.</p>\n", rows, (int)s->n_threads);
}

void html_placement(struct hbuf *b, const struct html_ctx *c)
{
    hb_raw(b, "<section id=\"placement\">\n<h2>Where the threads ran and where their pages were</h2>\n");
    hb_raw(b, "<p class=\"muted\">Each run's threads on the cores they started the iterations on "
              "(<code>/threads</code>), and the pages each thread owns by the node they were found on "
              "(<code>/placement</code>, sampled with move_pages): a red outline marks pages on another node than "
              "the thread's.</p>\n");
    int shown = 0, read = 0;
    for (int i = 0; i < c->n_runs; i++) {
        const struct ts_run_summary *s = &c->runs[i];
        if (!html_has_run(c, i))
            continue;
        read++;
        if (shown >= MAX_PICTURES)
            continue;
        shown++;
        char key[1024];
        html_config_key(s, 0, key, sizeof key);
        hb_raw(b, "<h3>");
        html_run_link(b, c, i);
        hb_raw(b, "</h3>\n<p class=\"muted\">");
        hb_esc(b, key);
        hb_raw(b, "; local fraction ");
        hb_num(b, "%.3f", s->local_fraction);
        hb_raw(b, "</p>\n");
        if (s->topology.n_cores_rec > 0 && s->threads && s->n_threads <= MAX_DRAWN_THREADS)
            draw_topology(b, &s->topology, s, "threads on their cores");
        else
            hb_raw(b, "<p class=\"empty\">The file records no topology or thread table to draw, or more threads "
                      "than this report draws.</p>\n");
        if (s->thread_node_pages && s->n_place_nodes > MAX_DRAWN_GROUPS)
            hb_fmt(b, "<p class=\"empty\">Pages on %d nodes: more than this report draws.</p>\n",
                   (int)s->n_place_nodes);
        else if (s->thread_node_pages && s->n_place_nodes > 0)
            pages_bars(b, s);
        else
            hb_raw(b, "<p class=\"empty\">No page-placement audit in this file (<code>placement.audit = "
                      "false</code>, or a file older than it).</p>\n");
    }
    if (read == 0)
        hb_raw(b, "<p class=\"empty\">No run was read, so there is no placement to show.</p>\n");
    else if (read > shown)
        hb_fmt(b, "<p class=\"muted\">The first %d of %d runs are drawn.</p>\n", shown, read);
    hb_raw(b, "</section>\n");
}
