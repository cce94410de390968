#!/bin/sh
# Command-line usage errors: each has exit status 2 and a message naming the problem.
. "$(dirname "$0")/lib.sh"

run_ts 0 "--help" --help && expect_in "$OUT" "usage: touchstone run CONFIG" "--help prints usage"
run_ts 0 "run --help" run --help && expect_in "$OUT" "exit status: 0 verified run" "run --help documents exit codes"
# --version: the version first (scripts read it), then what a support desk asks: the commit, the
# compiler, OpenMP, the MPI and HDF5 libraries (docs/usage.md).
if run_ts 0 "--version" --version; then
    [ "$(head -1 "$OUT")" = "touchstone $(sed -n 's/^ *VERSION \([0-9.]*\)$/\1/p' "$SRC/CMakeLists.txt")" ] ||
        fail "--version's first line '$(head -1 "$OUT")' is not 'touchstone' and the project's VERSION of CMakeLists.txt"
    expect_in "$OUT" "^commit    [^ ]+$" "--version: the commit"
    if git -C "$SRC" rev-parse HEAD >/dev/null 2>&1; then
        commit=$(sed -n 's/^commit    //p' "$OUT")
        git -C "$SRC" rev-parse --verify -q "$commit^{commit}" >/dev/null ||
            fail "--version: commit '$commit' is not a commit of $SRC"
    fi
    expect_in "$OUT" "^compiler  (GCC|clang) [0-9]+\.[0-9]+" "--version: the compiler"
    expect_in "$OUT" "^OpenMP    [0-9.]+.* \(_OPENMP [0-9]{6}\)$" "--version: OpenMP"
    expect_in "$OUT" "^MPI       Open MPI v[0-9]" "--version: the MPI library"
    expect_in "$OUT" "^HDF5      [0-9]+\.[0-9]+\.[0-9]+ \(parallel\)$" "--version: the HDF5 library"
    [ "$(wc -l <"$OUT")" -eq 6 ] || fail "--version: $(wc -l <"$OUT") lines, expected 6"
fi
# The binary's RUNPATH (a build tree's): no empty element, which the loader reads as the current
# directory and probes for every library at every start (issue 28: ~140 failed opens a process).
if command -v readelf >/dev/null 2>&1; then
    runpath=$(readelf -d "$TS" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
    case ":$runpath:" in
    *::*) [ -z "$runpath" ] || fail "RUNPATH '$runpath' has an empty element: the loader searches the current directory" ;;
    esac
