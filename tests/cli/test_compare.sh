#!/bin/sh
# touchstone compare on a serial-init and a parallel-init run made here: every number in its
# CSV is the files' own (read back with h5_get) or follows from them as documented; runs of
# different problems are refused unless --force; every format prints.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}

ITER="--set run.iterations=20"
# shellcheck disable=SC2086
run_ts 0 "parallel-init run" run "$SRC/configs/stencil2d.ini" $SMALL $ITER -o "$WORK/par.h5" -q || finish
# shellcheck disable=SC2086
run_ts 0 "serial-init run" run "$SRC/configs/stencil2d.ini" $SMALL $ITER --serial-init -o "$WORK/ser.h5" -q || finish
run_ts 0 "compare --format csv" compare "$WORK/par.h5" "$WORK/ser.h5" --format csv || finish
cp "$OUT" "$WORK/cmp.csv"

# csv_field ROW KEY: the value in data row ROW (1-based) under header KEY.
csv_field() {
    awk -F, -v row="$1" -v key="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == key) c = i; next }
                                     NR == row + 1 && c { print $c }' "$WORK/cmp.csv"
}
# same WHAT A B: A and B are the same number within 1e-12 (relative).
same() {
    awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a);
                                     exit !(a != "" && b != "" && d <= 1e-12 * m) }' ||
        fail "$1: compare printed '$2', expected '$3'"
}

[ "$(wc -l <"$WORK/cmp.csv")" -eq 3 ] || fail "csv: a header and two rows expected, got $(wc -l <"$WORK/cmp.csv") lines"
row=1
for f in par ser; do
    h5="$WORK/$f.h5"
    [ "$(csv_field $row file)" = "$h5" ] || fail "row $row names $(csv_field $row file), expected $h5"
    # Printed with %.17g from the same doubles h5_get prints with %.17g: equal as text.
    for pair in time_median_s:/results/time_median time_min_s:/results/time_min gbs_median:/results/gbs_median \
                glups_median:/results/glups_median init_s:/timings/init result:/results/global \
                local_fraction:/placement/local_fraction threads:/results@n_threads init_mode:/results@init_mode \
                kernel:/results@kernel host:/@host warnings:/warnings@count; do
        key=${pair%%:*}
        want=$("$H5GET" "$h5" "${pair#*:}")
        [ "$(csv_field $row "$key")" = "$want" ] || fail "$f: $key is '$(csv_field $row "$key")', the file says '$want'"
    done
    [ "$(csv_field $row omp_places)" = "$("$H5GET" "$h5" /threads@OMP_PLACES)" ] || fail "$f: omp_places"
    [ "$(csv_field $row policy)" = "$("$H5GET" "$h5" /config@init.policy)" ] || fail "$f: policy"
    [ "$(csv_field $row verified)" = PASSED ] || fail "$f: verified is '$(csv_field $row verified)'"

    # Quartiles of /timings/iteration by linear interpolation, computed here independently.
    "$H5GET" "$h5" /timings/iteration | sort -g >"$WORK/sorted"
    for q in 1 3; do
        want=$(awk -v q="$q" '{ v[NR - 1] = $1 } END { p = q / 4 * (NR - 1); i = int(p);
                                                     printf "%.17g", v[i] + (p - i) * (v[i + 1] - v[i]) }' "$WORK/sorted")
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
    row=$((row + 1))
done

# Speed-up: run 1's median over this run's; its range from the quartiles; the verdict from
# whether the middle halves overlap.
p_med=$(csv_field 1 time_median_s) s_med=$(csv_field 2 time_median_s)
same "speed-up of run 1" "$(csv_field 1 speedup)" 1
same "speed-up of run 2" "$(csv_field 2 speedup)" "$(awk -v a="$p_med" -v b="$s_med" 'BEGIN { printf "%.17g", a / b }')"
same "speed-up low" "$(csv_field 2 speedup_low)" \
    "$(awk -v a="$(csv_field 1 time_q1_s)" -v b="$(csv_field 2 time_q3_s)" 'BEGIN { printf "%.17g", a / b }')"
same "speed-up high" "$(csv_field 2 speedup_high)" \
    "$(awk -v a="$(csv_field 1 time_q3_s)" -v b="$(csv_field 2 time_q1_s)" 'BEGIN { printf "%.17g", a / b }')"
