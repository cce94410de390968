#!/bin/sh
# touchstone report on a 1/2/4-thread sweep made here (plus one serial-init run, a second
# group), given as a directory: rows grouped and sorted by threads, speed-up and efficiency
# computed from the files' medians; what a directory may and may not hold.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
DOCTOR=${4:?path to h5_doctor}

SWEEP=$WORK/sweep
mkdir "$SWEEP"
ITER="--set run.iterations=10"
for t in 4 1 2; do # not in order: the report sorts
    # shellcheck disable=SC2086
    run_ts 0 "$t-thread run" run "$SRC/configs/triad.ini" $SMALL $ITER --threads "$t" -o "$SWEEP/par-$t.h5" -q || finish
done
# shellcheck disable=SC2086
run_ts 0 "serial-init run" run "$SRC/configs/triad.ini" $SMALL $ITER --threads 2 --serial-init -o "$SWEEP/ser-2.h5" -q || finish
# What a run directory also holds: a checkpoint and another program's HDF5 file are skipped.
"$DOCTOR" "$SWEEP/par-2.ckpt.h5" checkpoint || fail "h5_doctor checkpoint"
"$DOCTOR" "$SWEEP/other.h5" foreign || fail "h5_doctor foreign"
echo "not a run" >"$SWEEP/notes.txt"

run_ts 0 "report DIR --format csv" report "$SWEEP" --format csv || finish
cp "$OUT" "$WORK/report.csv"
expect_in "$ERR" "skipping $SWEEP/par-2.ckpt.h5: .*checkpoint" "the checkpoint is skipped with a note"
expect_in "$ERR" "skipping $SWEEP/other.h5: .*not a touchstone run file" "the foreign file is skipped with a note"

# The group label holds commas and is quoted: read the CSV with Python's csv module.
/usr/bin/python3 - "$WORK/report.csv" >"$WORK/rows" <<'EOF' || fail "report.csv does not parse as CSV"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["file"], r["threads"], r["init_mode"], r["time_median_s"], r["speedup"], r["efficiency"], r["gbs_median"])
EOF
[ "$(wc -l <"$WORK/rows")" -eq 4 ] || fail "four runs expected in the report, got $(wc -l <"$WORK/rows")"
# Groups in the order of the files (par-1.h5 comes first by name), rows by threads.
[ "$(awk '{ printf "%s ", $2 }' "$WORK/rows")" = "1 2 4 2 " ] || fail "rows not grouped and sorted by threads: $(cat "$WORK/rows")"
[ "$(awk '{ printf "%s ", $3 }' "$WORK/rows")" = "parallel parallel parallel serial " ] || fail "groups: $(cat "$WORK/rows")"
base=$("$H5GET" "$SWEEP/par-1.h5" /results/time_median)
while read -r file threads mode median speedup efficiency gbs; do
    [ "$median" = "$("$H5GET" "$file" /results/time_median)" ] || fail "$file: median $median is not the file's"
    [ "$gbs" = "$("$H5GET" "$file" /results/gbs_median)" ] || fail "$file: GB/s $gbs is not the file's"
    [ "$threads" = "$("$H5GET" "$file" /results@n_threads)" ] || fail "$file: threads $threads is not the file's"
    if [ "$mode" = serial ]; then want_s=1 want_e=1 # alone in its group
    else
        want_s=$(awk -v a="$base" -v b="$median" 'BEGIN { printf "%.17g", a / b }')
        want_e=$(awk -v s="$want_s" -v t="$threads" 'BEGIN { printf "%.17g", s * 1 / t }')
    fi
    awk -v a="$speedup" -v b="$want_s" -v c="$efficiency" -v d="$want_e" \
        'BEGIN { exit !((a - b) ^ 2 <= (1e-12 * b) ^ 2 && (c - d) ^ 2 <= (1e-12 * d) ^ 2) }' ||
        fail "$file: speed-up $speedup efficiency $efficiency, expected $want_s and $want_e"
done <"$WORK/rows"

# The per-run fields compare has are in report's CSV too, and equal the files' own.
/usr/bin/python3 - "$WORK/report.csv" >"$WORK/more" <<'EOF' || fail "report.csv lacks a field compare has"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print("\t".join([r["file"], r["init_s"], r["time_min_s"], r["iterations"], r["result"], r["start_time"],
                     r["job_id"] or "-", r["disturbed"]]))
