/* Checks one touchstone HDF5 file written inside the two-node NUMA VM: where the threads ran
 * and where the pages were, through the plain HDF5 C API (the host has no h5py).
 *
 *   numa_vm_check RUN MODE THREADS FILE.h5 [REFERENCE.h5]
 *
 * RUN names the run in messages; MODE is parallel, serial, interleave or bind1 (one process), or
 * ranks or ranks-serial (two MPI ranks, one bound to each NUMA node, parallel or serial first
 * touch); THREADS is the thread count asked for (of all ranks together). With REFERENCE, the
 * file's /results/global must equal the reference file's to the bit (the same run without a
 * launcher, on the host). Every failed assertion prints one line "...: FAILED: RUN: ..." on stderr
 * with the thread and the numbers; a passing file prints one "ok RUN: ..." line that shows them too.
 * Exit status: 0 all assertions hold, 1 some failed, 2 bad usage. */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_test.h"

#define MAX_THREADS 64
#define MAX_NODES 8
#define MAX_ARRAYS 8

static const char *run;

/* Reads a whole dataset of up to `max` elements; returns the element count, -1 when missing. */
static long read_ds(hid_t f, const char *path, hid_t memtype, void *buf, size_t max, hsize_t dims[2])
{
    if (H5Lexists(f, path, H5P_DEFAULT) <= 0) {
        FAIL("%s: no dataset %s", run, path);
        return -1;
    }
    hid_t ds = H5Dopen2(f, path, H5P_DEFAULT), sp = H5Dget_space(ds);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    hsize_t d[2] = { 1, 1 };
    int rank = H5Sget_simple_extent_ndims(sp);
    if (rank >= 1 && rank <= 2)
        H5Sget_simple_extent_dims(sp, d, NULL);
    long got = -1;
    if (n < 0 || (size_t)n > max || rank > 2)
        FAIL("%s: dataset %s has %lld elements in %d dimensions, more than this checker expects (%zu)", run, path,
             (long long)n, rank, max);
    else if (H5Dread(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        FAIL("%s: cannot read dataset %s", run, path);
    else
        got = (long)n;
    if (dims) {
        dims[0] = rank == 0 ? 1 : d[0];
        dims[1] = rank == 2 ? d[1] : 1;
    }
    H5Sclose(sp);
    H5Dclose(ds);
    return got;
}

static int read_attr(hid_t f, const char *obj, const char *name, hid_t memtype, void *buf)
{
    if (H5Aexists_by_name(f, obj, name, H5P_DEFAULT) <= 0) {
        FAIL("%s: no attribute %s on %s", run, name, obj);
        return -1;
    }
    hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    int bad = H5Aread(a, memtype, buf) < 0;
    H5Aclose(a);
    if (bad)
        FAIL("%s: cannot read attribute %s of %s", run, name, obj);
    return bad ? -1 : 0;
}

/* A string attribute (variable or fixed length, ASCII or UTF-8), copied into out; 0 when read. */
static int read_str_attr(hid_t f, const char *obj, const char *name, char *out, size_t len)
{
    out[0] = '\0';
    if (H5Aexists_by_name(f, obj, name, H5P_DEFAULT) <= 0) {
        FAIL("%s: no attribute %s on %s", run, name, obj);
        return -1;
    }
    hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT), ft = H5Aget_type(a);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_cset(mt, H5Tget_cset(ft)); /* HDF5 does not convert between ASCII and UTF-8 */
    int bad = H5Tget_class(ft) != H5T_STRING;
    if (!bad && H5Tis_variable_str(ft) > 0) {
        char *s = NULL;
        H5Tset_size(mt, H5T_VARIABLE);
        bad = H5Aread(a, mt, &s) < 0;
        if (!bad && s)
            snprintf(out, len, "%s", s);
        H5free_memory(s);
    } else if (!bad) {
        H5Tset_size(mt, len);
        bad = H5Aread(a, mt, out) < 0;
        out[len - 1] = '\0';
    }
    H5Tclose(mt);
    H5Tclose(ft);
    H5Aclose(a);
    if (bad)
        FAIL("%s: cannot read string attribute %s of %s", run, name, obj);
    return bad ? -1 : 0;
}

struct thread_row {
    int thread, node, counted_for_node, cpu_start, rank;
};

#define N_RANKS 2 /* the ranks modes: one rank per NUMA node of the VM */

struct node_row {
    int os_index;
    char cpus[256];
};

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* The machine touchstone saw must be the VM's: nodes 0 and 1 with CPUs 0-1 and 2-3. */
static void check_topology(hid_t f)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct node_row)), s = H5Tcopy(H5T_C_S1);
    H5Tset_size(s, sizeof((struct node_row *)0)->cpus);
    H5Tinsert(t, "os_index", HOFFSET(struct node_row, os_index), H5T_NATIVE_INT);
    H5Tinsert(t, "cpus", HOFFSET(struct node_row, cpus), s);
    struct node_row rows[MAX_NODES];
    long n = read_ds(f, "/topology/numa_nodes", t, rows, MAX_NODES, NULL);
    H5Tclose(s);
    H5Tclose(t);
    if (n < 0)
        return;
    static const char *want[] = { "0-1", "2-3" };
    if (n != 2) {
        FAIL("%s: /topology/numa_nodes has %ld nodes, the VM has 2", run, n);
        return;
    }
    for (int i = 0; i < 2; i++)
        if (rows[i].os_index != i || strcmp(rows[i].cpus, want[i]) != 0)
            FAIL("%s: /topology/numa_nodes row %d is node %d with CPUs \"%s\", the VM has node %d with CPUs %s", run, i,
                 rows[i].os_index, rows[i].cpus, i, want[i]);
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6)
        return fprintf(stderr, "usage: numa_vm_check RUN MODE THREADS FILE.h5 [REFERENCE.h5]\n"), 2;
    run = argv[1];
    const char *mode = argv[2];
    int want_threads = atoi(argv[3]);
    if (strcmp(mode, "parallel") && strcmp(mode, "serial") && strcmp(mode, "interleave") && strcmp(mode, "bind1")
        && strcmp(mode, "ranks") && strcmp(mode, "ranks-serial"))
        return fprintf(stderr, "numa_vm_check: unknown mode %s\n", mode), 2;
    int ranks = !strncmp(mode, "ranks", 5);

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(argv[4], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        FAIL("%s: cannot open %s as HDF5", run, argv[4]);
        return 1;
    }

    /* The run verified. */
    int passed = -1;
    if (read_attr(f, "/verification", "passed", H5T_NATIVE_INT, &passed) == 0 && passed != 1) {
        double err = NAN, tol = NAN;
        read_ds(f, "/verification/error", H5T_NATIVE_DOUBLE, &err, 1, NULL);
        read_ds(f, "/verification/tolerance", H5T_NATIVE_DOUBLE, &tol, 1, NULL);
        FAIL("%s: /verification passed = %d (error %g, tolerance %g)", run, passed, err, tol);
    }
    check_topology(f);

    /* Threads: spread binding over the two sockets puts threads on both nodes, and each
     * thread's partial goes into its own node's partial. */
    hid_t tt = H5Tcreate(H5T_COMPOUND, sizeof(struct thread_row));
    H5Tinsert(tt, "thread", HOFFSET(struct thread_row, thread), H5T_NATIVE_INT);
    H5Tinsert(tt, "node", HOFFSET(struct thread_row, node), H5T_NATIVE_INT);
    H5Tinsert(tt, "counted_for_node", HOFFSET(struct thread_row, counted_for_node), H5T_NATIVE_INT);
    H5Tinsert(tt, "cpu_start", HOFFSET(struct thread_row, cpu_start), H5T_NATIVE_INT);
    H5Tinsert(tt, "rank", HOFFSET(struct thread_row, rank), H5T_NATIVE_INT);
    struct thread_row th[MAX_THREADS];
    long nt = read_ds(f, "/threads/table", tt, th, MAX_THREADS, NULL);
    H5Tclose(tt);
    if (nt < 0) {
        H5Fclose(f);
        return 1;
    }
    char where[512] = "";
    for (long t = 0; t < nt; t++)
        snprintf(where + strlen(where), sizeof where - strlen(where), "%sr%d.t%d cpu%d/node%d", t ? ", " : "",
                 th[t].rank, th[t].thread, th[t].cpu_start, th[t].node);
    if (nt != want_threads)
        FAIL("%s: /threads/table has %ld threads, %d were asked for (%s)", run, nt, want_threads, where);
    int on0 = 0, on1 = 0;
    for (long t = 0; t < nt; t++) {
        on0 |= th[t].node == 0;
        on1 |= th[t].node == 1;
        if (th[t].counted_for_node != th[t].node)
            FAIL("%s: thread %d ran on node %d but counted for node %d", run, th[t].thread, th[t].node,
                 th[t].counted_for_node);
    }
    if (!on0 || !on1)
        FAIL("%s: %s should put threads on nodes 0 and 1, got %s", run,
             ranks ? "mpirun --map-by numa --bind-to numa" : "OMP_PROC_BIND=spread over 2 sockets", where);

    /* Ranks: as many as the VM has nodes, each with its share of the threads, all on one node,
     * no two ranks on the same node. */
    int rank_node[N_RANKS] = { -1, -1 };
    if (ranks) {
        int size = 0;
        if (read_attr(f, "/mpi", "size", H5T_NATIVE_INT, &size) == 0 && size != N_RANKS)
            FAIL("%s: /mpi@size = %d, mpirun -np %d started %d ranks", run, size, N_RANKS, N_RANKS);
        int per_rank[N_RANKS] = { 0, 0 };
        for (long t = 0; t < nt; t++) {
            int r = th[t].rank;
            if (r < 0 || r >= N_RANKS) {
                FAIL("%s: thread row %ld has rank %d, the run has ranks 0 and 1", run, t, r);
                continue;
            }
            per_rank[r]++;
            if (rank_node[r] < 0)
                rank_node[r] = th[t].node;
            else if (rank_node[r] != th[t].node)
                FAIL("%s: rank %d, bound to one NUMA node, has threads on nodes %d and %d (%s)", run, r, rank_node[r],
                     th[t].node, where);
        }
        for (int r = 0; r < N_RANKS; r++)
            if (per_rank[r] != want_threads / N_RANKS)
                FAIL("%s: rank %d has %d threads, %d were asked for (%s)", run, r, per_rank[r], want_threads / N_RANKS,
                     where);
        if (rank_node[0] >= 0 && rank_node[0] == rank_node[1])
            FAIL("%s: ranks 0 and 1 both ran on node %d, --map-by numa --bind-to numa puts one on each (%s)", run,
                 rank_node[0], where);
        char init_mode[64];
        const char *want_init = !strcmp(mode, "ranks-serial") ? "serial" : "parallel";
        if (read_str_attr(f, "/results", "init_mode", init_mode, sizeof init_mode) == 0
            && strcmp(init_mode, want_init) != 0)
            FAIL("%s: /results@init_mode = \"%s\", expected \"%s\"", run, init_mode, want_init);
    }

    /* /results/node_ids: each rank's distinct thread nodes, ascending, in rank order (the rows
     * of /threads/table are in rank order; one rank without a launcher). */
    int distinct[MAX_THREADS], nd = 0;
    for (long t = 0, end; t < nt; t = end) {
        int begin = nd;
        for (end = t; end < nt && th[end].rank == th[t].rank; end++) {
            int seen = 0;
            for (int i = begin; i < nd; i++)
                seen |= distinct[i] == th[end].node;
            if (!seen)
                distinct[nd++] = th[end].node;
        }
        qsort(distinct + begin, (size_t)(nd - begin), sizeof *distinct, cmp_int);
    }
    int rnodes[MAX_THREADS];
    double rpart[MAX_THREADS];
    long nr = read_ds(f, "/results/node_ids", H5T_NATIVE_INT, rnodes, MAX_THREADS, NULL);
    long np = read_ds(f, "/results/node_partials", H5T_NATIVE_DOUBLE, rpart, MAX_THREADS, NULL);
    if (nr >= 0) {
        int same = nr == nd;
        for (long i = 0; same && i < nr; i++)
            same = rnodes[i] == distinct[i];
        if (!same) {
            char got[128] = "", want[128] = "";
            for (long i = 0; i < nr; i++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", i ? "," : "", rnodes[i]);
            for (int i = 0; i < nd; i++)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d", i ? "," : "", distinct[i]);
            FAIL("%s: /results/node_ids = [%s], the threads' distinct nodes (per rank) are [%s]", run, got, want);
        }
        if (np >= 0 && np != nr)
            FAIL("%s: /results/node_partials has %ld values for %ld node_ids", run, np, nr);
    }

    /* Placement audit: where the pages of each thread's chunk and of each array were. */
    if (H5Lexists(f, "/placement", H5P_DEFAULT) <= 0) {
        FAIL("%s: no /placement group: this touchstone has no page-placement audit (placement.audit)", run);
        H5Fclose(f);
        return 1;
    }
    char policy[64], after[64];
    const char *want_policy = !strcmp(mode, "interleave") ? "interleave"
                              : !strcmp(mode, "bind1")    ? "bind:1"
                                                          : "firsttouch";
    if (read_str_attr(f, "/placement", "policy", policy, sizeof policy) == 0 && strcmp(policy, want_policy) != 0)
        FAIL("%s: /placement policy = \"%s\", expected \"%s\"", run, policy, want_policy);
    if (read_str_attr(f, "/placement", "measured_after", after, sizeof after) == 0 && strcmp(after, "init") != 0)
        FAIL("%s: /placement measured_after = \"%s\", expected \"init\"", run, after);

    int pnodes[MAX_NODES], tnode[MAX_THREADS];
    int64_t tpages[MAX_THREADS], tlocal[MAX_THREADS], tnp[MAX_THREADS * MAX_NODES], anp[MAX_ARRAYS * MAX_NODES];
    int64_t absent[MAX_ARRAYS], errs[MAX_ARRAYS];
    double tfrac[MAX_THREADS];
    hsize_t tnd[2], adims[2];
    long nn = read_ds(f, "/placement/node_ids", H5T_NATIVE_INT, pnodes, MAX_NODES, NULL);
    long ntn = read_ds(f, "/placement/thread_node", H5T_NATIVE_INT, tnode, MAX_THREADS, NULL);
    long ntp = read_ds(f, "/placement/thread_pages", H5T_NATIVE_INT64, tpages, MAX_THREADS, NULL);
    long ntl = read_ds(f, "/placement/thread_local_pages", H5T_NATIVE_INT64, tlocal, MAX_THREADS, NULL);
    long ntf = read_ds(f, "/placement/thread_local_fraction", H5T_NATIVE_DOUBLE, tfrac, MAX_THREADS, NULL);
    long ntnp = read_ds(f, "/placement/thread_node_pages", H5T_NATIVE_INT64, tnp, MAX_THREADS * MAX_NODES, tnd);
    long nanp = read_ds(f, "/placement/array_node_pages", H5T_NATIVE_INT64, anp, MAX_ARRAYS * MAX_NODES, adims);
    long nab = read_ds(f, "/placement/array_absent_pages", H5T_NATIVE_INT64, absent, MAX_ARRAYS, NULL);
    long ner = read_ds(f, "/placement/array_error_pages", H5T_NATIVE_INT64, errs, MAX_ARRAYS, NULL);
    if (nn < 0 || ntn < 0 || ntp < 0 || ntl < 0 || ntf < 0 || ntnp < 0 || nanp < 0 || nab < 0 || ner < 0) {
        H5Fclose(f);
        return 1;
    }
    if (nn != 2 || pnodes[0] != 0 || pnodes[1] != 1) {
        FAIL("%s: /placement/node_ids has %ld nodes (first %d), the VM has nodes 0 and 1", run, nn,
             nn ? pnodes[0] : -1);
        H5Fclose(f);
        return 1;
    }
    if (ntn != nt || ntp != nt || ntl != nt || ntf != nt || tnd[0] != (hsize_t)nt || tnd[1] != 2 || adims[1] != 2
        || nab != (long)adims[0] || ner != (long)adims[0]) {
        FAIL("%s: /placement shapes disagree: %ld threads in /threads/table; thread_node %ld, thread_pages %ld, "
             "thread_local_pages %ld, thread_local_fraction %ld, thread_node_pages [%llu][%llu], array_node_pages "
             "[%llu][%llu], array_absent_pages %ld, array_error_pages %ld",
             run, nt, ntn, ntp, ntl, ntf, (unsigned long long)tnd[0], (unsigned long long)tnd[1],
             (unsigned long long)adims[0], (unsigned long long)adims[1], nab, ner);
        H5Fclose(f);
        return 1;
    }

    /* The audit's own numbers must agree with each other and with the thread table. */
    for (long t = 0; t < nt; t++) {
        if (tnode[t] != th[t].node)
            FAIL("%s: thread %ld: /placement/thread_node = %d but /threads/table says node %d", run, t, tnode[t],
                 th[t].node);
        if (tpages[t] <= 0)
            FAIL("%s: thread %ld: /placement/thread_pages = %lld, no page of its chunk was sampled", run, t,
                 (long long)tpages[t]);
        int col = tnode[t] == 0 ? 0 : tnode[t] == 1 ? 1 : -1;
        if (col >= 0 && tlocal[t] != tnp[t * 2 + col])
            FAIL("%s: thread %ld: thread_local_pages = %lld but thread_node_pages[%ld][node %d] = %lld", run, t,
                 (long long)tlocal[t], t, tnode[t], (long long)tnp[t * 2 + col]);
        if (tpages[t] > 0 && fabs(tfrac[t] - (double)tlocal[t] / (double)tpages[t]) > 1e-9)
            FAIL("%s: thread %ld: thread_local_fraction = %.6f but thread_local_pages/thread_pages = %lld/%lld", run, t,
                 tfrac[t], (long long)tlocal[t], (long long)tpages[t]);
    }
    int64_t on_node[2] = { 0, 0 };
    for (hsize_t a = 0; a < adims[0]; a++) {
        on_node[0] += anp[a * 2];
        on_node[1] += anp[a * 2 + 1];
        if (absent[a] != 0)
            FAIL("%s: array %llu: %lld sampled pages absent after init (never touched?)", run, (unsigned long long)a,
                 (long long)absent[a]);
        if (errs[a] != 0)
            FAIL("%s: array %llu: move_pages failed on %lld sampled pages", run, (unsigned long long)a,
                 (long long)errs[a]);
    }
    int64_t total = on_node[0] + on_node[1];
    double frac0 = total ? (double)on_node[0] / (double)total : NAN, frac1 = total ? 1.0 - frac0 : NAN;
    if (total <= 0)
        FAIL("%s: /placement/array_node_pages counts no page on any node", run);

    /* Which rank each audited thread belongs to: the thread table's. */
    if (ranks) {
        int trank[MAX_THREADS];
        long ntr = read_ds(f, "/placement/thread_rank", H5T_NATIVE_INT, trank, MAX_THREADS, NULL);
        if (ntr >= 0 && ntr != nt)
            FAIL("%s: /placement/thread_rank has %ld rows, /threads/table %ld", run, ntr, nt);
        for (long t = 0; ntr == nt && t < nt; t++)
            if (trank[t] != th[t].rank)
                FAIL("%s: thread row %ld: /placement/thread_rank = %d but /threads/table says rank %d", run, t,
                     trank[t], th[t].rank);
    }

    /* What each policy must have done. */
    for (long t = 0; t < nt; t++) {
        if (!strcmp(mode, "parallel") && !(tfrac[t] >= 0.99))
            FAIL("%s: parallel first touch: thread %ld (node %d) has %.4f of its pages local (%lld of %lld), "
                 "expected >= 0.99",
                 run, t, tnode[t], tfrac[t], (long long)tlocal[t], (long long)tpages[t]);
        if (!strcmp(mode, "serial") && tnode[t] == 1 && !(tfrac[t] <= 0.01))
            FAIL("%s: serial init: thread %ld on node 1 has %.4f of its pages local (%lld of %lld), expected <= 0.01",
                 run, t, tfrac[t], (long long)tlocal[t], (long long)tpages[t]);
        /* A rank is one process bound to one node: whoever of its threads touches its pages (all of
         * them, or its master with --serial-init), they are on that node, every one. */
        if (ranks && (tpages[t] <= 0 || tlocal[t] != tpages[t]))
            FAIL("%s: %s: thread %d of rank %d (node %d) has %.4f of its pages local (%lld of %lld), expected all", run,
                 mode, th[t].thread, th[t].rank, tnode[t], tfrac[t], (long long)tlocal[t], (long long)tpages[t]);
        if (!strcmp(mode, "interleave") && !(tfrac[t] >= 0.40 && tfrac[t] <= 0.60))
            FAIL("%s: interleave: thread %ld (node %d) has %.4f of its pages local (%lld of %lld), expected 0.40..0.60",
                 run, t, tnode[t], tfrac[t], (long long)tlocal[t], (long long)tpages[t]);
    }
    if (!strcmp(mode, "serial") && !(frac0 >= 0.99))
        FAIL("%s: serial init: %.4f of all pages on node 0 (%lld of %lld), expected >= 0.99", run, frac0,
             (long long)on_node[0], (long long)total);
    if (!strcmp(mode, "bind1") && !(frac1 >= 0.99))
        FAIL("%s: bind:1: %.4f of all pages on node 1 (%lld of %lld), expected >= 0.99", run, frac1,
             (long long)on_node[1], (long long)total);

    /* The result: the same bits as the same run without a launcher. */
    char same[128] = "";
    if (argc == 6) {
        double got = NAN, want = NAN;
        hid_t rf = H5Fopen(argv[5], H5F_ACC_RDONLY, H5P_DEFAULT);
        if (rf < 0)
            FAIL("%s: cannot open the reference %s as HDF5", run, argv[5]);
        else if (read_ds(f, "/results/global", H5T_NATIVE_DOUBLE, &got, 1, NULL) == 1
                 && read_ds(rf, "/results/global", H5T_NATIVE_DOUBLE, &want, 1, NULL) == 1) {
            uint64_t gb, wb;
            memcpy(&gb, &got, sizeof gb);
            memcpy(&wb, &want, sizeof wb);
            if (gb != wb)
                FAIL("%s: /results/global = %.17g (0x%016llx), the same run without a launcher on the host gave "
                     "%.17g (0x%016llx)",
                     run, got, (unsigned long long)gb, want, (unsigned long long)wb);
            snprintf(same, sizeof same, "; result %.17g, bitwise the host's", got);
        }
        if (rf >= 0)
            H5Fclose(rf);
    }

    if (ts_test_failures == 0) {
        char local[256] = "";
        for (long t = 0; t < nt; t++)
            snprintf(local + strlen(local), sizeof local - strlen(local), "%s%.3f", t ? " " : "", tfrac[t]);
        printf("ok %s: %s; local fraction per thread %s; pages on node 0/1: %.1f%%/%.1f%% of %lld%s\n", run, where,
               local, 100 * frac0, 100 * frac1, (long long)total, same);
    }
    H5Fclose(f);
    return ts_test_finish();
}
