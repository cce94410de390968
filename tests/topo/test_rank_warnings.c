/* The warnings across ranks (topo/ts_rank_warnings.h) on made-up layouts: each warning where
 * its layout is wrong and none where it is right, the hosts that share a kernel, and the
 * facts' text line read back as written, malformed lines refused. */
#include "topo_test.h"
#include "ts_rank_warnings.h"

enum { MAX_LINES = 32, MAX_RANKS = 128 };

static struct ts_rank_line lines[MAX_LINES];
static struct ts_rank_thread threads[MAX_RANKS][8];
static struct ts_rank_facts ranks[MAX_RANKS];

/* Rank r on host (name, boot id) with mask, whose threads ran on the CPUs cpu[0..n) (core = the
 * CPU, node = node[i]); the host has cores cores (one PU each) and numa nodes. */
static void rank(int r, const char *host, const char *boot, const char *mask, int n, const int *cpu, const int *node,
                 int cores, int numa)
{
    struct ts_rank_facts *f = &ranks[r];
    *f = (struct ts_rank_facts){
        .rank = r, .n_cores = cores, .n_pus = cores, .n_numa = numa, .n_threads = n, .threads = threads[r]
    };
    snprintf(f->host, sizeof f->host, "%s", host);
    snprintf(f->boot_id, sizeof f->boot_id, "%s", boot);
    snprintf(f->mask, sizeof f->mask, "%.1023s", mask);
    for (int i = 0; i < n; i++)
        threads[r][i] = (struct ts_rank_thread){ cpu[i], cpu[i], node ? node[i] : 0 };
    int local = 0;
    for (int i = 0; i < r; i++)
        local += strcmp(ranks[i].host, host) == 0;
    f->local_rank = local;
}

static int run(int n)
{
    memset(lines, 0, sizeof lines);
    int got = ts_rank_warnings(ranks, n, lines, MAX_LINES);
    REQUIRE(got >= 0, "ts_rank_warnings failed");
    for (int i = 0; i < got; i++)
        printf("%s: %s\n", lines[i].note ? "note" : "warning", lines[i].text);
    return got;
}

/* The index of the line holding every one of the texts (NULL-terminated), or -1. */
static int find_all(int n, const char *const *texts)
{
    for (int i = 0; i < n; i++) {
        int all = 1;
        for (const char *const *t = texts; *t && all; t++)
            all = strstr(lines[i].text, *t) != NULL;
        if (all)
            return i;
    }
    return -1;
}
#define FIND(n, ...) find_all(n, (const char *const[]){ __VA_ARGS__, NULL })

static const char *const A = "aaaaaaaa-1111-2222-3333-444444444444";
static const char *const B = "bbbbbbbb-1111-2222-3333-444444444444";

/* 2 hosts x 2 ranks x 2 threads, each rank on cores of its own: nothing to say. */
static void none_disjoint(void)
{
    rank(0, "a", A, "0-1", 2, (int[]){ 0, 1 }, NULL, 4, 1);
    rank(1, "a", A, "2-3", 2, (int[]){ 2, 3 }, NULL, 4, 1);
    rank(2, "b", B, "0-1", 2, (int[]){ 0, 1 }, NULL, 4, 1);
    rank(3, "b", B, "2-3", 2, (int[]){ 2, 3 }, NULL, 4, 1);
    REQUIRE(run(4) == 0, "two ranks per host on disjoint cores: expected no line");
}

/* One rank per NUMA node, each rank's threads on its own node: nothing to say. */
static void none_numa(void)
{
    rank(0, "a", A, "0-3", 4, (int[]){ 0, 1, 2, 3 }, (int[]){ 0, 0, 0, 0 }, 8, 2);
    rank(1, "a", A, "4-7", 4, (int[]){ 4, 5, 6, 7 }, (int[]){ 1, 1, 1, 1 }, 8, 2);
    REQUIRE(run(2) == 0, "one rank per NUMA node: expected no line");
}

