#!/bin/sh
# compare, report and plot know ranks (issue 14), on files of real mpirun runs: report tables
# ranks x threads per rank with speed-up and efficiency over the group's 1 rank x 1 thread,
# computed from the files' own times (consistency, not timing values); compare shows each run's
# ranks, threads per rank, decomposition and halo share, and a rank count that differs sets a
# side apart; plot --kind scaling draws threads in all (ranks x threads), one line per threads
# per rank. Single-node files keep their tables without a ranks column.
# Usage: test_readback_ranks.sh TOUCHSTONE SOURCE_DIR MPIRUN PYTHON
. "$(dirname "$0")/lib.sh"
PYTHON=${4:?path to the Python with h5py and matplotlib}
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
cd "$WORK" || exit 1
# One configuration for every run (the report groups by it); proc_bind false: no binding
# re-execution, and the ranks' threads may share the two cores.
CFG="$SRC/configs/stencil2d.ini"
SIZES="--set stencil.nx=96 --set stencil.ny=64 --set run.iterations=4 --set run.warmup=1 --set openmp.proc_bind=false"
SUM="--set sum.n=300000 --set run.iterations=4 --set run.warmup=1 --set openmp.proc_bind=false"
mkdir sweep
# ranks x threads per rank; ranks 1 is a run without a launcher (not in name order: the report sorts)
for shape in 2x2 1x2 4x1 2x1 1x1; do
    ranks=${shape%x*} threads=${shape#*x}
    if [ "$ranks" = 1 ]; then
        # shellcheck disable=SC2086
        run_ts 0 "stencil2d alone, $threads threads" run "$CFG" $SIZES --threads "$threads" -o "sweep/$shape.h5" -q
    else
        # shellcheck disable=SC2086
        mpi_ts 0 "stencil2d on $ranks ranks x $threads threads" "$ranks" run "$CFG" $SIZES --threads "$threads" \
            -o "sweep/$shape.h5" -q
    fi
done
# shellcheck disable=SC2086
run_ts 0 "sum alone" run "$SRC/configs/sum.ini" $SUM --threads 1 -o sum-1.h5 -q
# shellcheck disable=SC2086
mpi_ts 0 "sum on 2 ranks" 2 run "$SRC/configs/sum.ini" $SUM --threads 1 -o sum-2.h5 -q
for f in sweep/1x1.h5 sweep/1x2.h5 sweep/2x1.h5 sweep/2x2.h5 sweep/4x1.h5 sum-1.h5 sum-2.h5; do
    [ -s "$f" ] || { fail "no run file $f"; finish; }
done

# What each file says, by h5py: ranks, threads per rank, median time, halo share (the halo
# seconds over the iteration seconds, summed over every rank and timed iteration).
"$PYTHON" - sweep/*.h5 sum-1.h5 sum-2.h5 >facts.json <<'PY' || fail "reading the files with h5py"
import json, sys
import h5py, numpy as np
facts = {}
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        d = {"time_median": float(f["results/time_median"][()]), "threads": int(f["results"].attrs["n_threads"]),
             "ranks": 1, "per_rank": int(f["results"].attrs["n_threads"]), "halo_share": None, "decomposition": ""}
        if "mpi" in f:
            m = f["mpi"]
            d["ranks"] = int(m.attrs["size"])
            d["per_rank"] = int(m["ranks"]["n_threads"][0])
            d["decomposition"] = m.attrs["decomposition"]
            d["halo_share"] = float(np.sum(m["rank_halo_iteration"][()]) / np.sum(m["rank_iteration"][()]))
        facts[path] = d
json.dump(facts, sys.stdout)
PY

# 1. report: rows by ranks, then threads per rank; the figures the files' own.
run_ts 0 "report of the sweep, json" report sweep --format json && cp "$OUT" report.json
"$PYTHON" - report.json facts.json <<'PY' || fail "report json: rows do not match the files"
import json, sys
rows = json.load(open(sys.argv[1]))["runs"]
facts = json.load(open(sys.argv[2]))
bad = []
shapes = ["%sx%s" % (r["ranks"], r["threads"]) for r in rows]
if shapes != ["1x1", "1x2", "2x1", "2x2", "4x1"]:
    bad.append("rows in the order %s, want 1x1 1x2 2x1 2x2 4x1 (ranks, then threads per rank)" % shapes)
base = facts["sweep/1x1.h5"]
close = lambda a, b: a is not None and abs(a - b) <= 1e-12 * abs(b)
for r in rows:
    f = facts[r["file"]]
    if (r["ranks"], r["threads"]) != (f["ranks"], f["per_rank"]):
        bad.append("%s: ranks %s x threads %s, the file %s x %s" % (r["file"], r["ranks"], r["threads"], f["ranks"], f["per_rank"]))
    if r["time_median_s"] != f["time_median"]:
        bad.append("%s: median %r, the file's %r" % (r["file"], r["time_median_s"], f["time_median"]))
    speedup = base["time_median"] / f["time_median"]
    efficiency = speedup * 1 / (f["ranks"] * f["per_rank"])
    if not close(r["speedup"], speedup) or not close(r["efficiency"], efficiency):
        bad.append("%s: speed-up %r efficiency %r, want %r and %r (over 1 rank x 1 thread)"
                   % (r["file"], r["speedup"], r["efficiency"], speedup, efficiency))
    if f["halo_share"] is None:
        if r["halo_share"] is not None:
            bad.append("%s: halo share %r without ranks" % (r["file"], r["halo_share"]))
    elif not close(r["halo_share"], f["halo_share"]):
        bad.append("%s: halo share %r, the file's %r" % (r["file"], r["halo_share"], f["halo_share"]))
    if r["decomposition"] != f["decomposition"]:
        bad.append("%s: decomposition %r, the file's %r" % (r["file"], r["decomposition"], f["decomposition"]))
for b in bad:
    print("FAILED: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
run_ts 0 "report of the sweep, text" report sweep &&
    expect_in "$OUT" "by ranks x threads per rank" "report text: the title says ranks x threads" &&
    expect_in "$OUT" "^  ranks  threads per rank  median/iteration \(s\)  speed-up  efficiency  halo share " \
        "report text: the ranks column before the threads" &&
    expect_in "$OUT" "^ +1 +1 +[0-9.e-]+ +1\.000 +1\.000 +- " "report text: the 1 x 1 row, the reference" &&
    expect_in "$OUT" "^ +4 +1 +[0-9.e-]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ .* sweep/4x1\.h5$" "report text: the 4 x 1 row"
run_ts 0 "report of the sweep, csv" report sweep --format csv &&
    expect_in "$OUT" "^group,kernel,size,init_mode,policy,omp_places,omp_proc_bind,ranks,threads," "report csv: ranks before threads"
# Without a run of more than one rank: the table of old, no ranks anywhere.
run_ts 0 "report of single-node runs" report sweep/1x1.h5 sweep/1x2.h5 &&
    expect_not_in "$OUT" "ranks|halo" "report of single-node runs: no ranks column" &&
    expect_in "$OUT" "^  threads  median/iteration \(s\)  speed-up  efficiency " "report of single-node runs: the columns of old"
run_ts 0 "report of single-node runs, json" report sweep/1x1.h5 sweep/1x2.h5 --format json &&
    { jq -e '.runs | all(has("ranks") or has("halo_share") | not)' "$OUT" >/dev/null ||
        fail "report json of single-node runs: keys of ranks"; }

# 2. compare: each run's ranks, threads per rank, decomposition and halo share.
run_ts 0 "compare 1 vs 2 vs 4 ranks" compare sweep/1x1.h5 sweep/2x1.h5 sweep/4x1.h5 && cp "$OUT" compare.txt
d2=$("$PYTHON" -c 'import json,sys; print(json.load(open("facts.json"))["sweep/2x1.h5"]["decomposition"])')
d4=$("$PYTHON" -c 'import json,sys; print(json.load(open("facts.json"))["sweep/4x1.h5"]["decomposition"])')
expect_in compare.txt "^ranks +1 +2 +4$" "compare: the rank counts"
expect_in compare.txt "^threads per rank +1 +1 +1$" "compare: threads per rank"
expect_in compare.txt "^decomposition +$d2 +$d4$" "compare: the decompositions"
expect_in compare.txt "^halo share +- +[0-9]\.[0-9]{3} +[0-9]\.[0-9]{3}$" "compare: the halo shares"
# (the verdict before the configuration depends on the times: not checked)
expect_in compare.txt "^ +2 .* +ranks 2, decomposition $d2$" "compare: the rank count sets side 2 apart"
expect_in compare.txt "^ +3 .* +ranks 4, decomposition $d4$" "compare: the rank count sets side 3 apart"
run_ts 0 "compare 1 vs 2 vs 4 ranks, json" compare sweep/1x1.h5 sweep/2x1.h5 sweep/4x1.h5 --format json && cp "$OUT" compare.json
"$PYTHON" - compare.json facts.json compare.txt <<'PY' || fail "compare: ranks or halo share not the files'"
import json, sys
rows = json.load(open(sys.argv[1]))["runs"]
facts = json.load(open(sys.argv[2]))
text = [l.split()[2:] for l in open(sys.argv[3]) if l.startswith("halo share ")][0]
bad = []
for r, shown in zip(rows, text):
    f = facts[r["file"]]
    if (r["ranks"], r["threads"], r["decomposition"]) != (f["ranks"], f["per_rank"], f["decomposition"]):
        bad.append("%s: %r" % (r["file"], r))
    want = f["halo_share"]
    if (want is None) != (r["halo_share"] is None) or (want is not None and abs(r["halo_share"] - want) > 1e-12 * want):
        bad.append("%s: halo share %r, the file's %r" % (r["file"], r["halo_share"], want))
    if want is not None and shown != "%.3f" % want:
        bad.append("%s: halo share printed %s, the file's %.3f" % (r["file"], shown, want))
for b in bad:
    print("FAILED: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
# sum on ranks: slices, no halo exchange.
run_ts 0 "compare sum alone vs 2 ranks" compare sum-1.h5 sum-2.h5 &&
    expect_in "$OUT" "^decomposition +slices$" "compare sum: slices" &&
    expect_in "$OUT" "^halo share +- +0\.000$" "compare sum: no halo exchange" &&
    expect_in "$OUT" "^result vs run 1 +identical +identical$" "compare sum: the same result on 2 ranks"
run_ts 0 "compare single-node runs" compare sweep/1x1.h5 sweep/1x2.h5 &&
    expect_not_in "$OUT" "^(ranks|threads per rank|decomposition|halo share|hosts) " "compare of single-node runs: no rows of ranks" &&
    expect_in "$OUT" "^ +2 .* +threads 2$" "compare of single-node runs: the configuration as before"

# 3. plot --kind scaling: threads in all on x, a line per threads per rank, speed-ups as report's.
export TOUCHSTONE_PLOT_AXES=1
run_ts 0 "plot --kind scaling of ranks" plot sweep --kind scaling -o scaling.png &&
    expect_in "$OUT" "^touchstone plot: wrote scaling.png \(1000 x 600 px\)$" "plot: the 'wrote' line" &&
    expect_not_in "$ERR" "warning|Warning|Traceback" "plot: nothing clipped or overlapping" &&
    expect_in "$ERR" "axes 'speed-up over the fewest threads in all'" "plot: speed-up over the fewest threads in all"
unset TOUCHSTONE_PLOT_AXES
[ "$(od -An -c -N 4 scaling.png 2>/dev/null | tr -d ' \n')" = "211PNG" ] || fail "plot: scaling.png is not a PNG"
"$PYTHON" - report.json "$ERR" <<'PY' || fail "plot: the points are not report's"
import json, re, sys
rows = json.load(open(sys.argv[1]))["runs"]
bars = re.findall(r"error bar 'speed-up over the fewest threads in all' '.*, (\d+) threads? per rank': x ([\d.e+-]+), y ([\d.e+-]+),",
                  open(sys.argv[2]).read())
bad = []
if len(bars) != len(rows):
    bad.append("%d points of speed-up, %d runs" % (len(bars), len(rows)))
for r in rows:
    total = r["ranks"] * r["threads"]
    near = [b for b in bars if int(b[0]) == r["threads"] and abs(float(b[1]) - total) < 0.2
            and abs(float(b[2]) - r["speedup"]) <= 1e-6 * r["speedup"]]
    if len(near) != 1:
        bad.append("%s: no point at %d threads in all, speed-up %.9g, on the line of %d per rank"
                   % (r["file"], total, r["speedup"], r["threads"]))
for b in bad:
    print("FAILED: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
# 4. report --html: ranks x threads per rank in the tables, one curve over threads in all, each
# rank's threads drawn (their host from /threads/table).
run_ts 0 "report --html of ranks" report --html report.html sweep &&
    expect_in report.html '<td class="n" data-v="4">4 x 1</td>' "report --html: the 4 x 1 run as ranks x threads" &&
    expect_in report.html 'parallel efficiency' "report --html: the scaling curves" &&
    expect_in report.html 'id="run-4x1"' "report --html: the 4 x 1 run's anchor" &&
    expect_in report.html 'thread 3 on node' "report --html: the fourth thread's pages (rank 3's)"
finish
