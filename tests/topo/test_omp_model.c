/* The OpenMP binding model on nodes written by hand, against tables worked out by hand from the
 * OpenMP 5.2 specification (section 10.1.3, "Controlling OpenMP thread affinity") and, where
 * it departs, from libgomp 12 (docs/binding-model.md says where). tests/topo/test_omp_truth.sh
 * checks the same model against libgomp itself on the machine the suite runs on. */
#include "topo_test.h"
#include "ts_omp_model.h"
#include "ts_topology.h"

/* A node of packages x NUMA nodes per package x cores per NUMA node x smt PUs, an LLC per NUMA
 * node. split: CPU numbers as Intel machines give them (the second PU of core c is c + cores),
 * else the PUs of a core are consecutive (as AMD's and Arm's). */
static struct ts_node make_node(int packages, int numa_per_package, int cores_per_numa, int smt, int split)
{
    struct ts_node node = { 0 };
    node.n_cores = packages * numa_per_package * cores_per_numa;
    node.n_pus = node.n_cores * smt;
    node.n_numa = node.n_llc = packages * numa_per_package;
    node.n_packages = packages;
    node.smt = smt;
    node.pus = calloc((size_t)node.n_pus, sizeof *node.pus);
    REQUIRE(node.pus != NULL, "no memory");
    for (int i = 0; i < node.n_pus; i++) {
        struct ts_node_pu *p = &node.pus[i];
        p->core = i / smt;
        p->os_index = split ? p->core + node.n_cores * (i % smt) : i;
        p->numa = p->llc = p->core / cores_per_numa;
        p->package = p->numa / numa_per_package;
        p->allowed = 1;
    }
    return node;
}

/* The places of omp_places on node, formatted as libgomp prints them. */
static void expect_places(const struct ts_node *node, const char *omp_places, const char *expected)
{
    struct ts_omp_places p;
    struct ts_error err = { 0 };
    char got[1024];
    int rc = ts_omp_places_parse(node, omp_places, &p, &err);
    CHECK(rc == TS_OK, "OMP_PLACES=%s: refused: %s", omp_places, err.message);
    if (rc)
        return;
    ts_omp_places_format(&p, got, sizeof got);
    CHECK(strcmp(got, expected) == 0, "OMP_PLACES=%s: places %s, expected %s", omp_places, got, expected);
    ts_omp_places_free(&p);
}

/* omp_places refused with a message holding each of the words. */
static void expect_refused(const struct ts_node *node, const char *omp_places, const char *words)
{
    struct ts_omp_places p;
    struct ts_error err = { 0 };
    int rc = ts_omp_places_parse(node, omp_places, &p, &err);
    CHECK(rc == TS_BAD_INPUT, "OMP_PLACES=%s: status %d, expected TS_BAD_INPUT", omp_places, rc);
    CHECK(strstr(err.message, words) != NULL, "OMP_PLACES=%s: message '%s' lacks '%s'", omp_places, err.message, words);
    if (rc == TS_OK)
        ts_omp_places_free(&p);
}

