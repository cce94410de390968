#!/bin/sh
# touchstone compare on parallel- and serial-init runs made here, three of each: every number
# in its CSV is the files' own (read back with h5_get) or follows from them as documented;
# runs group into sides, each side's figures and verdict follow the rule (docs/usage.md,
# "touchstone compare") from the numbers in the CSV; disturbed runs are flagged exactly when
# their recorded counters say so. Verdicts that must not depend on timing are made so with h5_doctor (calm
# counters, times scaled, a disturbed copy). Runs of different problems are refused unless
# --force; `vs` splits sides; every format prints.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
DOCTOR=${4:?path to h5_doctor}

ITER="--set run.iterations=20"
for i in 1 2 3; do # interleaved, as docs/usage.md asks
    # shellcheck disable=SC2086
    run_ts 0 "parallel-init run $i" run "$SRC/configs/stencil2d.ini" $SMALL $ITER -o "$WORK/par$i.h5" -q || finish
    # shellcheck disable=SC2086
    run_ts 0 "serial-init run $i" run "$SRC/configs/stencil2d.ini" $SMALL $ITER --serial-init -o "$WORK/ser$i.h5" -q ||
        finish
done
cd "$WORK" || finish
ALL="par1.h5 par2.h5 par3.h5 ser1.h5 ser2.h5 ser3.h5"
# shellcheck disable=SC2086
run_ts 0 "compare --format csv" compare $ALL --format csv || finish
cp "$OUT" cmp.csv

# tsv CSV: the CSV as tab-separated fields (reasons hold commas and are quoted), into $TSV.
TSV=cmp.tsv
tsv() {
    /usr/bin/python3 -c 'import csv, sys; [print("\t".join(r)) for r in csv.reader(open(sys.argv[1]))]' "$1" >"$TSV" ||
        fail "$1 does not parse as CSV"
}
# csv_field ROW KEY: the value in data row ROW (1-based) under header KEY, of the last tsv.
csv_field() {
    awk -F'\t' -v row="$1" -v key="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == key) c = i; next }
                                       NR == row + 1 && c { print $c }' "$TSV"
}
tsv cmp.csv
# same WHAT A B: A and B are the same number within 1e-12 (relative).
same() {
    awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
                                     exit !(a != "" && b != "" && d <= 1e-12 * m) }' ||
        fail "$1: compare printed '$2', expected '$3'"
}

