/* The HTML report (io/ts_html.h) and what the reader gives it (io/h5_layout_read.c):
 *   layout   a record's /topology, /threads/table and /placement pages written and read back
 *            (directly and through the isolated reader's pipe); a thread on a node the machine
 *            does not have refused, naming the item
 *   hostile  a summary whose every string is markup: the report holds it only escaped
 *   survey   a survey built in memory (2 x 2 matrix, one cell misplaced, emulated, runs done,
 *            pending and failed): sections in order, the verdict's links to the runs' anchors
 *            and to the matrix, the misplaced cell marked, the emulation said; its sections
 *            (io_fixture_sections, hostile) drawn from their plot specs, every text escaped
 *   write    the file as built, replaced atomically; a missing directory refused with its errno
 *            text; summaries that do not match the survey refused
 *   survey_files  a survey's report from its folder (ts_html_write_survey): the done run read
 *            from there, the pending one not; a file outside the folder or gone refused
 * TS_HTML_DUMP=DIR keeps the reports of hostile and survey there (hostile.html, survey.html). */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_fixture.h"
#include "ts_h5_write.h"
#include "ts_html.h"
#include "ts_run_read.h"
#include "ts_section.h"

static char dir[4096];

static const char *const sections[] = TS_HTML_SECTIONS;

/* The section ids in the order the report holds them, each once. */
static void check_sections(const char *html)
{
    const char *at = html;
    for (int i = 0; i < TS_HTML_N_SECTIONS; i++) {
        char tag[64];
        snprintf(tag, sizeof tag, "<section id=\"%s\">", sections[i]);
        const char *found = strstr(at, tag);
        CHECK(found != NULL, "section %s missing or out of order", sections[i]);
        CHECK(strstr(html, tag) == found || !found, "section %s appears twice", sections[i]);
        if (found)
            at = found;
    }
    CHECK(!strstr(html, "http://") && !strstr(html, "https://"), "a network address in the report");
    CHECK(!strstr(html, " src=\""), "an external resource (src=)");
}

/* The text of section id (a copy, for strstr within it). */
static char *section_text(const char *html, const char *id)
{
    char tag[64];
    snprintf(tag, sizeof tag, "<section id=\"%s\">", id);
    const char *start = strstr(html, tag), *end = start ? strstr(start, "</section>") : NULL;
    REQUIRE(start && end, "section %s missing", id);
    char *copy = malloc((size_t)(end - start) + 1);
    REQUIRE(copy, "out of memory");
    memcpy(copy, start, (size_t)(end - start));
    copy[end - start] = '\0';
    return copy;
}