static void overlap(void)
{
    rank(0, "a", A, "0-3", 2, (int[]){ 0, 1 }, NULL, 8, 1);
    rank(1, "a", A, "2-5", 2, (int[]){ 4, 5 }, NULL, 8, 1);
    rank(2, "a", A, "6-7", 2, (int[]){ 6, 7 }, NULL, 8, 1);
    int n = run(3);
    REQUIRE(n == 1, "one pair of ranks overlapping: expected one line, got %d", n);
    REQUIRE(FIND(n, "host a: ranks 0 and 1 may both run on CPUs 2-3 (masks 0-3 and 2-5)",
                 "srun --mpi=pmix --cpus-per-task=N --cpu-bind=cores", "mpirun --map-by slot:PE=N")
                == 0,
            "the overlap line does not name the ranks, the CPUs, the masks and the fix");
    REQUIRE(!lines[0].note, "an overlap is a warning, not a note");
    REQUIRE(!strstr(lines[0].text, "pairs"), "one pair overlaps, the line counts more");

    /* Every rank on the whole host (mpirun --bind-to none): every pair, one line. */
    for (int r = 0; r < 3; r++)
        snprintf(ranks[r].mask, sizeof ranks[r].mask, "0-7");
    n = run(3);
    REQUIRE(n == 1 && FIND(n, "3 pairs of its 3 ranks overlap") == 0, "three ranks overlapping: expected one line");
}

/* Without a mask, the CPUs the threads ran on stand for it. */
static void overlap_without_mask(void)
{
    rank(0, "a", A, "", 1, (int[]){ 0 }, NULL, 2, 1);
    rank(1, "a", A, "", 1, (int[]){ 0 }, NULL, 2, 1);
    int n = run(2);
    REQUIRE(n == 1 && FIND(n, "ranks 0 and 1 may both run on CPU 0 ") == 0, "threads of two ranks on CPU 0: no line");
    rank(1, "a", A, "", 1, (int[]){ 1 }, NULL, 2, 1);
    REQUIRE(run(2) == 0, "threads of two ranks on CPUs 0 and 1, no masks: expected no line");
}

static void one_core(void)
{
    rank(0, "a", A, "0", 2, (int[]){ 0, 0 }, NULL, 2, 1);
    rank(1, "b", B, "1", 2, (int[]){ 1, 1 }, NULL, 2, 1);
    int n = run(2);
    /* Every rank makes the mistake: one line, naming both ranks, their hosts, and the core,
     * CPU and mask each number of which differs between them as the smallest..largest. */
    REQUIRE(n == 1, "two ranks each on one core: expected one line, got %d", n);
    int at = FIND(n,
                  "2 of 2 ranks (ranks 0-1; hosts a, b): its 2 threads all run on core 0..1 (CPU 0..1; the rank's "
                  "mask: 0..1)",
                  "give each rank 2 cores of its own: mpirun --map-by slot:PE=2 --bind-to core",
                  "srun --mpi=pmix --cpus-per-task=2 --cpu-bind=cores",
                  "OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=spread");
    /* Fixes that give each rank cores of its own; not --bind-to none, under which every rank
     * binds its first thread to the host's first core. */
    REQUIRE(at == 0, "no line naming both ranks with the fixes");
    CHECK(!strstr(lines[at].text, "bind-to none"), "a fix that stacks ranks offered: %s", lines[at].text);
    /* Two SMT siblings of one core make a one-core mask too (2 cores, 4 PUs: CPUs 0 and 2). */
    rank(0, "a", A, "0,2", 2, (int[]){ 0, 2 }, NULL, 2, 1);
    ranks[0].n_pus = 4;
    threads[0][1].core = 0;
    rank(1, "b", B, "1", 1, (int[]){ 1 }, NULL, 2, 1);
    n = run(2);
    REQUIRE(n == 1 && FIND(n, "rank 0 (a): its 2 threads all run on core 0 (CPUs 0,2; the rank's mask: 0,2)") == 0,
            "two threads on the SMT siblings of a one-core mask: expected the warning");

    /* One thread a rank on one core is no pitfall; two threads on two cores neither. */
    rank(0, "a", A, "0", 1, (int[]){ 0 }, NULL, 2, 1);
    rank(1, "b", B, "0-1", 2, (int[]){ 0, 1 }, NULL, 2, 1);
    REQUIRE(run(2) == 0, "one thread on one core, two on two: expected no line");
    /* Threads that share a core of a wider mask were put there by the rank's own binding or
     * the scheduler (its own warnings say so), not by the launcher; without a mask, unknown. */
    rank(1, "b", B, "0-1", 2, (int[]){ 1, 1 }, NULL, 2, 1);
    REQUIRE(run(2) == 0, "two threads on one core of a two-core mask: expected no line");
    rank(1, "b", B, "", 2, (int[]){ 1, 1 }, NULL, 2, 1);
    REQUIRE(run(2) == 0, "two threads on one core, mask unknown: expected no line");
}