[ "$(wc -l <cmp.csv)" -eq 7 ] || fail "csv: a header and six rows expected, got $(wc -l <cmp.csv) lines"
row=1
for f in par1 par2 par3 ser1 ser2 ser3; do
    h5=$f.h5
    [ "$(csv_field $row file)" = "$h5" ] || fail "row $row names $(csv_field $row file), expected $h5"
    # Printed with %.17g from the same doubles h5_get prints with %.17g: equal as text.
    for pair in time_median_s:/results/time_median time_min_s:/results/time_min gbs_median:/results/gbs_median \
                glups_median:/results/glups_median init_s:/timings/init result:/results/global \
                local_fraction:/placement/local_fraction threads:/results@n_threads init_mode:/results@init_mode \
                kernel:/results@kernel host:/@host warnings:/warnings@count iterations:/timings@n_iterations \
                start_time:/@start_time job_id:/job@job_id load_start:/counters/machine/load_start \
                load_end:/counters/machine/load_end online_cpus:/counters/machine@online_cpus; do
        key=${pair%%:*}
        want=$("$H5GET" "$h5" "${pair#*:}")
        [ "$(csv_field $row "$key")" = "$want" ] || fail "$f: $key is '$(csv_field $row "$key")', the file says '$want'"
    done
    [ "$(csv_field $row omp_places)" = "$("$H5GET" "$h5" /threads@OMP_PLACES)" ] || fail "$f: omp_places"
    [ "$(csv_field $row policy)" = "$("$H5GET" "$h5" /config@init.policy)" ] || fail "$f: policy"
    [ "$(csv_field $row verified)" = PASSED ] || fail "$f: verified is '$(csv_field $row verified)'"

    # Quartiles of /timings/iteration by linear interpolation, computed here independently.
    "$H5GET" "$h5" /timings/iteration | sort -g >sorted
    for q in 1 3; do
        want=$(awk -v q="$q" '{ v[NR - 1] = $1 } END { p = q / 4 * (NR - 1); i = int(p);
                                                     printf "%.17g", v[i] + (p - i) * (v[i + 1] - v[i]) }' sorted)
        same "$f time_q${q}_s" "$(csv_field $row time_q${q}_s)" "$want"
    done
    # Imbalance: per iteration max / median over the threads, then the median over iterations.
    n_iter=$("$H5GET" "$h5" /timings@n_iterations)
    want=$("$H5GET" "$h5" /timings/thread_iteration | awk -v n="$n_iter" '
        { t = int((NR - 1) / n); i = (NR - 1) % n; v[i, t] = $1; threads = t + 1 }
        function med(a, k,   j, l, x) { for (j = 1; j < k; j++) for (l = j; l > 0 && a[l - 1] > a[l]; l--) { x = a[l]; a[l] = a[l - 1]; a[l - 1] = x }
                                     return (k % 2) ? a[(k - 1) / 2] : a[k / 2 - 1] + 0.5 * (a[k / 2] - a[k / 2 - 1]) }
        END { for (i = 0; i < n; i++) { for (t = 0; t < threads; t++) c[t] = v[i, t]; m = med(c, threads);
                                        r[i] = c[threads - 1] / m }
              printf "%.17g", med(r, n) }')
    same "$f imbalance" "$(csv_field $row imbalance)" "$want"
    [ "$(csv_field $row same_result)" = identical ] || fail "$f: serial and parallel init gave different results"
    row=$((row + 1))
done

# facts FILE...: per file, what the disturbance rule reads (docs/how-it-works.md, "Disturbed runs"), from the
# files themselves: file threads kernel_s involuntary n_cpus online elapsed others steal tick
# load_start load_end wait ("nan" where a file has no such item).
facts() {
    for h5 in "$@"; do
        get() { "$H5GET" "$h5" "$1" 2>/dev/null || echo nan; }
        invol=$("$H5GET" "$h5" /counters/kernel:involuntary_switches | awk '{ s += $1 } END { print s + 0 }')
        wait=$("$H5GET" "$h5" /counters/kernel:wait_time 2>/dev/null | awk '{ s += $1; n++ } END { if (n) printf "%.17g\n", s; else print "nan" }')
        echo "$h5 $(get /results@n_threads) $(get /timings/kernel) $invol $(get /counters/machine@n_cpus)" \
             "$(get /counters/machine@online_cpus) $(get /counters/machine/elapsed)" \
             "$(get /counters/machine/others_cpu) $(get /counters/machine/steal)" \
             "$(get /counters/machine/clock_tick) $(get /counters/machine/load_start)" \
             "$(get /counters/machine/load_end) $wait"
    done
}

# check_rules CSV FACTS WHAT: every row's disturbed flag and numbers follow from the file's
# facts, and every side's figures and verdict follow from the CSV's own numbers.
check_rules() {
    /usr/bin/python3 - "$1" "$2" <<'EOF' || fail "$3: the flags or verdicts do not follow the rules (above)"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
facts = {}
for line in open(sys.argv[2]):
    f = line.split()
    facts.setdefault(f[0], [float(x) for x in f[1:]])
bad = []
def close(a, b):
    if a == "" or b is None or (isinstance(b, float) and math.isnan(b)):
        return a == "" and (b is None or math.isnan(b))
    return abs(float(a) - b) <= 1e-9 * max(abs(b), 1e-300)
for r in rows:
    threads, kernel, invol, n_cpus, online, elapsed, others, steal, tick, l0, l1, wait = facts[r["file"]]
    rate = invol / (threads * kernel) if threads * kernel > 0 else float("nan")
    span = threads * (kernel if math.isnan(elapsed) else elapsed)
    wait_s = wait / span if span > 0 else float("nan")
    def share(s):
        return max(0.0, s - 2 * tick * n_cpus) / (n_cpus * elapsed) if n_cpus * elapsed > 0 else float("nan")
    steal_s, others_s = share(steal), share(others)
    load = max(l0, l1 - threads) if not math.isnan(l0) else float("nan")
    # The wait for a CPU where it is recorded, the switches' rate where it is not.
    reasons = [wait_s > 0.03, math.isnan(wait_s) and rate > 20 and invol > 5 * threads, steal_s > 0.02,
               others_s > 0.05, load > online]
    want = "yes" if any(reasons) else "no"
    if r["disturbed"] != want:
        bad.append("%s: disturbed %s, the counters say %s" % (r["file"], r["disturbed"], want))
    if (r["disturbed_why"] != "") != (want == "yes"):
        bad.append("%s: disturbed_why '%s'" % (r["file"], r["disturbed_why"]))
    for key, v in (("switches_per_thread_s", rate), ("wait_share", wait_s), ("steal_share", steal_s),
                   ("others_share", others_s)):
        if not close(r[key], v):
            bad.append("%s: %s %s, expected %r" % (r["file"], key, r[key], v))
sides = []
for i, r in enumerate(rows):
    if not sides or r["side"] != rows[i - 1]["side"]:
        sides.append([])
    sides[-1].append(r)
def median(v):
    v = sorted(v); h = len(v) // 2
    return v[h] if len(v) % 2 else v[h - 1] + 0.5 * (v[h] - v[h - 1])
ref = sides[0]
med = lambda s: [float(r["time_median_s"]) for r in s]
for k, s in enumerate(sides):
    m = median(med(s))
    for r in s:
        if int(r["side"]) != k + 1 or int(r["side_runs"]) != len(s):
            bad.append("%s: side %s of %s runs, expected side %d of %d" % (r["file"], r["side"], r["side_runs"], k + 1, len(s)))
        for key, v in (("side_median_s", m), ("side_min_s", min(med(s))), ("side_max_s", max(med(s))),
                       ("side_speedup", median(med(ref)) / m), ("speedup", median(med(ref)) / float(r["time_median_s"]))):
            if not close(r[key], v):
                bad.append("%s: %s %s, expected %r" % (r["file"], key, r[key], v))
    if k == 0:
        want, p = "reference", None
    else:
        ok = lambda s: sum(r["disturbed"] != "yes" for r in s)
        faster, slower = max(med(s)) < min(med(ref)), min(med(s)) > max(med(ref))
        p = 2 / math.comb(len(ref) + len(s), len(s)) if faster or slower else None
        if ok(ref) >= 3 and ok(s) >= 3:
            want = "faster" if faster else "slower" if slower else "within noise"
        else:
            calm = all(r["disturbed"] != "yes" for r in ref + s)
            ratio = median(med(ref)) / m
            below = lambda b, a: all(float(x["time_q3_s"]) < float(y["time_q1_s"]) for x in b for y in a)
            want = ("faster" if calm and ratio > 3 and below(s, ref) else
                    "slower" if calm and ratio < 1 / 3 and below(ref, s) else "cannot separate")
    for r in s:
        if r["verdict"] != want:
            bad.append("side %d: verdict '%s', the rule gives '%s'" % (k + 1, r["verdict"], want))
        if not close(r["p_value"], min(p, 1.0) if p is not None else None):
            bad.append("side %d: p_value '%s', expected %r" % (k + 1, r["p_value"], p))
for b in bad:
    print("    " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

# shellcheck disable=SC2086
facts $ALL >facts.txt
check_rules cmp.csv facts.txt "six real runs"
[ "$(csv_field 1 verdict)" = reference ] || fail "side 1 is not the reference"
[ "$(awk -F'\t' 'NR > 1 { printf "%s", $2 }' "$TSV")" = 111222 ] || fail "sides of the six runs: $(cut -f2 "$TSV")"

# Calm copies (counters of undisturbed runs): no flags, and the verdict still follows the rule.
for f in par1 par2 par3 ser1 ser2 ser3; do
    cp $f.h5 calm-$f.h5
    "$DOCTOR" calm-$f.h5 calm || fail "h5_doctor calm"
    cp calm-$f.h5 slow-$f.h5
    "$DOCTOR" slow-$f.h5 scale:1000 || fail "h5_doctor scale"
done
CALM="calm-par1.h5 calm-par2.h5 calm-par3.h5 calm-ser1.h5 calm-ser2.h5 calm-ser3.h5"
# shellcheck disable=SC2086
facts $CALM >facts.txt
# shellcheck disable=SC2086
run_ts 0 "compare calm runs" compare $CALM --format csv && cp "$OUT" calm.csv && check_rules calm.csv facts.txt "calm runs" &&
    { tsv calm.csv; [ "$(for r in 1 2 3 4 5 6; do csv_field $r disturbed; done | sort -u)" = no ] ||
          fail "calm runs flagged as disturbed"; }

# Disturbed copies: each counter alone flags a run, and the reason names it.
cp calm-par1.h5 others.h5 && "$DOCTOR" others.h5 set:/counters/machine/others_cpu=1000
cp calm-par1.h5 steal.h5 && "$DOCTOR" steal.h5 set:/counters/machine/steal=1000
cp calm-par1.h5 load.h5 && "$DOCTOR" load.h5 set:/counters/machine/load_start=1000
facts others.h5 steal.h5 load.h5 calm-par1.h5 >facts.txt
run_ts 0 "compare disturbed copies" compare others.h5 steal.h5 load.h5 calm-par1.h5 --format csv &&
    cp "$OUT" dist.csv && check_rules dist.csv facts.txt "disturbed copies" &&
    expect_in dist.csv '^others\.h5,.*,yes,"?other processes took' "others_cpu names other processes" &&
    expect_in dist.csv '^steal\.h5,.*,yes,"?steal took' "steal names steal" &&
    expect_in dist.csv '^load\.h5,.*,yes,"?load average 1000' "load names the load average"
run_ts 0 "text names what disturbed a run" compare others.h5 calm-par1.h5 &&
    expect_in "$OUT" "^disturbed +yes +no$" "text: a disturbed row" &&
    expect_in "$OUT" "^disturbed: others\.h5: other processes took [0-9.]+% of the CPUs' time \(above 5%\)" \
        "text: the note names what disturbed it"

# Verdicts that do not depend on this machine's timing:
# - one run against itself: 1 v 1, no difference at all;
run_ts 0 "a run vs itself" compare calm-par1.h5 vs calm-par1.h5 --format csv &&
    expect_in "$OUT" '^calm-par1\.h5,2,.*,cannot separate,"?1 v 1 runs' "1 v 1 of the same run cannot separate"
# - 3 calm runs against 2 calm and 1 disturbed run 1000x slower: too few undisturbed runs, and a
#   disturbed run cannot carry the far-outside-noise verdict;
cp slow-par3.h5 slow-dist.h5 && "$DOCTOR" slow-dist.h5 set:/counters/machine/others_cpu=1000
run_ts 0 "a disturbed run carries no verdict" compare calm-par1.h5 calm-par2.h5 calm-par3.h5 vs slow-par1.h5 \
    slow-par2.h5 slow-dist.h5 --format csv &&
    expect_in "$OUT" '^slow-par1\.h5,2,.*,cannot separate,"?3 v 3 runs, disturbed ones not counted: fewer than 3' \
        "2 undisturbed runs on a side: cannot separate"
# - 3 v 3 calm runs, one side 1000x slower, and 1 v 1: verdicts follow the rule from the numbers.
facts calm-par1.h5 calm-par2.h5 calm-par3.h5 slow-par1.h5 slow-par2.h5 slow-par3.h5 >facts.txt
run_ts 0 "3 v 3, 1000x apart" compare calm-par1.h5 calm-par2.h5 calm-par3.h5 vs slow-par1.h5 slow-par2.h5 \
    slow-par3.h5 --format csv && cp "$OUT" far.csv && check_rules far.csv facts.txt "3 v 3 runs 1000x apart"
run_ts 0 "1 v 1, 1000x apart" compare calm-par1.h5 vs slow-par1.h5 --format csv && cp "$OUT" far1.csv &&
    check_rules far1.csv facts.txt "1 v 1 runs 1000x apart"
# Two real runs of one configuration without vs: one side, and the text says how to split it.
run_ts 0 "one side" compare par1.h5 par2.h5 --format csv &&
    { [ "$(awk -F, 'NR > 1 { printf "%s", $2 }' "$OUT")" = 11 ] || fail "same configuration: one side expected"; }
run_ts 0 "one side, text" compare par1.h5 par2.h5 && expect_in "$OUT" "one side: .* put \`vs\` between runs" "one side is named"

# Array job ids as Slurm names the task (%A_%a).
export SLURM_JOB_ID=4243 SLURM_ARRAY_JOB_ID=4240 SLURM_ARRAY_TASK_ID=3
# shellcheck disable=SC2086
run_ts 0 "run in an array job" run "$SRC/configs/stencil2d.ini" $SMALL -o job.h5 -q
unset SLURM_JOB_ID SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID
run_ts 0 "compare the array task" compare job.h5 par1.h5 --format csv &&
    expect_in "$OUT" "^job\.h5,1,[^,]*,[^,]*,4240_3,stencil2d," "job_id of an array task is <array>_<task>"

# A schema 1 file (before /counters/machine and /summary) still compares.
cp par1.h5 old.h5 && "$DOCTOR" old.h5 schema1
facts old.h5 par2.h5 >facts.txt
run_ts 0 "compare a schema 1 file" compare old.h5 par2.h5 --format csv && cp "$OUT" old.csv &&
    check_rules old.csv facts.txt "schema 1 file" && tsv old.csv &&
    { [ "$(csv_field 1 load_start)$(csv_field 1 online_cpus)" = "" ] || fail "schema 1: machine columns not empty"; } &&
    { [ "$(csv_field 1 switches_per_thread_s)" != "" ] || fail "schema 1: the switches are still judged"; }

# The other formats: people's text side by side with the sides below, markdown, JSON.
# shellcheck disable=SC2086
run_ts 0 "compare text" compare $ALL &&
    expect_in "$OUT" "^side +1 +1 +1 +2 +2 +2$" "text: the side of each run" &&
    expect_in "$OUT" "^init mode +parallel +parallel +parallel +serial +serial +serial$" "text: init modes side by side" &&
    expect_in "$OUT" "^side +runs +median of medians \(s\) +range between runs \(s\) +speed-up vs side 1 +verdict" \
        "text: the table of sides" &&
    expect_in "$OUT" "^ +2 +3.* init mode serial$" "text: side 2 and what sets it apart" &&
    expect_in "$OUT" "^side 2: (faster|slower|within noise|cannot separate): " "text: the verdict's reason"
# shellcheck disable=SC2086
run_ts 0 "compare markdown" compare $ALL --format markdown &&
    expect_in "$OUT" "^\| file \| par1.h5 \| par2.h5 \| par3.h5 \| ser1.h5 \| ser2.h5 \| ser3.h5 \|$" \
        "markdown: header row names the files" &&
    expect_in "$OUT" "^\| side \| runs \| median of medians \(s\) \|" "markdown: the table of sides" &&
    expect_in "$OUT" "^- side 2: " "markdown: the verdict as a list item"
# shellcheck disable=SC2086
run_ts 0 "compare json" compare $ALL --format json &&
    { [ "$(jq '.runs | length' "$OUT")" = 6 ] || fail "json: six runs expected"; } &&
    { [ "$(jq -r '[.runs[].side] | join(",")' "$OUT")" = 1,1,1,2,2,2 ] || fail "json: sides"; } &&
    { [ "$(jq -r '.runs[5] | [.side_runs, (.verdict | type), (.disturbed | type)] | join(",")' "$OUT")" = 3,string,string ] ||
          fail "json: side keys of run 6"; }

# Different problems: refused, naming the fields and the files; accepted with --force.
# shellcheck disable=SC2086
run_ts 0 "sum run" run "$SRC/configs/sum.ini" $SMALL -o sum.h5 -q
# shellcheck disable=SC2086
run_ts 0 "bigger grid" run "$SRC/configs/stencil2d.ini" $SMALL --set stencil.nx=80 -o big.h5 -q
run_ts 2 "different kernels refused" compare par1.h5 sum.h5 &&
    expect_in "$ERR" "differ in kernel \(par1.h5: stencil2d, sum.h5: sum\) and size" "refusal names kernel and files" &&
    expect_in "$ERR" "--force" "refusal names --force"
[ -s "$OUT" ] && fail "a refused compare printed a table"
run_ts 2 "different sizes refused" compare par1.h5 big.h5 &&
    expect_in "$ERR" "differ in size \(par1.h5: 64 x 48, big.h5: 80 x 48\)" "refusal names the sizes"
expect_not_in "$ERR" "kernel \(" "same kernels are not listed as different"
run_ts 0 "--force compares anyway" compare par1.h5 sum.h5 --force --format csv &&
    { [ "$(wc -l <"$OUT")" -eq 3 ] || fail "--force: two rows expected"; } &&
    expect_in "$OUT" ",differs," "--force: the results differ"
run_ts 0 "--force text" compare par1.h5 sum.h5 --force &&
    expect_in "$OUT" "force: they differ in kernel" "--force says what differs"

# Usage errors: nothing printed, exit 2.
run_ts 2 "one file" compare par1.h5 && expect_in "$ERR" "at least two run files" "one file refused"
for args in "vs par1.h5 par2.h5" "par1.h5 par2.h5 vs" "par1.h5 vs vs par2.h5" "par1.h5 vs"; do
    # shellcheck disable=SC2086
    run_ts 2 "misplaced vs: $args" compare $args && expect_in "$ERR" "\`vs\` stands between run files" "vs refused: $args"
    [ -s "$OUT" ] && fail "misplaced vs ($args) printed something"
done
run_ts 2 "a directory" compare "$WORK" par1.h5 && expect_in "$ERR" "is a directory" "directory refused"
run_ts 2 "unknown format" compare par1.h5 ser1.h5 --format xml &&
    expect_in "$ERR" "unknown --format 'xml' \(formats: text, csv, json, markdown\)" "bad format named"
run_ts 0 "compare --help" compare --help && expect_in "$OUT" "touchstone compare A1.h5 \[A2.h5 ...\] \[vs\] B1.h5" "compare --help"
finish