fi
# check --keys: every key check resolves for a config, and only those (what completion offers),
# then the values of a key that takes a closed set, each of which the config takes.
if run_ts 0 "check --keys" check --keys; then
    cut -d' ' -f1 "$OUT" >"$WORK/keys"
    for k in run.kernel:sum sum.mode:fast init.policy:bind: openmp.places:numa_domains placement.audit:false mpi.dims:auto; do
        grep -q "^${k%%:*} \(.* \)*${k#*:}\( \|\$\)" "$OUT" || fail "check --keys: ${k%%:*} without the value ${k#*:}"
    done
    grep -q '^stencil\.nx$' "$OUT" || fail "check --keys: stencil.nx (a number) with values"
    # Round r sets the r-th value of every key that has one, in one check ("bind:" with a node):
    # the config reads each (this machine may still refuse one, e.g. ll_caches in a VM).
    r=2
    # shellcheck disable=SC2046 # one --set and one key=value a word
    while set -- $(awk -v r="$r" 'NF >= r { v = $r; if (v ~ /:$/) v = v "0"; printf "--set %s=%s\n", $1, v }' "$OUT") &&
        [ $# -gt 0 ]; do
        "$TS" check "$SRC/configs/default.ini" "$@" >/dev/null 2>"$ERR" ||
            ! grep -E '^touchstone: error: --set [^ ]+: .*, must be ' "$ERR" >"$WORK/refused" ||
            fail "check --keys: a value the config refuses: $(head -1 "$WORK/refused")"
        r=$((r + 1))
    done
    run_ts 0 "check default.ini" check "$SRC/configs/default.ini" &&
        awk '/^\[/ { gsub(/[][]/, ""); s = $0; next } /^[a-z_]+ = / { print s "." $1 }' "$OUT" | sort >"$WORK/resolved"
    sort -c "$WORK/keys" 2>/dev/null && fail "check --keys: sorted, expected the key table's order (run.kernel first)"
    sort "$WORK/keys" | cmp -s - "$WORK/resolved" ||
        fail "check --keys differs from the keys check prints: $(sort "$WORK/keys" | diff - "$WORK/resolved" | grep '^[<>]' | head -5 | tr '\n' ' ')"
fi
run_ts 2 "check --keys CONFIG" check --keys "$SRC/configs/default.ini" &&
    expect_in "$ERR" "check --keys: unexpected argument .*give no CONFIG" "check --keys with a CONFIG"
run_ts 2 "run --keys" run --keys && expect_in "$ERR" "run: unknown option '--keys' \(an option of check" "run --keys"
run_ts 2 "no arguments" && expect_in "$ERR" "no command given" "no arguments"
run_ts 2 "unknown command" frobnicate && expect_in "$ERR" "unknown command 'frobnicate'" "unknown command"
run_ts 2 "run without config" run && expect_in "$ERR" "missing CONFIG" "run without config"
run_ts 2 "check without config" check && expect_in "$ERR" "missing CONFIG" "check without config"
run_ts 2 "unknown option" run "$SRC/configs/default.ini" --bogus && expect_in "$ERR" "unknown option '--bogus'" "unknown option"
run_ts 2 "--threads without value" run "$SRC/configs/default.ini" --threads && expect_in "$ERR" "needs a value" "--threads without value"
run_ts 2 "--set without value" run "$SRC/configs/default.ini" --set && expect_in "$ERR" "needs a value" "--set without value"
run_ts 2 "two config files" run "$SRC/configs/default.ini" "$SRC/configs/sum.ini" && expect_in "$ERR" "unexpected argument" "two config files"
run_ts 2 "check: unknown option" check "$SRC/configs/default.ini" --bogus && expect_in "$ERR" "check: unknown option '--bogus'" "check --bogus"
run_ts 2 "missing config file" run "$WORK/nope.ini" && expect_in "$ERR" "nope.ini.*No such file or directory" "missing config file"
run_ts 2 "config is a directory" check "$WORK" && expect_in "$ERR" "$WORK" "config path that is a directory"
# Errors of the options that stand for --set name the option as typed.
for cmd in run check; do
    run_ts 2 "$cmd --threads not a number" $cmd "$SRC/configs/default.ini" --threads many &&
        expect_in "$ERR" "^touchstone: error: --threads many: not an integer, must be 0\.\.4096$" "$cmd --threads many"
    run_ts 2 "$cmd --threads out of range" $cmd "$SRC/configs/default.ini" --threads 5000 &&
        expect_in "$ERR" "^touchstone: error: --threads 5000: out of range, must be 0\.\.4096$" "$cmd --threads 5000"
    run_ts 2 "$cmd --threads=-1" $cmd "$SRC/configs/default.ini" --threads=-1 &&
        expect_in "$ERR" "^touchstone: error: --threads -1: out of range" "$cmd --threads=-1"
    run_ts 2 "$cmd -o with an unknown placeholder" $cmd "$SRC/configs/default.ini" -o 'run-%x.h5' &&
        expect_in "$ERR" "^touchstone: error: -o run-%x.h5: unknown placeholder '%x'" "$cmd -o run-%x.h5"
    run_ts 2 "$cmd --output with a comment" $cmd "$SRC/configs/default.ini" --output 'a ;b.h5' &&
        expect_in "$ERR" "^touchstone: error: --output a ;b.h5: a ';' after a space" "$cmd --output 'a ;b.h5'"
done
run_ts 2 "--set unknown key" run "$SRC/configs/default.ini" --set stencil.nxx=3 && expect_in "$ERR" "nxx" "--set unknown key"
run_ts 2 "--set malformed" run "$SRC/configs/default.ini" --set nodot && expect_in "$ERR" "nodot" "--set malformed"
finish