verdict=$(awk -v p1="$(csv_field 1 time_q1_s)" -v p3="$(csv_field 1 time_q3_s)" \
              -v s1="$(csv_field 2 time_q1_s)" -v s3="$(csv_field 2 time_q3_s)" \
              'BEGIN { print (s3 < p1) ? "faster" : (s1 > p3) ? "slower" : "within noise" }')
[ "$(csv_field 2 difference)" = "$verdict" ] || fail "difference is '$(csv_field 2 difference)', expected '$verdict'"
[ "$(csv_field 1 difference)" = reference ] || fail "run 1 is not the reference"
[ "$(csv_field 2 same_result)" = identical ] || fail "serial and parallel init gave different results"

# The other formats: people's text side by side, markdown, and JSON with the same rows.
run_ts 0 "compare text" compare "$WORK/par.h5" "$WORK/ser.h5" &&
    expect_in "$OUT" "^speed-up vs run 1 +1\.000 +[0-9.]+$" "text: speed-up row, one column per run" &&
    expect_in "$OUT" "^init mode +parallel +serial$" "text: init modes side by side"
run_ts 0 "compare markdown" compare "$WORK/par.h5" "$WORK/ser.h5" --format markdown &&
    expect_in "$OUT" "^\| file \| $WORK/par.h5 \| $WORK/ser.h5 \|$" "markdown: header row names the files" &&
    expect_in "$OUT" "^\| --- \| --- \| --- \|$" "markdown: separator row"
run_ts 0 "compare json" compare "$WORK/par.h5" "$WORK/ser.h5" --format json &&
    { [ "$(jq '.runs | length' "$OUT")" = 2 ] || fail "json: two runs expected"; } &&
    { [ "$(jq -r '.runs[1].init_mode' "$OUT")" = serial ] || fail "json: run 2 is the serial one"; }

# Different problems: refused, naming the fields and the files; accepted with --force.
# shellcheck disable=SC2086
run_ts 0 "sum run" run "$SRC/configs/sum.ini" $SMALL -o "$WORK/sum.h5" -q
# shellcheck disable=SC2086
run_ts 0 "bigger grid" run "$SRC/configs/stencil2d.ini" $SMALL --set stencil.nx=80 -o "$WORK/big.h5" -q
run_ts 2 "different kernels refused" compare "$WORK/par.h5" "$WORK/sum.h5" &&
    expect_in "$ERR" "differ in kernel \($WORK/par.h5: stencil2d, $WORK/sum.h5: sum\) and size" "refusal names kernel and files" &&
    expect_in "$ERR" "--force" "refusal names --force"
run_ts 2 "different sizes refused" compare "$WORK/par.h5" "$WORK/big.h5" &&
    expect_in "$ERR" "differ in size \($WORK/par.h5: 64 x 48, $WORK/big.h5: 80 x 48\)" "refusal names the sizes"
expect_not_in "$ERR" "kernel \(" "same kernels are not listed as different"
run_ts 0 "--force compares anyway" compare "$WORK/par.h5" "$WORK/sum.h5" --force --format csv &&
    { [ "$(wc -l <"$OUT")" -eq 3 ] || fail "--force: two rows expected"; } &&
    expect_in "$OUT" ",differs," "--force: the results differ"
run_ts 0 "--force text" compare "$WORK/par.h5" "$WORK/sum.h5" --force &&
    expect_in "$OUT" "force: they differ in kernel" "--force says what differs"

# Usage errors.
run_ts 2 "one file" compare "$WORK/par.h5" && expect_in "$ERR" "at least two run files" "one file refused"
run_ts 2 "a directory" compare "$WORK" "$WORK/par.h5" && expect_in "$ERR" "is a directory" "directory refused"
run_ts 2 "unknown format" compare "$WORK/par.h5" "$WORK/ser.h5" --format xml &&
    expect_in "$ERR" "unknown --format 'xml' \(formats: text, csv, json, markdown\)" "bad format named"
run_ts 0 "compare --help" compare --help && expect_in "$OUT" "touchstone compare A.h5 B.h5" "compare --help"
finish