/* The place of each thread under bind, as a comma-separated list. */
static void expect_plan(const struct ts_node *node, const char *omp_places, enum ts_omp_bind bind, int n_threads,
                        const char *expected)
{
    struct ts_omp_places p;
    struct ts_error err = { 0 };
    REQUIRE(ts_omp_places_parse(node, omp_places, &p, &err) == TS_OK, "OMP_PLACES=%s: %s", omp_places, err.message);
    int plan[64];
    REQUIRE(n_threads <= 64, "at most 64 threads here");
    CHECK(ts_omp_bind_plan(&p, bind, n_threads, plan, &err) == TS_OK, "plan refused: %s", err.message);
    char got[512] = "";
    for (int i = 0; i < n_threads; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", i ? "," : "", plan[i]);
    CHECK(strcmp(got, expected) == 0, "OMP_PLACES=%s bind %d, %d threads: places %s, expected %s", omp_places,
          (int)bind, n_threads, got, expected);
    ts_omp_places_free(&p);
}

/* 2 sockets x 4 cores x 2 PUs, numbered as Intel does: libgomp walks CPUs by number, so
 * threads pairs each core's PUs ({0},{8},{1},{9}, ...), not CPU 0, 1, 2 ... */
static void places_abstract(void)
{
    struct ts_node node = make_node(2, 1, 4, 2, 1);
    expect_places(&node, "threads", "{0},{8},{1},{9},{2},{10},{3},{11},{4},{12},{5},{13},{6},{14},{7},{15}");
    expect_places(&node, "cores", "{0,8},{1,9},{2,10},{3,11},{4,12},{5,13},{6,14},{7,15}");
    expect_places(&node, "sockets", "{0:4,8:4},{4:4,12:4}");
    expect_places(&node, "numa_domains", "{0:4,8:4},{4:4,12:4}");
    /* libgomp 12 builds the first CPU's last-level cache only (departure 8 in
     * docs/binding-model.md, seen in the two-node VM) */
    expect_places(&node, "ll_caches", "{0:4,8:4}");
    expect_places(&node, " Cores ( 2 ) ", "{0,8},{1,9}");
    expect_places(&node, "threads(3)", "{0},{8},{1}");
    expect_places(&node, "sockets(9)", "{0:4,8:4},{4:4,12:4}");
    ts_node_free(&node);

    /* 4 NUMA domains, each its own L3: numa_domains and ll_caches split the sockets */
    node = make_node(2, 2, 2, 1, 0);
    expect_places(&node, "numa_domains", "{0:2},{2:2},{4:2},{6:2}");
    expect_places(&node, "ll_caches", "{0:2}");
    expect_places(&node, "numa_domains(3)", "{0:2},{2:2},{4:2}");
    expect_places(&node, "sockets", "{0:4},{4:4}");
    expect_places(&node, "cores", "{0},{1},{2},{3},{4},{5},{6},{7}");
    ts_node_free(&node);

    /* a partial allocation: CPUs 0-3 and 8 allowed; places keep the allowed CPUs only */
    node = make_node(2, 1, 4, 2, 1);
    for (int i = 0; i < node.n_pus; i++)
        node.pus[i].allowed = node.pus[i].os_index <= 3 || node.pus[i].os_index == 8;
    expect_places(&node, "cores", "{0,8},{1},{2},{3}");
    expect_places(&node, "threads", "{0},{8},{1},{2},{3}");
    expect_places(&node, "sockets", "{0:4,8}");
    expect_places(&node, "{0:16}", "{0:4,8}");
    ts_node_free(&node);
}

static void places_explicit(void)
{
    struct ts_node node = make_node(2, 1, 4, 2, 1);
    expect_places(&node, "{0,1,2,3}", "{0:4}");
    expect_places(&node, "{0:4}", "{0:4}");
    expect_places(&node, "{0:4:2}", "{0,2,4,6}");
    expect_places(&node, "{0:4}:4:4", "{0:4},{4:4},{8:4},{12:4}");
    expect_places(&node, "{0:2}:3", "{0:2},{1:2},{2:2}");
    expect_places(&node, "{4:2}:3:-2", "{4:2},{2:2},{0:2}");
    expect_places(&node, "{0}:3:0", "{0},{0},{0}");
    expect_places(&node, "{0:4,!2}", "{0:2,3}");
    expect_places(&node, "{!2,0:4}", "{0:2,3}");
    expect_places(&node, "{0},{1},{2},!{1}", "{0},{2}");
    expect_places(&node, "{0:2}:4:2,!{2:2}", "{0:2},{4:2},{6:2}");
    expect_places(&node, "0,1", "{0},{1}");
    expect_places(&node, "0:3:2", "{0},{2},{4}");
    expect_places(&node, " { 0 : 2 } , { 8 } ", "{0:2},{8}");
    expect_places(&node, "{7:3:-1}", "{5:3}");
    /* stride 0 names one CPU however long the run: no loop over a length of 10^11 */
    expect_places(&node, "{3:99999999999:0}", "{3}");
    /* a place with no allowed CPU is dropped (libgomp warns) */
    struct ts_omp_places p;
    struct ts_error err = { 0 };
    REQUIRE(ts_omp_places_parse(&node, "{0},{16},{1}", &p, &err) == TS_OK, "refused: %s", err.message);
    CHECK(p.n == 2 && p.dropped == 1 && ts_omp_place_has(&p, 1, 1), "%d places, %d dropped", p.n, p.dropped);
    CHECK(ts_omp_place_count(&p, 0) == 1, "place 0 holds %d CPUs", ts_omp_place_count(&p, 0));
    ts_omp_places_free(&p);
    ts_node_free(&node);
}

static void places_errors(void)
{
    struct ts_node node = make_node(2, 1, 4, 2, 1);
    expect_refused(&node, "", "OMP_PLACES is empty");
    expect_refused(&node, "{0:4", "at character 5: expected ',' or '}'");
    expect_refused(&node, "cores(2", "at character 8: expected ')'");
    expect_refused(&node, "cores 2", "at character 7: expected '('");
    expect_refused(&node, "coresx", "at character 6");
    expect_refused(&node, "{0},{1}x", "at character 8: expected ',' between places");
    expect_refused(&node, "{0},", "at character 5");
    expect_refused(&node, "{}", "at character 2: expected a CPU number");
    expect_refused(&node, "{0,}", "at character 4");
    expect_refused(&node, "{0:0}", "a length of at least 1");
    expect_refused(&node, "{!1:2}", "no length after an excluded CPU");
    expect_refused(&node, "!{0}:2", "no interval after an excluded place");
    expect_refused(&node, "{0}:0", "a number of places from 1");
    expect_refused(&node, "!{5}", "not in the list so far");
    expect_refused(&node, "{0},!{0}", "all places have been removed");
    expect_refused(&node, "{0:2,!3}", "CPU 3 to be removed is not in the place");
    expect_refused(&node, "{64}", "CPU number 64 out of range");
    expect_refused(&node, "{0:2}:2:-1", "out of range");
    expect_refused(&node, "{0:99999999999999999999}", "CPU number 64 out of range");
    expect_refused(&node, "{0}:2:99999999999999999999", "out of range");
    expect_refused(&node, "{16:4}", "none of the places holds a CPU the job may use");
    expect_refused(&node, "threads(0)", "no places");
    struct ts_error err = { 0 };
    CHECK(ts_omp_places_syntax("{0:4}:2:4", &err) == TS_OK, "syntax refused: %s", err.message);
    CHECK(ts_omp_places_syntax("{64},!{9}", &err) == TS_OK, "only the syntax is checked: %s", err.message);
    CHECK(ts_omp_places_syntax("{0", &err) == TS_BAD_INPUT, "'{0' passed the syntax check");
    ts_node_free(&node);

    /* ll_caches and numa_domains on a node that knows neither */
    node = make_node(1, 1, 2, 1, 0);
    for (int i = 0; i < node.n_pus; i++)
        node.pus[i].llc = node.pus[i].numa = -1;
    node.n_llc = node.n_numa = 0;
    expect_refused(&node, "ll_caches", "no places");
    expect_refused(&node, "numa_domains", "no places");
    ts_node_free(&node);

    /* a node with no PU at all has no places */
    struct ts_node empty = { 0 };
    expect_refused(&empty, "threads", "no places");
    expect_refused(&empty, "{0}", "none of the places");
}

static void places_format(void)
{
    struct ts_node node = make_node(1, 1, 8, 1, 0);
    struct ts_omp_places p;
    struct ts_error err = { 0 };
    REQUIRE(ts_omp_places_parse(&node, "{0:3,5,7},{1}", &p, &err) == TS_OK, "%s", err.message);
    char small[8];
    int need = ts_omp_places_format(&p, small, sizeof small);
    CHECK(need == (int)strlen("{0:3,5,7},{1}") && strcmp(small, "{0:3,5,") == 0, "formatted '%s', needed %d", small,
          need);
    ts_omp_places_free(&p);
    ts_node_free(&node);
}

static void bind_parse(void)
{
    static const struct {
        const char *text;
        int n;
        enum ts_omp_bind first, second;
    } good[] = { { "false", 1, TS_OMP_BIND_FALSE, 0 },
                 { "TRUE", 1, TS_OMP_BIND_TRUE, 0 },
                 { "master", 1, TS_OMP_BIND_PRIMARY, 0 },
                 { "primary", 1, TS_OMP_BIND_PRIMARY, 0 },
                 { " close ", 1, TS_OMP_BIND_CLOSE, 0 },
                 { "spread", 1, TS_OMP_BIND_SPREAD, 0 },
                 { "spread, close", 2, TS_OMP_BIND_SPREAD, TS_OMP_BIND_CLOSE },
                 { "close,primary", 2, TS_OMP_BIND_CLOSE, TS_OMP_BIND_PRIMARY },
                 /* libgomp takes any number of levels; the first TS_OMP_BIND_LEVELS are kept */
                 { "spread,close,close,close,close,close,close,close,close,close", TS_OMP_BIND_LEVELS,
                   TS_OMP_BIND_SPREAD, TS_OMP_BIND_CLOSE } };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct ts_omp_bind_list l;
        struct ts_error err = { 0 };
        CHECK(ts_omp_bind_parse(good[i].text, &l, &err) == TS_OK, "'%s' refused: %s", good[i].text, err.message);
        CHECK(l.n == good[i].n && l.level[0] == good[i].first && (l.n < 2 || l.level[1] == good[i].second),
              "'%s': %d levels, first %d", good[i].text, l.n, (int)l.level[0]);
    }
    static const struct {
        const char *text, *words;
    } bad[] = { { "", "is empty" },
                { "close,", "at character 7: expected a policy after ','" },
                { "false,close", "false and true stand alone" },
                { "close,true", "at character 7: expected master, primary, close or spread" },
                { "closer", "at character 6: expected ',' or the end" },
                { "bogus", "at character 1" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ts_omp_bind_list l;
        struct ts_error err = { 0 };
        CHECK(ts_omp_bind_parse(bad[i].text, &l, &err) == TS_BAD_INPUT, "'%s' accepted", bad[i].text);
        CHECK(strstr(err.message, bad[i].words) != NULL, "'%s': '%s' lacks '%s'", bad[i].text, err.message,
              bad[i].words);
    }
}

/* close over the 8 cores of 2 sockets x 4 cores x 2 PUs. T > P: S = T / P threads a place,
 * then the T mod P left over one a place from place 0 again (libgomp; the specification asks
 * for consecutive thread numbers in a place: 0,0,0,1,1,1,2,2,2,3,3,3,4,4,5,5,6,6,7,7 for 20). */
static void close_tables(void)
{
    struct ts_node node = make_node(2, 1, 4, 2, 1);
    expect_plan(&node, "cores", TS_OMP_BIND_CLOSE, 1, "0");
    expect_plan(&node, "cores", TS_OMP_BIND_CLOSE, 3, "0,1,2");
    expect_plan(&node, "cores", TS_OMP_BIND_CLOSE, 4, "0,1,2,3");
    expect_plan(&node, "cores", TS_OMP_BIND_CLOSE, 8, "0,1,2,3,4,5,6,7");
    expect_plan(&node, "cores", TS_OMP_BIND_CLOSE, 16, "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7");
    expect_plan(&node, "cores", TS_OMP_BIND_CLOSE, 20, "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,0,1,2,3");
    expect_plan(&node, "cores", TS_OMP_BIND_TRUE, 20, "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,0,1,2,3");
    expect_plan(&node, "sockets", TS_OMP_BIND_CLOSE, 3, "0,1,0");
    expect_plan(&node, "sockets", TS_OMP_BIND_CLOSE, 5, "0,0,1,1,0");
    expect_plan(&node, "threads", TS_OMP_BIND_CLOSE, 4, "0,1,2,3");
    expect_plan(&node, "{0:4},{8:4}", TS_OMP_BIND_CLOSE, 4, "0,0,1,1");
    ts_node_free(&node);
}

/* spread: T <= P splits the places into T subpartitions of ceil(P / T) places first, then
 * floor, each thread on the first place of its own; T > P places as close does. */
static void spread_tables(void)
{
    struct ts_node node = make_node(2, 1, 4, 2, 1);
    expect_plan(&node, "cores", TS_OMP_BIND_SPREAD, 1, "0");
    expect_plan(&node, "cores", TS_OMP_BIND_SPREAD, 3, "0,3,6");
    expect_plan(&node, "cores", TS_OMP_BIND_SPREAD, 4, "0,2,4,6");
    expect_plan(&node, "cores", TS_OMP_BIND_SPREAD, 8, "0,1,2,3,4,5,6,7");
    expect_plan(&node, "cores", TS_OMP_BIND_SPREAD, 16, "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7");
    expect_plan(&node, "cores", TS_OMP_BIND_SPREAD, 20, "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,0,1,2,3");
    /* 16 places, 3 threads: subpartitions of 6, 5 and 5 places */
    expect_plan(&node, "threads", TS_OMP_BIND_SPREAD, 3, "0,6,11");
    expect_plan(&node, "threads", TS_OMP_BIND_SPREAD, 4, "0,4,8,12");
    /* 5 threads over 16: 4, 3, 3, 3, 3 */
    expect_plan(&node, "threads", TS_OMP_BIND_SPREAD, 5, "0,4,7,10,13");
    expect_plan(&node, "sockets", TS_OMP_BIND_SPREAD, 3, "0,1,0");
    ts_node_free(&node);

    node = make_node(2, 2, 2, 1, 0);
    expect_plan(&node, "numa_domains", TS_OMP_BIND_SPREAD, 2, "0,2");
    expect_plan(&node, "numa_domains", TS_OMP_BIND_SPREAD, 3, "0,2,3");
    expect_plan(&node, "ll_caches", TS_OMP_BIND_SPREAD, 4, "0,0,0,0");
    ts_node_free(&node);
}

static void primary_tables(void)
{
    struct ts_node node = make_node(2, 1, 4, 2, 1);
    expect_plan(&node, "cores", TS_OMP_BIND_PRIMARY, 3, "0,0,0");
    expect_plan(&node, "cores", TS_OMP_BIND_PRIMARY, 20, "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0");
    expect_plan(&node, "cores", TS_OMP_BIND_FALSE, 3, "-1,-1,-1");
    struct ts_omp_places none = { 0 };
    struct ts_error err = { 0 };
    int plan[2];
    CHECK(ts_omp_bind_plan(&none, TS_OMP_BIND_CLOSE, 2, plan, &err) == TS_BAD_INPUT, "close without places");
    CHECK(ts_omp_bind_plan(&none, TS_OMP_BIND_FALSE, 0, plan, &err) == TS_BAD_INPUT, "a team of 0");
    ts_node_free(&node);
}

/* What libgomp ends up with for a job's environment (NULL: unset). */
static void expect_env(const struct ts_node *node, const char *places, const char *bind, enum ts_omp_bind want_bind,
                       const char *want_places, int ignored, int n_threads, const char *want_plan)
{
    struct ts_omp_outcome o;
    struct ts_error err = { 0 };
    REQUIRE(ts_omp_libgomp(node, places, bind, &o, &err) == TS_OK, "%s", err.message);
    char got[512];
    ts_omp_places_format(&o.places, got, sizeof got);
    CHECK(o.bind == want_bind && strcmp(got, want_places) == 0 && (o.places_ignored || o.bind_ignored) == ignored,
          "OMP_PLACES=%s OMP_PROC_BIND=%s: bind %d, places '%s', ignored %d/%d (note: %s)", places ? places : "-",
          bind ? bind : "-", (int)o.bind, got, o.places_ignored, o.bind_ignored, o.note);
    int plan[64];
    REQUIRE(ts_omp_libgomp_plan(&o, n_threads, plan, &err) == TS_OK, "%s", err.message);
    char have[512] = "";
    for (int i = 0; i < n_threads; i++)
        snprintf(have + strlen(have), sizeof have - strlen(have), "%s%d", i ? "," : "", plan[i]);
    CHECK(strcmp(have, want_plan) == 0, "OMP_PLACES=%s OMP_PROC_BIND=%s: plan %s, expected %s", places ? places : "-",
          bind ? bind : "-", have, want_plan);
    ts_omp_outcome_free(&o);
}

static void libgomp_env(void)
{
    struct ts_node node = make_node(1, 1, 2, 2, 1);
    const char *threads = "{0},{2},{1},{3}";
    expect_env(&node, NULL, NULL, TS_OMP_BIND_FALSE, "", 0, 2, "-1,-1");
    expect_env(&node, NULL, "true", TS_OMP_BIND_TRUE, threads, 0, 2, "0,1");
    expect_env(&node, NULL, "close", TS_OMP_BIND_CLOSE, threads, 0, 2, "0,1");
    expect_env(&node, "cores", NULL, TS_OMP_BIND_TRUE, "{0,2},{1,3}", 0, 3, "0,1,0");
    expect_env(&node, "cores", "false", TS_OMP_BIND_FALSE, "", 1, 2, "-1,-1");
    expect_env(&node, "cores", "bogus", TS_OMP_BIND_TRUE, "{0,2},{1,3}", 1, 2, "0,1");
    expect_env(&node, "{0", "spread", TS_OMP_BIND_SPREAD, threads, 1, 2, "0,2");
    expect_env(&node, "{0", NULL, TS_OMP_BIND_FALSE, "", 1, 2, "-1,-1");
    expect_env(&node, "cores", "spread,close", TS_OMP_BIND_SPREAD, "{0,2},{1,3}", 0, 2, "0,1");
    expect_env(&node, "cores", "primary", TS_OMP_BIND_PRIMARY, "{0,2},{1,3}", 0, 2, "0,0");
    struct ts_omp_outcome o;
    struct ts_error err = { 0 };
    REQUIRE(ts_omp_libgomp(&node, "cores", "spread,close", &o, &err) == TS_OK, "%s", err.message);
    CHECK(o.bind_list.n == 2 && o.bind_list.level[1] == TS_OMP_BIND_CLOSE, "nested levels: %d", o.bind_list.n);
    ts_omp_outcome_free(&o);
    REQUIRE(ts_omp_libgomp(&node, "{0},{9}", NULL, &o, &err) == TS_OK, "%s", err.message);
    CHECK(o.places_warned && !o.places_ignored && o.places.n == 1, "a dropped place: warned %d, %d places",
          o.places_warned, o.places.n);
    ts_omp_outcome_free(&o);
    REQUIRE(ts_omp_libgomp(&node, "{9}", "false", &o, &err) == TS_OK, "%s", err.message);
    CHECK(!o.places_warned && o.places_ignored, "false: only the syntax is checked (warned %d)", o.places_warned);
    ts_omp_outcome_free(&o);
    ts_node_free(&node);
}

/* A node from hwloc rather than by hand: a synthetic 2 packages x 2 NUMA nodes (an L3 each) x
 * 4 cores x 2 PUs, through ts_node_from_topology, as advise will read an XML export. */
static void from_hwloc(void)
{
    setenv("HWLOC_SYNTHETIC", "package:2 numa:2 l3:1 core:4 pu:2", 1);
    ts_topology *topo;
    struct ts_node node;
    struct ts_error err = { 0 };
    REQUIRE(ts_topology_create(&topo, &err) == TS_OK, "topology did not load: %s", err.message);
    REQUIRE(ts_node_from_topology(topo, &node, &err) == TS_OK, "no node description: %s", err.message);
    ts_topology_destroy(topo);
    expect_places(&node, "numa_domains", "{0:8},{8:8},{16:8},{24:8}");
    expect_places(&node, "ll_caches", "{0:8}");
    expect_places(&node, "sockets", "{0:16},{16:16}");
    expect_places(&node, "cores(3)", "{0:2},{2:2},{4:2}");
    expect_plan(&node, "numa_domains", TS_OMP_BIND_SPREAD, 4, "0,1,2,3");
    expect_plan(&node, "cores", TS_OMP_BIND_SPREAD, 4, "0,4,8,12");
    expect_plan(&node, "threads", TS_OMP_BIND_CLOSE, 3, "0,1,2");
    ts_node_free(&node);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "places_abstract", places_abstract },
        { "places_explicit", places_explicit },
        { "places_errors", places_errors },
        { "places_format", places_format },
        { "bind_parse", bind_parse },
        { "close", close_tables },
        { "spread", spread_tables },
        { "primary", primary_tables },
        { "libgomp_env", libgomp_env },
        { "from_hwloc", from_hwloc },
    };
    return TS_RUN_CASES(cases);
}