static void spans_numa(void)
{
    rank(0, "a", A, "0-3", 2, (int[]){ 0, 1 }, (int[]){ 0, 0 }, 8, 2);
    rank(1, "a", A, "4-7", 2, (int[]){ 4, 5 }, (int[]){ 0, 1 }, 8, 2);
    int n = run(2);
    REQUIRE(n == 1, "a rank over two NUMA nodes: expected one line, got %d", n);
    REQUIRE(FIND(n, "rank 1 (a): its 2 threads run on NUMA nodes 0-1", "(2 ranks, 2 nodes)", "--map-by numa",
                 "srun --cpu-bind=ldoms")
                == 0,
            "the NUMA line does not name the rank, its nodes and the fixes");
    /* One rank on a two-node host may span both: that is its layout, not a mistake. */
    rank(0, "a", A, "0-7", 2, (int[]){ 0, 4 }, (int[]){ 0, 1 }, 8, 2);
    REQUIRE(run(1) == 0, "one rank on a two-node host: expected no line");
}

static void unequal(void)
{
    for (int r = 0; r < 3; r++)
        rank(r, "a", A, r == 0 ? "0" : r == 1 ? "1" : "2", 1, (int[]){ r }, NULL, 4, 1);
    rank(3, "b", B, "0", 1, (int[]){ 0 }, NULL, 4, 1);
    int n = run(4);
    REQUIRE(n == 1, "3 ranks on a, 1 on b: expected one line, got %d", n);
    REQUIRE(FIND(n, "ranks per host differ: 1 to 3 ranks a host (4 ranks on 2 hosts: a, b)", "--ntasks-per-node",
                 "--map-by ppr:N:node")
                == 0,
            "the line does not give the counts and the fixes");
}

static void crowded(void)
{
    rank(0, "a", A, "0-1", 3, (int[]){ 0, 1, 1 }, NULL, 4, 1);
    rank(1, "a", A, "2-3", 3, (int[]){ 2, 3, 3 }, NULL, 4, 1);
    int n = run(2);
    REQUIRE(n == 1, "6 threads on 4 cores: expected one line, got %d", n);
    REQUIRE(FIND(n, "host a: its 2 ranks run 6 threads on 4 cores", "at most 4 threads") == 0,
            "the line does not give the counts");
}

/* n1 and n2 are one kernel under two names (the tests' Slurm): one note, and no warning about
 * the CPUs their ranks share; two ranks under one of the names still warn. */
static void shared_kernel(void)
{
    rank(0, "n1", A, "0-1", 2, (int[]){ 0, 1 }, NULL, 2, 1);
    rank(1, "n2", A, "0-1", 2, (int[]){ 0, 1 }, NULL, 2, 1);
    int n = run(2);
    REQUIRE(n == 1, "two names on one kernel: expected one line, got %d", n);
    REQUIRE(lines[0].note, "the shared kernel is a note, not a warning");
    REQUIRE(FIND(n, "hosts n1, n2 share one kernel (boot id aaaaaaaa...)", "emulated") == 0,
            "the note does not name the hosts and the kernel");

    rank(2, "n1", A, "0-1", 1, (int[]){ 0 }, NULL, 2, 1);
    rank(3, "n2", A, "0-1", 1, (int[]){ 1 }, NULL, 2, 1);
    rank(1, "n1", A, "0-1", 1, (int[]){ 1 }, NULL, 2, 1);
    rank(0, "n1", A, "0-1", 1, (int[]){ 0 }, NULL, 2, 1);
    n = run(4); /* n1: ranks 0, 1, 2; n2: rank 3 */
    REQUIRE(FIND(n, "share one kernel") >= 0 && lines[FIND(n, "share one kernel")].note, "no note of the kernel");
    REQUIRE(FIND(n, "host n1: ranks 0 and 1 may both run on CPUs 0-1") >= 0, "ranks on n1 overlap: no warning");
    REQUIRE(FIND(n, "ranks 2 and 3") < 0 && FIND(n, "and 3 may") < 0, "warned about n1's and n2's ranks sharing CPUs");
    REQUIRE(FIND(n, "host n1: its 3 ranks run 3 threads on 2 cores") >= 0, "n1 holds 3 threads on 2 cores: no line");
    REQUIRE(FIND(n, "host n2: its") < 0, "n2 holds 1 thread on 2 cores, yet warned about");

    /* One name on two kernels is two hosts: the same CPU numbers are other CPUs. */
    rank(0, "node", A, "0-1", 1, (int[]){ 0 }, NULL, 2, 1);
    rank(1, "node", B, "0-1", 1, (int[]){ 0 }, NULL, 2, 1);
    REQUIRE(run(2) == 0, "one name on two kernels: expected no line");
}

/* One line a distinct warning across hosts too (issue 24), and more lines than fit: the last one
 * says how many were left out. */