EOF
while IFS="$(printf '\t')" read -r file init tmin iters result start job disturbed; do
    for pair in "$init|/timings/init" "$tmin|/results/time_min" "$iters|/timings@n_iterations" \
                "$result|/results/global" "$start|/@start_time"; do
        want=$("$H5GET" "$file" "${pair#*|}")
        [ "${pair%%|*}" = "$want" ] || fail "$file: report says ${pair%%|*} for ${pair#*|}, the file says $want"
    done
    [ "$job" = "-" ] || fail "$file: job id '$job' outside Slurm"
    # compare applies the same rule (tested in cli.compare) to the same file.
    "$TS" compare "$file" "$file" --format json | jq -e --arg d "$disturbed" '.runs[0].disturbed == $d' >/dev/null ||
        fail "$file: report says disturbed '$disturbed', compare does not"
done <"$WORK/more"
[ "$(wc -l <"$WORK/more")" -eq 4 ] || fail "the per-run fields: four rows expected"

# A disturbed run is flagged, with what disturbed it, in every format; a calm one is not.
mkdir "$WORK/flags"
cp "$SWEEP/par-1.h5" "$WORK/flags/calm.h5" && "$DOCTOR" "$WORK/flags/calm.h5" calm || fail "h5_doctor calm"
cp "$WORK/flags/calm.h5" "$WORK/flags/steal.h5" && "$DOCTOR" "$WORK/flags/steal.h5" set:/counters/machine/steal=1000 ||
    fail "h5_doctor set"
run_ts 0 "report of a disturbed run" report "$WORK/flags" --format json &&
    { [ "$(jq -r '[.runs[] | .disturbed] | join(",")' "$OUT")" = no,yes ] || fail "json: calm no, steal yes"; } &&
    { jq -e '.runs[1].disturbed_why | startswith("steal took")' "$OUT" >/dev/null || fail "json: steal named"; }
run_ts 0 "report text of a disturbed run" report "$WORK/flags" &&
    expect_in "$OUT" " disturbed +host +file$" "text: a disturbed column" &&
    expect_in "$OUT" " no +[^ ]+ +$WORK/flags/calm.h5$" "text: the calm run is not disturbed" &&
    expect_in "$OUT" "^disturbed: $WORK/flags/steal.h5: steal took [0-9.]+% of the CPUs' time \(above 2%\)" \
        "text: the note names the steal"

# Repeats at one thread count are one point measured again, not a speed-up: no speed-up among
# them; rows at another count are judged against their median.
mkdir "$WORK/repeats"
cp "$SWEEP/par-2.h5" "$WORK/repeats/a.h5" && cp "$SWEEP/par-2.h5" "$WORK/repeats/b.h5" && cp "$SWEEP/par-4.h5" "$WORK/repeats/c.h5"
run_ts 0 "report of repeats at one thread count" report "$WORK/repeats" --format json &&
    { [ "$(jq -c '[.runs[] | [.threads, .speedup, .efficiency]]' "$OUT")" = "$(jq -nc --argjson a "$("$H5GET" "$SWEEP/par-2.h5" /results/time_median)" --argjson c "$("$H5GET" "$SWEEP/par-4.h5" /results/time_median)" '[[2,null,null],[2,null,null],[4,($a / $c),($a / $c * 2 / 4)]]')" ] ||
        fail "repeats at 2 threads: no speed-up, 4 threads over their median; got $(jq -c '[.runs[] | [.threads, .speedup, .efficiency]]' "$OUT")"; }
run_ts 0 "report text of repeats" report "$WORK/repeats" &&
    expect_in "$OUT" "^ +2 +[0-9.e-]+ +- +- " "text: repeats at the baseline's count show no speed-up"
run_ts 0 "report text, a disturbed run said above the table" report "$WORK/flags" &&
    expect_in "$OUT" "^DISTURBED: 1 of 2 runs: other work took their CPUs" "text: the disturbed count above the numbers" &&
    [ "$(grep -n '^DISTURBED' "$OUT" | cut -d: -f1)" -lt "$(grep -n 'median/iteration' "$OUT" | cut -d: -f1)" ] ||
    fail "text: the disturbed runs are not said before the table"

