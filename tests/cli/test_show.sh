#!/bin/sh
# touchstone show FILE: the warnings and the summary a run printed, again, exactly; --format
# json: the reader's fields, the summary's lines and the warnings; the build facts the file records are
# --version's (one source); a schema 1 file (no stored
# summary) shows what the reader has and says so; what show refuses.
. "$(dirname "$0")/lib.sh"
H5GET=${3:?path to h5_get}
DOCTOR=${4:?path to h5_doctor}

cd "$WORK" || exit 1
# OMP_PLACES from the environment against the config's cores: a warning the run prints.
# shellcheck disable=SC2086
OMP_PLACES=threads "$TS" run "$SRC/configs/stencil2d.ini" $SMALL -o run.h5 >run.out 2>run.err ||
    { fail "the run failed: $(cat run.err)"; finish; }
grep '^touchstone: warning: ' run.err >printed
[ -s printed ] || fail "the run printed no warning to show again"
cat run.out >>printed

# The build facts the file records are --version's, from one source (app/build_info.c).
"$TS" --version >version || fail "--version failed"
for pair in commit:build_commit compiler:build_compiler OpenMP:build_openmp MPI:build_mpi HDF5:build_hdf5; do
    want=$(sed -n "s/^${pair%%:*} *//p" version)
    got=$("$H5GET" run.h5 "/@${pair#*:}")
    [ -n "$want" ] && [ "$got" = "$want" ] || fail "/@${pair#*:} is '$got', --version says '$want'"
done
built="# built from commit $(sed -n 's/^commit *//p' version) by $(sed -n 's/^compiler *//p' version); OpenMP $(
    sed -n 's/^OpenMP *//p' version); MPI $(sed -n 's/^MPI *//p' version); HDF5 $(sed -n 's/^HDF5 *//p' version)"

run_ts 0 "show" show run.h5 || finish
expect_in "$OUT" "^# run\.h5: written by touchstone [^ ]+ on [^ ]+ at [0-9TZ:-]+ \(schema_version 4\)$" "show: the heading"
[ "$(sed -n 2p "$OUT")" = "$built" ] || fail "show: the build line is '$(sed -n 2p "$OUT")', expected '$built'"
tail -n +3 "$OUT" >shown
cmp -s shown printed || { fail "show does not print what the run printed"; diff printed shown | head -10 >&2; }

run_ts 0 "show --format json" show run.h5 --format json || finish
cp "$OUT" show.json
# The summary's lines and the warnings, as printed; the reader's fields, as stored.
jq -r '.summary[]' show.json >lines
cmp -s lines run.out || fail "json: .summary is not the summary the run printed"
jq -r '.warnings[] | "touchstone: warning: " + .' show.json >warnings
grep '^touchstone: warning: ' run.err | cmp -s - warnings || fail "json: .warnings are not the run's warnings"
for pair in kernel:/results@kernel threads:/results@n_threads iterations:/timings@n_iterations \
            init_mode:/results@init_mode omp_places:/threads@OMP_PLACES host:/@host schema_version:/@schema_version \
            time_median_s:/results/time_median result:/results/global kernel_s:/timings/kernel \
            n_warnings:/warnings@count; do
    key=${pair%%:*}
    want=$("$H5GET" run.h5 "${pair#*:}")
    got=$(jq -r ".$key" show.json)
    awk -v a="$got" -v b="$want" 'BEGIN { exit !(a == b || (a + 0 == b + 0 && a != "" && b != "")) }' ||
        fail "json: .$key is '$got', the file says '$want'"
done
[ "$(jq -r '.machine.cpus' show.json)" = "$("$H5GET" run.h5 /counters/machine@cpus)" ] || fail "json: .machine.cpus"
[ "$(jq -r '.involuntary_switches' show.json)" = "$("$H5GET" run.h5 /counters/kernel:involuntary_switches |
    awk '{ s += $1 } END { print s + 0 }')" ] || fail "json: .involuntary_switches is not the threads' sum"
jq -e '.disturbed | test("^(yes|no)$")' show.json >/dev/null || fail "json: .disturbed"
[ "$(jq -r '.build | "# built from commit \(.commit) by \(.compiler); OpenMP \(.openmp); MPI \(.mpi); HDF5 \(.hdf5)"' \
    show.json)" = "$built" ] || fail "json: .build is not what --version says"
jq -e 'has("iteration") | not' show.json >/dev/null || fail "json: the per-iteration arrays are left out"

# A file from before schema 2 holds no summary: show says so and prints what the reader has.
cp run.h5 old.h5 && "$DOCTOR" old.h5 schema1 || fail "h5_doctor schema1"
run_ts 0 "show a schema 1 file" show old.h5 &&
    expect_in "$OUT" "^# old\.h5: .*\(schema_version 1\); the file predates stored summaries" "schema 1: says so" &&
    expect_not_in "$OUT" "^# built " "schema 1: no build line (the file records none)" &&
    expect_in "$OUT" "^touchstone: warning: OMP_PLACES=threads" "schema 1: the warnings still" &&
    expect_in "$OUT" "^  kernel     3 iterations \(\+1 warm-up\), per iteration: min [0-9.e-]+ s, median $(
        awk -v m="$("$H5GET" old.h5 /results/time_median)" 'BEGIN { printf "%.4g", m }') s" "schema 1: the kernel line"
run_ts 0 "show a schema 1 file as json" show old.h5 --format json &&
    { [ "$(jq -r '[.schema_version, .summary, .machine, .build, .wait_s] | map(tostring) | join(",")' "$OUT")" = 1,null,null,null,null ] ||
          fail "json: schema 1 has no summary, no machine, no build and no wait for a CPU"; }
# The threads' wait for a CPU (the disturbance rule's measure): the file's, summed.
run_ts 0 "show as json: the wait" show run.h5 --format json &&
    { [ "$(jq -r '.wait_s' "$OUT")" = "$("$H5GET" run.h5 /counters/kernel:wait_time | jq -s 'add')" ] ||
          fail "json: wait_s $(jq -r '.wait_s' "$OUT"), the file's wait_time $("$H5GET" run.h5 /counters/kernel:wait_time | tr '\n' ' ')"; }

# Refusals: exit 2 and nothing on stdout.
run_ts 2 "show without a file" show && expect_in "$ERR" "show: needs one run file" "no file"
run_ts 2 "show two files" show run.h5 old.h5 && expect_in "$ERR" "show: needs one run file, not several" "two files"
run_ts 2 "show --format csv" show run.h5 --format csv && expect_in "$ERR" "unknown --format 'csv' \(formats: text, json\)" "csv"
run_ts 2 "show a missing file" show nothing.h5 && expect_in "$ERR" "nothing\.h5" "missing file named"
cp run.h5 broken.h5 && "$DOCTOR" broken.h5 missing_group
run_ts 2 "show a damaged file" show broken.h5 && expect_in "$ERR" "broken\.h5: /timings: missing group" "damage named"
"$DOCTOR" ckpt.h5 checkpoint
run_ts 2 "show a checkpoint" show ckpt.h5 && expect_in "$ERR" "a touchstone checkpoint, not a run file" "checkpoint"
[ -s "$OUT" ] && fail "a refused show printed something"
"$TS" show run.h5 >/dev/full 2>"$ERR"
[ $? -eq 2 ] || fail "show > /dev/full: exit status not 2"
expect_in "$ERR" "show: cannot print run\.h5" "show > /dev/full says so"
run_ts 0 "--help names show" --help && expect_in "$OUT" "touchstone show FILE.h5 \[--format text\|json\]" "--help"
finish