static void max_lines(void)
{
    /* 40 hosts of 2 ranks on CPU 0 each: the overlap every host has, one line naming the hosts;
     * the one-core mistake every rank makes, one line naming the ranks. */
    char host[40][8];
    for (int r = 0; r < 80; r++) {
        snprintf(host[r / 2], sizeof host[0], "h%d", r / 2);
        rank(r, host[r / 2], "", "0", 2, (int[]){ 0, 0 }, NULL, 64, 1);
    }
    int n = run(80);
    REQUIRE(n == 2, "40 hosts making one mistake: expected 2 lines, got %d", n);
    REQUIRE(FIND(n, "40 of 40 hosts (hosts h0, h1, h2 ...): ranks 0..78 and 1..79 may both run on CPU 0 (masks 0 "
                    "and 0): ")
                == 0,
            "the overlap of 40 hosts: not one line naming them");
    REQUIRE(FIND(n, "80 of 80 ranks (ranks 0-79; hosts h0, h1, h2 ...): its 2 threads all run on core 0") == 1,
            "the one-core mistake of 80 ranks: not one line naming them");
    n = ts_rank_warnings(ranks, 80, lines, 1);
    REQUIRE(n == 1 && strcmp(lines[0].text, "2 more warnings across ranks are not shown") == 0,
            "one line for two: '%s'", lines[0].text);
    REQUIRE(ts_rank_warnings(ranks, 80, NULL, 0) == 0, "max 0 wrote lines");
    /* Every rank of 40 on one host of 64 cores, each on core 0: one line a warning, however many ranks. */
    for (int r = 0; r < 40; r++)
        rank(r, "a", A, "0", 2, (int[]){ 0, 0 }, NULL, 64, 1);
    n = run(40);
    REQUIRE(n == 3, "40 ranks making one mistake: expected 3 lines, got %d", n);
    REQUIRE(FIND(n, "780 pairs of its 40 ranks overlap") >= 0, "the pairs of 40 ranks on one mask: not 780");
    REQUIRE(FIND(n, "40 of 40 ranks (ranks 0-39; host a): its 2 threads all run on core 0 (CPU 0; the rank's mask: 0)")
                >= 0,
            "the one-core mistake of 40 ranks: not one line naming them");
}

/* The pairs of overlapping ranks, counted by sorting, against every pair compared: masks of 2
 * to 5 CPUs of 16, drawn by a fixed generator, some ranks sharing one mask. */
static void overlap_count(void)
{
    unsigned seed = 12345;
    char mask[MAX_RANKS][40];
    for (int trial = 0; trial < 20; trial++) {
        int n = 10 + trial * 5; /* up to 105 ranks */
        int cpus[MAX_RANKS][16];
        for (int r = 0; r < n; r++) {
            seed = seed * 1103515245u + 12345u;
            int from = (int)(seed >> 16) % 14, len = 2 + (int)(seed >> 8) % 4;
            if (r > 0 && (seed >> 4) % 3 == 0) /* the mask of the rank before */
                memcpy(mask[r], mask[r - 1], sizeof mask[r]);
            else
                snprintf(mask[r], sizeof mask[r], "%d-%d", from, from + len - 1 < 15 ? from + len - 1 : 15);
            rank(r, "a", A, mask[r], 1, (int[]){ 0 }, NULL, 16, 1);
            int lo, hi;
            REQUIRE(sscanf(mask[r], "%d-%d", &lo, &hi) == 2, "mask %s", mask[r]);
            for (int c = 0; c < 16; c++)
                cpus[r][c] = c >= lo && c <= hi;
        }
        long long pairs = 0;
        int a = -1, b = -1;
        for (int x = 0; x < n; x++)
            for (int y = x + 1; y < n; y++) {
                int shared = 0;
                for (int c = 0; c < 16; c++)
                    shared |= cpus[x][c] && cpus[y][c];
                if (shared && pairs++ == 0) {
                    a = x;
                    b = y;
                }
            }
        int got = run(n);
        char want[120];
        snprintf(want, sizeof want, "ranks %d and %d may both run on", a, b);
        REQUIRE(pairs > 1, "trial %d: a draw of %d ranks without overlaps", trial, n);
        int at = FIND(got, want);
        REQUIRE(at >= 0, "trial %d: the first pair is not %d and %d", trial, a, b);
        snprintf(want, sizeof want, "; %lld pairs of its %d ranks overlap", pairs, n);
        REQUIRE(strstr(lines[at].text, want), "trial %d: expected '%s' in '%s'", trial, want, lines[at].text);
    }
}