# report --html says so too, before the numbers and in the tables; a calm set says nothing.
run_ts 0 "report --html of a disturbed run" report --html "$WORK/flags.html" "$WORK/flags" &&
    expect_in "$WORK/flags.html" '<p class="warn disturbed">DISTURBED: 1 of 2 runs: other work took their CPUs' "html: the disturbed count" &&
    expect_in "$WORK/flags.html" '<td class="warn" title="steal took [^"]*">DISTURBED</td>' "html: the disturbed run marked in its table" &&
    [ "$(grep -n 'DISTURBED: 1 of 2' "$WORK/flags.html" | cut -d: -f1)" -lt "$(grep -n '<section id="init"' "$WORK/flags.html" | cut -d: -f1)" ] ||
    fail "html: the disturbed runs are not said before the numbers"
run_ts 0 "report --html of a calm run" report --html "$WORK/calm.html" "$WORK/flags/calm.h5" &&
    expect_not_in "$WORK/calm.html" 'DISTURBED' "html: a calm run called disturbed"
# The scaling chart of repeats: each thread count labelled once on the x axis, not once a run.
run_ts 0 "report --html of repeats" report --html "$WORK/repeats.html" "$WORK/repeats" &&
    { [ "$(grep -o 'class="tick">2<' "$WORK/repeats.html" | wc -l)" = 2 ] ||
        fail "html: the x tick 2 drawn $(grep -o 'class="tick">2<' "$WORK/repeats.html" | wc -l) times in two charts, expected once each"; }

# Files named one by one give the same rows; text and markdown show the groups as headings.
run_ts 0 "report FILES" report "$SWEEP/par-4.h5" "$SWEEP/par-1.h5" --format csv &&
    { [ "$(wc -l <"$OUT")" -eq 3 ] || fail "report of two files: two rows expected"; }
run_ts 0 "report text" report "$SWEEP" &&
    expect_in "$OUT" "^triad 100000, parallel init, policy firsttouch, OMP_PLACES=" "text: group heading" &&
    expect_in "$OUT" "^ +threads +median/iteration \(s\) +speed-up +efficiency" "text: column titles" &&
    expect_in "$OUT" "^ +4 +[0-9.e-]+ +[0-9.]+ +[0-9.]+ " "text: the 4-thread row"
run_ts 0 "report markdown" report "$SWEEP" --format markdown &&
    expect_in "$OUT" "^\*\*triad 100000, serial init" "markdown: group heading" &&
    expect_in "$OUT" "^\*\*triad .* OMP_PLACES=[^ ]+ OMP_PROC_BIND=" "markdown: underscores inside a word as they are (no \\_)" &&
    expect_in "$OUT" "^\| threads \| median/iteration \(s\) \|" "markdown: table header"
run_ts 0 "report json" report "$SWEEP" --format json &&
    { [ "$(jq '[.runs[] | select(.init_mode == "parallel")] | length' "$OUT")" = 3 ] || fail "json: three parallel runs"; }

# Inside a directory, a damaged run file is an error, not skipped: a sweep must not lose a run.
cp "$SWEEP/par-1.h5" "$SWEEP/zz-broken.h5"
"$DOCTOR" "$SWEEP/zz-broken.h5" missing_group || fail "h5_doctor missing_group"
run_ts 2 "damaged run in DIR" report "$SWEEP" && expect_in "$ERR" "$SWEEP/zz-broken.h5: /timings: missing group" "damaged file named"
rm "$SWEEP/zz-broken.h5"
echo "text" >"$SWEEP/zz-text.h5"
run_ts 2 "non-HDF5 .h5 in DIR" report "$SWEEP" && expect_in "$ERR" "$SWEEP/zz-text.h5: not an HDF5 file" "text file named"
# Named on the command line, nothing is skipped.
run_ts 2 "foreign file named" report "$SWEEP/other.h5" && expect_in "$ERR" "other.h5: /@schema_version: missing" "foreign file refused"
mkdir "$WORK/empty"
run_ts 2 "empty directory" report "$WORK/empty" && expect_in "$ERR" "no \*\.h5 files in directory $WORK/empty" "empty directory"
run_ts 2 "report --force" report "$SWEEP" --force && expect_in "$ERR" "--force" "report refuses --force"
run_ts 2 "report without files" report && expect_in "$ERR" "needs run files or a directory" "report without files"
finish