static int count(const char *html, const char *s)
{
    int n = 0;
    for (const char *p = strstr(html, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

/* A run as the reader hands it on, in memory: 2 threads x 4 iterations on a 1-package,
 * 2-node, 4-core machine, thread 1 with a page on the other node. */
struct fake {
    struct ts_run_summary s;
    double iteration[4], thread_iteration[8], local[2];
    struct ts_numa_rec numa[2];
    int32_t distances[4];
    struct ts_core_rec cores[4];
    struct ts_cache_rec caches[3];
    struct ts_thread_rec threads[2];
    int32_t node_ids[2];
    int64_t pages[4];
};

static void fake_run(struct fake *f, const char *file, const char *init, int threads, const char *text)
{
    memset(f, 0, sizeof *f);
    struct ts_run_summary *s = &f->s;
    snprintf(s->file, sizeof s->file, "%s", file);
    s->schema_version = 3;
    s->complete = 1;
    snprintf(s->program_version, sizeof s->program_version, "%s", text);
    snprintf(s->host, sizeof s->host, "%s", text);
    snprintf(s->start_time, sizeof s->start_time, "2026-12-04T09:00:00Z");
    snprintf(s->config_path, sizeof s->config_path, "%s", text);
    snprintf(s->kernel, sizeof s->kernel, "sum");
    snprintf(s->init_mode, sizeof s->init_mode, "%s", init);
    snprintf(s->policy, sizeof s->policy, "%s", text);
    snprintf(s->places, sizeof s->places, "%s", text);
    snprintf(s->proc_bind, sizeof s->proc_bind, "spread");
    snprintf(s->variant, sizeof s->variant, "%s", text);
    snprintf(s->command_line, sizeof s->command_line, "touchstone run %s", text);
    for (int k = 0; k < TS_N_CONDITIONS; k++)
        snprintf(s->conditions[k], sizeof s->conditions[k], "%s", text);
    s->n = 1000;
    s->n_threads = threads;
    s->n_iterations = 4;
    s->init_time = strcmp(init, "serial") == 0 ? 0.02 : 0.01;
    for (int i = 0; i < 4; i++)
        f->iteration[i] = 0.001 * (i + 1) / threads;
    for (int i = 0; i < threads * 4; i++)
        f->thread_iteration[i] = 0.001 * (i % 4 + 1);
    s->iteration = f->iteration;
    s->thread_iteration = f->thread_iteration;
    s->time_min = f->iteration[0];
    s->time_median = f->iteration[1];
    s->time_max = f->iteration[3];
    s->gbs_best = s->gbs_median = 10.0 * threads;
    s->glups_best = s->glups_median = NAN;
    s->has_placement = 1;
    s->local_fraction = 0.75;
    f->local[0] = 1;
    f->local[1] = 0.5;
    s->thread_local_fraction = f->local;
    s->verified = 1;
    s->n_warnings = 1;
    s->warning_text = (char *)text;
    s->warning_bytes = strlen(text) + 1;
    for (int n = 0; n < 2; n++) {
        f->numa[n] = (struct ts_numa_rec){ .os_index = n, .memory_bytes = (uint64_t)1 << 33 };
        snprintf(f->numa[n].cpus, sizeof f->numa[n].cpus, "%s", text);
        f->node_ids[n] = n;
    }
    for (int c = 0; c < 4; c++) {
        f->cores[c] = (struct ts_core_rec){ .index = c, .os_index = c, .package = 0, .numa = c / 2 };
        snprintf(f->cores[c].cpus, sizeof f->cores[c].cpus, "%s", text);
    }
    /* One L3 for the package, an L2 per NUMA node (two cores each), an L1d per core. */
    f->caches[0] = (struct ts_cache_rec){ 3, "unified", 1 << 25, 64, 1 };
    f->caches[1] = (struct ts_cache_rec){ 2, "unified", 1 << 21, 64, 2 };
    f->caches[2] = (struct ts_cache_rec){ 1, "data", 1 << 15, 64, 4 };
    f->distances[0] = f->distances[3] = 10;
    f->distances[1] = f->distances[2] = 21;
    s->topology = (struct ts_topology_rec){ .n_packages = 1,
                                            .n_cores = 4,
                                            .n_pus = 4,
                                            .n_numa = 2,
                                            .numa = f->numa,
                                            .distances = f->distances,
                                            .n_cores_rec = 4,
                                            .cores = f->cores,
                                            .n_caches = 3,
                                            .caches = f->caches };
    for (int t = 0; t < 2; t++) {
        f->threads[t] = (struct ts_thread_rec){ .thread = t, .cpu_start = 2 * t, .core = 2 * t, .node = t };
        snprintf(f->threads[t].host, sizeof f->threads[t].host, "%s", text);
    }
    s->threads = f->threads;
    s->n_place_nodes = 2;
    s->place_node_ids = f->node_ids;
    f->pages[0] = 8; /* thread 0: all on node 0 */
    f->pages[2] = 4; /* thread 1: half on node 0 (remote), half on node 1 */
    f->pages[3] = 4;
    s->thread_node_pages = f->pages;
}

/* With TS_HTML_DUMP=DIR in the environment, each report built is also written there (NAME.html),
 * for a person or a browser to look at. */
static void dump(const char *name, const struct ts_survey_rec *survey, const struct ts_run_summary *runs, int n)
{
    const char *to = getenv("TS_HTML_DUMP");
    if (!to || !*to)
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.html", to, name);
    struct ts_error err;
    ts_error_clear(&err);
    CHECK(ts_html_write(path, survey, runs, n, &err) == TS_OK, "%s: %s", path, err.message);
}

static char *build(const struct ts_survey_rec *survey, const struct ts_run_summary *runs, int n)
{
    struct ts_error err;
    ts_error_clear(&err);
    char *html = NULL;
    size_t size = 0;
    REQUIRE(ts_html_build(survey, runs, n, &html, &size, &err) == TS_OK, "ts_html_build: %s", err.message);
    REQUIRE(html && strlen(html) == size, "the report's size is not its length");
    return html;
}

static void hostile(void)
{
    static const char text[] = "<script>alert(\"x\")</script>&'<img src=x onerror=alert(1)>";
    static struct fake runs[2];
    fake_run(&runs[0], "dir/<b>a&b.h5", "parallel", 2, text);
    fake_run(&runs[1], "dir/\"q\".h5", "serial", 2, text);
    struct ts_run_summary s[2] = { runs[0].s, runs[1].s };
    dump("hostile", NULL, s, 2);
    char *html = build(NULL, s, 2);
    check_sections(html);
    CHECK(count(html, "<script>") == 1, "a script other than the report's own (%d)", count(html, "<script>"));
    CHECK(!strstr(html, "<script>alert") && !strstr(html, "<img"), "markup from a file went into the page");
    CHECK(strstr(html, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&lt;img") != NULL,
          "the hostile text is not there escaped");
    CHECK(strstr(html, "id=\"run-_b_a_b\"") && strstr(html, "id=\"run-_q_\""),
          "anchors are not made of safe characters");
    CHECK(strstr(html, "<svg") && strstr(html, "<title>"), "no picture");
    /* The serial/parallel pair is one group: its bars are drawn. */
    char *init = section_text(html, "init");
    CHECK(strstr(init, "init (first touch) time") != NULL, "the init pair has no bars");
    free(init);
    char *placement = section_text(html, "placement");
    CHECK(strstr(placement, "remote") != NULL, "thread 1's remote pages are not shown");
    free(placement);
    /* Each cache on the box whose cores share it: by the counts, as the file keeps no mapping. */
    char *node = section_text(html, "node");
    CHECK(count(node, ">L3 32 MiB</text>") >= 1, "the package's L3 is not drawn on it");
    CHECK(count(node, ">L2 2 MiB</text>") >= 2, "an L2 is not drawn on each of the 2 NUMA nodes");
    CHECK(strstr(node, "L1d 32 KiB per core") != NULL, "the cores' L1d is not in the legend");
    free(node);
    char *matrix = section_text(html, "matrix");
    CHECK(strstr(matrix, "no NUMA matrix") != NULL, "the plain set's matrix does not say why it is empty");
    free(matrix);
    char *sections = section_text(html, "sections");
    CHECK(strstr(sections, "no survey sections") != NULL, "the plain set's sections do not say why they are empty");
    free(sections);
    free(html);
}

/* The text of the article of section name (a copy). */
static char *article(const char *html, const char *name)
{
    char tag[96];
    snprintf(tag, sizeof tag, "<article class=\"survey-section\" id=\"section-%s\"", name);
    const char *start = strstr(html, tag), *end = start ? strstr(start, "</article>") : NULL;
    REQUIRE(start && end, "no article for section %s", name);
    char *copy = malloc((size_t)(end - start) + 1);
    REQUIRE(copy, "out of memory");
    memcpy(copy, start, (size_t)(end - start));
    copy[end - start] = '\0';
    return copy;
}

/* The survey's sections (io_fixture_sections, hostile): each drawn from its plot specs, every
 * text escaped, NaN left out of the curves and grey in the heat map, the domains' lines, the
 * marks. */
static void survey_sections(const char *html)
{
    CHECK(count(html, "<script>") == 1, "a script other than the report's own (%d)", count(html, "<script>"));
    CHECK(!strstr(html, "<script>alert") && !strstr(html, "<b>bandwidth") && !strstr(html, "<i>read"),
          "markup from a section went into the page");
    CHECK(!strchr(html, '\xff') && strstr(html, "??"), "a cell of invalid UTF-8 went into the page as it was");
    char *all = section_text(html, "sections");
    CHECK(count(all, "<article class=\"survey-section\"") == 3, "%d sections drawn, 3 in the survey",
          count(all, "<article class=\"survey-section\""));
    /* title, summary, note, conditions, command of each of the 3 sections, escaped */
    CHECK(count(all, "&lt;script&gt;alert(&#39;") == 15, "%d hostile texts shown escaped, 15 expected",
          count(all, "&lt;script&gt;alert(&#39;"));
    CHECK(count(all, "class=\"chart section-plot\"") == 3 && count(all, "class=\"heat section-plot\"") == 1,
          "not 3 charts (lines, bars, bars) and 1 heat map: %d, %d", count(all, "class=\"chart section-plot\""),
          count(all, "class=\"heat section-plot\""));
    CHECK(!strstr(all, "plot-empty"), "a plot of the fixture was not drawn");
    free(all);
    char *sweep = article(html, "sweep");
    CHECK(count(sweep, "<circle class=\"mark\"") == 5, "the curves have %d points, 5 measured (one NaN)",
          count(sweep, "<circle class=\"mark\""));
    CHECK(count(sweep, "<polyline class=\"mark\"") == 3, "%d curves, one per kernel (3)",
          count(sweep, "<polyline class=\"mark\""));
    CHECK(strstr(sweep, "logarithmic") && strstr(sweep, "KiB") && strstr(sweep, "MiB"),
          "the log x axis of bytes is not labelled in KiB and MiB");
    CHECK(strstr(sweep, "&lt;i&gt;read&lt;/i&gt;") && strstr(sweep, "&lt;GB/s&gt;"),
          "the series' name and the unit, escaped, in the legend and axis");
    CHECK(strstr(sweep, "<rect class=\"mark\"") != NULL, "the bars of the sweep are not drawn");
    CHECK(strstr(sweep, "not measured") != NULL, "the NaN bar is not said to be not measured");
    CHECK(strstr(sweep, "<details>") && strstr(sweep, "llc_bytes"), "the table and the facts");
    CHECK(!strstr(sweep, "MISPLACED") && !strstr(sweep, "DISTURBED"), "the sweep marked");
    free(sweep);
    char *c2c = article(html, "c2c");
    CHECK(strstr(c2c, ">MISPLACED<") && strstr(c2c, ">DISTURBED<"), "the c2c section is not marked");
    CHECK(count(c2c, "class=\"mark\"") == 12, "%d cells coloured, 12 measured", count(c2c, "class=\"mark\""));
    CHECK(count(c2c, "#e0e0e0") == 4, "%d grey cells, 4 NaN", count(c2c, "#e0e0e0"));
    CHECK(count(c2c, "class=\"domain\"") == 6 && count(c2c, "stroke-width=\"3\" class=\"domain\"") == 2,
          "%d domain lines (6 expected, 2 of them between nodes)", count(c2c, "class=\"domain\""));
    free(c2c);
    char *stream = article(html, "stream");
    CHECK(count(stream, "<rect class=\"mark\"") == 4 && strstr(stream, "&lt;remote&gt;"),
          "the stream bars, grouped by an escaped placement");
    free(stream);
}

static void survey(void)
{
    static struct ts_survey_rec sv;
    static struct ts_survey_run rr[3];
    static struct ts_survey_cell cells[4];
    static int32_t nodes[2] = { 0, 1 };
    static struct fake runs[3];
    memset(&sv, 0, sizeof sv);
    const char *names[3] = { "sum-init-parallel-t2", "sum-init-serial-t2", "sum-scaling-t4" };
    const int states[3] = { TS_SURVEY_DONE, TS_SURVEY_FAILED, TS_SURVEY_PENDING };
    for (int i = 0; i < 3; i++) {
        memset(&rr[i], 0, sizeof rr[i]);
        snprintf(rr[i].name, sizeof rr[i].name, "%s", names[i]);
        snprintf(rr[i].file, sizeof rr[i].file, "runs/%s.h5", names[i]);
        snprintf(rr[i].kernel, sizeof rr[i].kernel, "sum");
        snprintf(rr[i].variant, sizeof rr[i].variant, i == 1 ? "serial" : "parallel");
        snprintf(rr[i].command, sizeof rr[i].command, "OMP_PLACES=cores touchstone run sum.ini --threads 2 -o %s",
                 rr[i].file);
        rr[i].group = i < 2 ? TS_SURVEY_INIT : TS_SURVEY_SCALING;
        rr[i].threads = 2;
        rr[i].state = states[i];
        rr[i].exit_status = i == 1 ? 2 : 0;
    }
    fake_run(&runs[0], "runs/sum-init-parallel-t2.h5", "parallel", 2, "plain");
    struct ts_run_summary s[3];
    memset(s, 0, sizeof s);
    s[0] = runs[0].s; /* the failed and the pending run were not read */
    for (int c = 0; c < 4; c++) {
        cells[c] = (struct ts_survey_cell){ .cpu_node = c / 2,
                                            .mem_node = c % 2,
                                            .threads = 2,
                                            .latency_ns = c / 2 == c % 2 ? 90 : 140,
                                            .latency_huge_ns = NAN,
                                            .latency_loaded_ns = NAN,
                                            .read_gbs = c / 2 == c % 2 ? 20 : 12,
                                            .triad_gbs = 15,
                                            .fraction = c == 1 ? 0.5 : 1,
                                            .misplaced = c == 1 };
    }
    snprintf(cells[1].note, sizeof cells[1].note, "half the pages <on node 0>");
    sv.format = TS_SURVEY_FORMAT;
    snprintf(sv.mode, sizeof sv.mode, "quick");
    snprintf(sv.command, sizeof sv.command, "touchstone survey --quick -o out");
    snprintf(sv.host, sizeof sv.host, "node<1>");
    sv.emulated = 1;
    snprintf(sv.emulated_why, sizeof sv.emulated_why, "qemu TCG");
    sv.n_runs = 3;
    sv.runs = rr;
    sv.has_matrix = 1;
    sv.matrix = (struct ts_survey_matrix){ .n_cpu_nodes = 2,
                                           .n_mem_nodes = 2,
                                           .cpu_nodes = nodes,
                                           .mem_nodes = nodes,
                                           .cell = cells,
                                           .chase_bytes = 1 << 28,
                                           .stream_bytes = 1 << 28,
                                           .llc_bytes = 1 << 25,
                                           .misplaced_cells = 1 };
    sv.n_sentences = 2;
    snprintf(sv.sentences[0].text, sizeof sv.sentences[0].text, "serial init costs 2.0x on sum with 2 threads.");
    snprintf(sv.sentences[0].sources, sizeof sv.sentences[0].sources, "sum-init-parallel-t2, sum-init-serial-t2");
    snprintf(sv.sentences[1].text, sizeof sv.sentences[1].text, "remote memory is 1.6x slower than local.");
    snprintf(sv.sentences[1].sources, sizeof sv.sentences[1].sources, "matrix");

    io_fixture_sections(&sv, 1);
    dump("survey", &sv, s, 3);
    char *html = build(&sv, s, 3);
    check_sections(html);
    survey_sections(html);
    for (int i = 0; i < sv.n_sections; i++)
        ts_section_free(&sv.sections[i]);
    free(sv.sections);
    sv.sections = NULL;
    sv.n_sections = 0;
    /* A file name that is a script URL is shown, never linked. */
    snprintf(rr[2].file, sizeof rr[2].file, "javascript:alert(1)");
    char *scheme = build(&sv, s, 3);
    CHECK(!strstr(scheme, "href=\"javascript:") && strstr(scheme, "<code>javascript:alert(1)</code>"),
          "a run file named as a script URL became a link");
    free(scheme);
    for (int i = 0; i < 3; i++) {
        char anchor[128];
        snprintf(anchor, sizeof anchor, "id=\"run-%s\"", names[i]);
        CHECK(count(html, anchor) == 1, "no single anchor %s", anchor);
    }
    char *verdict = section_text(html, "verdict");
    CHECK(strstr(verdict, "serial init costs 2.0x") != NULL, "the verdict's first sentence");
    CHECK(strstr(verdict, "href=\"#run-sum-init-parallel-t2\"") && strstr(verdict, "href=\"#run-sum-init-serial-t2\""),
          "the first sentence does not link its runs");
    CHECK(strstr(verdict, "href=\"#matrix\"") != NULL, "the second sentence does not link the matrix");
    CHECK(strstr(verdict, "timings mean nothing here") != NULL, "the verdict does not say the machine is emulated");
    free(verdict);
    char *matrix = section_text(html, "matrix");
    CHECK(strstr(matrix, "timings mean nothing here") != NULL, "the matrix does not say the machine is emulated");
    CHECK(count(matrix, "class=\"bad misplaced\"") == 3, "the misplaced cell is not marked in each measured map (%d)",
          count(matrix, "class=\"bad misplaced\""));
    CHECK(strstr(matrix, "<h3>Latency</h3>") && strstr(matrix, "<h3>Bandwidth</h3>"),
          "latency and bandwidth are not apart");
    CHECK(strstr(matrix, "140.0") && strstr(matrix, "ns"), "the cells' values and units");
    CHECK(strstr(matrix, "&lt;on node 0&gt;") && !strstr(matrix, "<on node"), "the cell's note, escaped");
    free(matrix);
    char *commands = section_text(html, "commands");
    CHECK(strstr(commands, ">pending<") && strstr(commands, ">failed (exit status 2)<"),
          "pending and failed runs are not shown as such");
    CHECK(strstr(commands, "touchstone survey --quick -o out") != NULL, "the survey's own command");
    free(commands);
    CHECK(strstr(html, "node&lt;1&gt;") && !strstr(html, "node<1>"), "the host, escaped");
    free(html);
}

static void write_file(void)
{
    static struct fake run;
    fake_run(&run, "a.h5", "parallel", 2, "plain");
    struct ts_error err;
    ts_error_clear(&err);
    char path[4200], missing[4200];
    snprintf(path, sizeof path, "%s/r.html", dir);
    snprintf(missing, sizeof missing, "%s/no/such/r.html", dir);
    FILE *old = fopen(path, "w");
    REQUIRE(old && fputs("old", old) >= 0 && fclose(old) == 0, "cannot make %s", path);
    CHECK(ts_html_write(path, NULL, &run.s, 1, &err) == TS_OK, "ts_html_write: %s", err.message);
    char *html = build(NULL, &run.s, 1);
    FILE *f = fopen(path, "r");
    char *back = calloc(strlen(html) + 2, 1);
    REQUIRE(f && back, "cannot read %s back", path);
    size_t n = fread(back, 1, strlen(html) + 1, f);
    fclose(f);
    CHECK(n == strlen(html) && memcmp(back, html, n) == 0, "the file is not the report as built");
    CHECK(io_dir_entries(dir) == 1, "something beside the report was left in %s", dir);
    free(back);
    free(html);
    ts_error_clear(&err);
    CHECK(ts_html_write(missing, NULL, &run.s, 1, &err) == TS_BAD_INPUT, "a missing directory: status %d", err.status);
    CHECK(strstr(err.message, missing) && strstr(err.message, "No such file or directory"),
          "the message names the path and the errno: %s", err.message);
    struct ts_survey_rec sv = { .n_runs = 2 };
    ts_error_clear(&err);
    char *none = NULL;
    size_t size = 0;
    CHECK(ts_html_build(&sv, &run.s, 1, &none, &size, &err) == TS_BAD_INPUT && !none,
          "1 summary for a survey of 2 runs accepted");
}

/* A run's machine and threads as written, read back. */
static void check_layout(const struct ts_run_summary *s, const struct io_fixture *f, const char *how)
{
    const struct ts_topology_rec *t = &s->topology;
    REQUIRE(t->n_numa == FX_NUMA && t->numa && t->n_cores_rec == 4 && t->cores && t->n_caches == 3 && t->caches
                && t->distances,
            "%s: the topology's rows (%d nodes, %d cores, %d caches)", how, (int)t->n_numa, (int)t->n_cores_rec,
            (int)t->n_caches);
    CHECK(t->n_packages == f->topo.n_packages && t->n_cores == f->topo.n_cores && t->n_pus == f->topo.n_pus,
          "%s: the topology's counts", how);
    for (int i = 0; i < FX_NUMA; i++)
        CHECK(t->numa[i].os_index == f->numa[i].os_index && t->numa[i].memory_bytes == f->numa[i].memory_bytes
                  && strcmp(t->numa[i].cpus, f->numa[i].cpus) == 0,
              "%s: NUMA node row %d", how, i);
    for (int i = 0; i < FX_NUMA * FX_NUMA; i++)
        CHECK(t->distances[i] == f->distances[i], "%s: distance %d", how, i);
    for (int c = 0; c < 4; c++)
        CHECK(t->cores[c].index == f->cores[c].index && t->cores[c].os_index == f->cores[c].os_index
                  && t->cores[c].package == f->cores[c].package && t->cores[c].numa == f->cores[c].numa
                  && strcmp(t->cores[c].cpus, f->cores[c].cpus) == 0,
              "%s: core row %d", how, c);
    for (int c = 0; c < 3; c++)
        CHECK(t->caches[c].level == f->caches[c].level && t->caches[c].size_bytes == f->caches[c].size_bytes
                  && t->caches[c].line_bytes == f->caches[c].line_bytes && t->caches[c].count == f->caches[c].count
                  && strcmp(t->caches[c].type, f->caches[c].type) == 0,
              "%s: cache row %d", how, c);
    REQUIRE(s->threads, "%s: no thread rows", how);
    for (int i = 0; i < FX_THREADS; i++)
        CHECK(s->threads[i].cpu_start == f->threads[i].cpu_start && s->threads[i].core == f->threads[i].core
                  && s->threads[i].node == f->threads[i].node && s->threads[i].place == f->threads[i].place
                  && strcmp(s->threads[i].affinity, f->threads[i].affinity) == 0,
              "%s: thread row %d", how, i);
    REQUIRE(s->n_place_nodes == FX_NUMA && s->place_node_ids && s->thread_node_pages, "%s: the pages by node", how);
    CHECK(s->place_node_ids[0] == 0 && s->place_node_ids[1] == 1, "%s: node_ids", how);
    for (int i = 0; i < FX_THREADS * FX_NUMA; i++)
        CHECK(s->thread_node_pages[i] == (i % FX_NUMA == 0 ? 4 : 0), "%s: thread_node_pages[%d] = %lld", how, i,
              (long long)s->thread_node_pages[i]);
    CHECK(strcmp(s->command_line, f->rec.command_line ? f->rec.command_line : "") == 0, "%s: command_line '%s'", how,
          s->command_line);
}

/* What the reader needs beyond the fixture (as io_mpi_test.c): the config keys it reads, times
 * whose statistics are exactly those of the iterations, a complete run. */
static void readable(struct io_fixture *f)
{
    static struct ts_attr config[3];
    const char *pairs[3][2] = { { "run.kernel", "stencil2d" }, { "init.policy", "firsttouch" }, { "grid.nx", "5" } };
    for (int i = 0; i < 3; i++) {
        snprintf(config[i].name, sizeof config[i].name, "%s", pairs[i][0]);
        snprintf(config[i].value, sizeof config[i].value, "%s", pairs[i][1]);
    }
    f->rec.config = config;
    f->rec.n_config = 3;
    for (int i = 0; i < FX_ITER; i++)
        f->iteration[i] = (double)(2 + i) / 1024.0;
    f->results.time_min = 2.0 / 1024.0;
    f->results.time_median = 4.0 / 1024.0;
    f->results.time_max = (double)(2 + FX_ITER - 1) / 1024.0;
    f->rec.complete = 1;
    f->rec.steps_done = f->rec.steps_planned = FX_WARMUP + FX_ITER;
}

/* The full fixture, readable, with a placement audit of its threads on its 2 nodes. */
static void placed_fixture(struct io_fixture *fp)
{
    io_fixture_full(fp);
    readable(fp);
    static int32_t node_ids[FX_NUMA] = { 0, 1 }, thread_node[FX_THREADS];
    static int64_t pages[FX_THREADS], tnp[FX_THREADS * FX_NUMA], anp[FX_NUMA] = { 12, 0 }, zero[1];
    static double fraction[FX_THREADS];
    for (int t = 0; t < FX_THREADS; t++) {
        pages[t] = 4;
        fraction[t] = 1;
        tnp[t * FX_NUMA] = 4;
        thread_node[t] = fp->threads[t].node;
    }
    static struct ts_placement_rec audit;
    audit = (struct ts_placement_rec){ .measured_after = "init",
                                       .policy = "firsttouch",
                                       .sample_stride = 1,
                                       .page_size = 4096,
                                       .granule_bytes = 4096,
                                       .requested_page_size = 4096,
                                       .madvise = "none",
                                       .n_nodes = FX_NUMA,
                                       .node_ids = node_ids,
                                       .n_threads = FX_THREADS,
                                       .thread_node = thread_node,
                                       .thread_pages = pages,
                                       .thread_local_pages = pages,
                                       .thread_local_fraction = fraction,
                                       .thread_node_pages = tnp,
                                       .n_arrays = 1,
                                       .array_node_pages = anp,
                                       .array_absent_pages = zero,
                                       .array_error_pages = zero,
                                       .local_fraction = 1,
                                       .time = 0.001 };
    fp->rec.placement = &audit;
}

static void layout(void)
{
    static struct io_fixture f;
    placed_fixture(&f);
    char path[4200];
    snprintf(path, sizeof path, "%s/layout.h5", dir);
    struct ts_error err;
    ts_error_clear(&err);
    REQUIRE(ts_record_write(&f.rec, path, &err) == TS_OK, "ts_record_write: %s", err.message);
    struct ts_run_summary s;
    REQUIRE(ts_run_read_file(path, &s, &err) == TS_OK, "the fixture's file does not read back: %s", err.message);
    check_layout(&s, &f, "direct");
    ts_run_summary_free(&s);
    REQUIRE(ts_run_read_file_isolated(path, &s, &err) == TS_OK, "isolated read: %s", err.message);
    check_layout(&s, &f, "isolated");
    ts_run_summary_free(&s);

    /* A thread on a node the machine does not list. */
    f.threads[1].node = 7;
    snprintf(path, sizeof path, "%s/bad-node.h5", dir);
    REQUIRE(ts_record_write(&f.rec, path, &err) == TS_OK, "ts_record_write: %s", err.message);
    ts_error_clear(&err);
    CHECK(ts_run_read_file(path, &s, &err) == TS_BAD_INPUT && strstr(err.message, "/threads/table:node")
              && strstr(err.message, "node 7"),
          "a thread on node 7 of a 2-node machine: %s", err.message);
    ts_run_summary_free(&s);

    /* A cache type hwloc has no word for: an enumerated column, refused naming the known ones. */
    f.threads[1].node = 0;
    snprintf(f.caches[1].type, sizeof f.caches[1].type, "%s", "victim");
    snprintf(path, sizeof path, "%s/bad-cache.h5", dir);
    REQUIRE(ts_record_write(&f.rec, path, &err) == TS_OK, "ts_record_write: %s", err.message);
    ts_error_clear(&err);
    CHECK(ts_run_read_file(path, &s, &err) == TS_BAD_INPUT
              && strstr(err.message, "/topology/caches:type row 1: 'victim' is not a cache type touchstone knows "
                                     "(data, instruction, unified)"),
          "a cache of type victim: %s", err.message);
    ts_run_summary_free(&s);
}

/* A survey's report from its folder: the done run's file read from there, the pending one not;
 * a file outside the folder and a missing file refused. */
static void survey_files(void)
{
    static struct io_fixture f;
    placed_fixture(&f);
    char runs_dir[4200], path[4300], out[4300];
    snprintf(runs_dir, sizeof runs_dir, "%s/runs", dir);
    REQUIRE(mkdir(runs_dir, 0700) == 0, "mkdir %s", runs_dir);
    snprintf(path, sizeof path, "%s/one.h5", runs_dir);
    struct ts_error err;
    ts_error_clear(&err);
    REQUIRE(ts_record_write(&f.rec, path, &err) == TS_OK, "ts_record_write: %s", err.message);
    static struct ts_survey_run rr[2];
    static struct ts_survey_rec sv;
    memset(rr, 0, sizeof rr);
    snprintf(rr[0].name, sizeof rr[0].name, "one");
    snprintf(rr[0].file, sizeof rr[0].file, "runs/one.h5");
    rr[0].state = TS_SURVEY_DONE;
    snprintf(rr[1].name, sizeof rr[1].name, "two");
    snprintf(rr[1].file, sizeof rr[1].file, "runs/two.h5"); /* not there: pending */
    rr[1].state = TS_SURVEY_PENDING;
    sv = (struct ts_survey_rec){ .format = TS_SURVEY_FORMAT, .n_runs = 2, .runs = rr };
    snprintf(out, sizeof out, "%s/survey.html", dir);
    CHECK(ts_html_write_survey(out, &sv, dir, &err) == TS_OK, "ts_html_write_survey: %s", err.message);
    FILE *in = fopen(out, "r");
    static char html[1 << 20];
    size_t n = in ? fread(html, 1, sizeof html - 1, in) : 0;
    html[n] = '\0';
    if (in)
        fclose(in);
    check_sections(html);
    CHECK(strstr(html, "id=\"run-one\"") && strstr(html, "id=\"run-two\""), "the runs' anchors");
    char *placement = section_text(html, "placement");
    CHECK(strstr(placement, "href=\"#run-one\"") && !strstr(placement, "href=\"#run-two\""),
          "the done run is drawn, the pending one not");
    free(placement);
    snprintf(rr[0].file, sizeof rr[0].file, "../one.h5");
    ts_error_clear(&err);
    CHECK(ts_html_write_survey(out, &sv, runs_dir, &err) == TS_BAD_INPUT && strstr(err.message, "not inside"),
          "a file outside the survey's folder: %s", err.message);
    snprintf(rr[0].file, sizeof rr[0].file, "runs/gone.h5");
    ts_error_clear(&err);
    CHECK(ts_html_write_survey(out, &sv, dir, &err) == TS_BAD_INPUT && strstr(err.message, "runs/gone.h5"),
          "a done run whose file is gone: status %d, %s", err.status, err.message);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } modes[] = { { "layout", layout },
                  { "hostile", hostile },
                  { "survey", survey },
                  { "write", write_file },
                  { "survey_files", survey_files } };
    size_t m = 0;
    while (m < sizeof modes / sizeof modes[0] && (argc < 2 || strcmp(argv[1], modes[m].name)))
        m++;
    if (m == sizeof modes / sizeof modes[0]) {
        fprintf(stderr, "usage: %s layout|hostile|survey|write|survey_files\n", argv[0]);
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    io_dir_make(dir, sizeof dir);
    modes[m].run();
    io_dir_remove(dir);
    return ts_test_finish();
}