static void same_facts(const struct ts_rank_facts *a, const struct ts_rank_facts *b)
{
    REQUIRE(a->rank == b->rank && a->local_rank == b->local_rank && a->n_cores == b->n_cores && a->n_pus == b->n_pus
                && a->n_numa == b->n_numa && a->n_threads == b->n_threads,
            "the numbers of rank %d do not read back", a->rank);
    REQUIRE(strcmp(a->host, b->host) == 0, "host '%s' read back as '%s'", a->host, b->host);
    REQUIRE(strcmp(a->boot_id, b->boot_id) == 0, "boot id '%s' read back as '%s'", a->boot_id, b->boot_id);
    REQUIRE(strcmp(a->mask, b->mask) == 0, "mask '%s' read back as '%s'", a->mask, b->mask);
    for (int i = 0; i < a->n_threads; i++)
        REQUIRE(a->threads[i].cpu == b->threads[i].cpu && a->threads[i].core == b->threads[i].core
                    && a->threads[i].node == b->threads[i].node,
                "thread %d does not read back", i);
}

static void round_trip(void)
{
    rank(0, "node-01.cluster", A, "0-3,8,10-11", 3, (int[]){ 0, 8, 11 }, (int[]){ 0, 1, 1 }, 12, 2);
    rank(1, "odd host%name=é\tx", "", "", 0, NULL, NULL, -1, -1);
    ranks[1].n_pus = -1;
    rank(2, "n", B, "5", 2, (int[]){ -1, 5 }, (int[]){ -1, 0 }, 6, 1);
    threads[2][0].core = -1;
    for (int r = 0; r < 3; r++) {
        char *line = NULL;
        struct ts_error err = { 0 };
        REQUIRE(ts_rank_facts_format(&ranks[r], &line, &err) == TS_OK, "format: %s", err.message);
        printf("%s", line);
        REQUIRE(strchr(line, '\n') == line + strlen(line) - 1, "the line of rank %d is not one line", r);
        struct ts_rank_facts back;
        REQUIRE(ts_rank_facts_parse(line, &back, &err) == TS_OK, "parse '%s': %s", line, err.message);
        same_facts(&ranks[r], &back);
        ts_rank_facts_free(&back);
        free(line);
    }
}

static void parse_refuses(void)
{
    static const char *const bad[] = {
        "",
        "\n",
        "rank=0",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=2:0/0/0",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=1:0/0/0,1/1/0",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=1:0/0",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=1:0/0/0/0",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=1:x/0/0",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=1:0/0/-2",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=1:0/0/0 more",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=-1:",
        "rank=0 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=99999999:",
        "rank=-1 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=99999999999 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=+1 local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=0 local=0 host=a%4 boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=0 local=0 host=a%00 boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=0 local=0 host=a%zz boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=0 local=0 host=a:b boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=0 local=0 boot=b host=a cores=2 pus=2 numa=1 mask=0-1 threads=0:",
        "rank=0 local=0 host=a boot=0123456789012345678901234567890123456789 cores=2 pus=2 numa=1 mask= threads=0:",
        "rank=0  local=0 host=a boot=b cores=2 pus=2 numa=1 mask=0-1 threads=0:",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ts_rank_facts f;
        struct ts_error err = { 0 };
        int status = ts_rank_facts_parse(bad[i], &f, &err);
        printf("%s\n", err.message);
        REQUIRE(status == TS_INTERNAL_ERROR, "'%s' read as facts (status %d)", bad[i], status);
        REQUIRE(strstr(err.message, "do not read back (") != NULL, "'%s': no reason: %s", bad[i], err.message);
        REQUIRE(f.threads == NULL && f.n_threads == 0, "'%s': a refused line left threads", bad[i]);
    }
    struct ts_rank_facts f;
    struct ts_error err = { 0 };
    REQUIRE(ts_rank_facts_parse("rank=0 local=0 host=a boot= cores=-1 pus=-1 numa=-1 mask= threads=0:\n", &f, &err)
                == TS_OK,
            "the smallest line is refused: %s", err.message);
    ts_rank_facts_free(&f);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "none_disjoint", none_disjoint },
        { "none_numa", none_numa },
        { "overlap", overlap },
        { "overlap_without_mask", overlap_without_mask },
        { "one_core", one_core },
        { "spans_numa", spans_numa },
        { "unequal", unequal },
        { "crowded", crowded },
        { "shared_kernel", shared_kernel },
        { "max", max_lines },
        { "overlap_count", overlap_count },
        { "round_trip", round_trip },
        { "parse_refuses", parse_refuses },
    };
    return TS_RUN_CASES(cases);
}
