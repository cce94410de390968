#!/bin/sh
# Whether two runs of the deterministic exploration did the same (the check behind "two runs of
# make test give the same fuzz verdict"; run it by hand, it is no test of the suite):
#   same_exploration.sh A B
# A and B: copies of a build-fuzz/tests/fuzz/explore directory after `make test-fuzz`, from two
# runs, two checkouts or two machines. Per harness: the same new inputs (libFuzzer names each by
# its SHA-1), the same inputs found and dropped, and libFuzzer logs that agree line by line
# once what depends on the clock, on addresses and on paths is left out (executions per second,
# memory, the "pulse" lines libFuzzer prints by the clock, process ids). Exit status 0 when all
# agree, 1 otherwise, saying where.
set -u
A=$1 B=$2
status=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# The part of a libFuzzer log that must not change between runs.
stable() {
    grep -Ev 'pulse|^INFO: Loaded|^INFO: +[0-9]+ files found|^Done [0-9]+ runs in|stat::(average_exec_per_sec|peak_rss_mb|slowest_unit_time_sec)' "$1" |
        sed -E 's/exec\/s: [0-9]+ ?//; s/rss: [0-9]+Mb ?//; s/0x[0-9a-f]+/ADDR/g; s/==[0-9]+==/==PID==/g;
                s/\(BuildId: [0-9a-f]+\)//; s#/[^ :()]*/(app|io|common|topo|kernels|tests|build[^/ ]*)/#SRC/\1/#g;
                s/(for|after) [0-9]+ seconds/\1 N seconds/; s/#[0-9]+ ADDR in/# ADDR in/'
}

# The files of a directory (none when it is missing), without the judge's notes.
listing() {
    [ -d "$1" ] || return 0
    (cd "$1" && find . -type f ! -name '*.replay' ! -name '*.product' | LC_ALL=C sort)
}

for dir in "$A"/*/; do
    name=$(basename "$dir")
    [ -d "$B/$name" ] || { echo "$name: only in $A"; status=1; continue; }
    same=1
    for sub in corpus found dropped; do
        listing "$A/$name/$sub" >"$T/a"
        listing "$B/$name/$sub" >"$T/b"
        if ! cmp -s "$T/a" "$T/b"; then
            echo "$name: $sub differs:"
            diff "$T/a" "$T/b" | head -5
            same=0
        fi
    done
    for log in "$A/$name"/part*.log; do
        [ -f "$log" ] || continue
        other=$B/$name/$(basename "$log")
        stable "$log" >"$T/a"
        [ -f "$other" ] && stable "$other" >"$T/b" || : >"$T/b"
        if ! cmp -s "$T/a" "$T/b"; then
            echo "$name: $(basename "$log") differs:"
            diff "$T/a" "$T/b" | head -6
            same=0
        fi
    done
    parts=$(ls "$A/$name"/part*.log 2>/dev/null | wc -l)
    [ "$parts" -eq "$(ls "$B/$name"/part*.log 2>/dev/null | wc -l)" ] || { echo "$name: a different number of parts"; same=0; }
    if [ "$same" -eq 1 ]; then
        echo "$name: the same ($parts part(s), $(listing "$A/$name/corpus" | wc -l) new inputs, $(listing "$A/$name/found" | wc -l) found, $(stable "$A/$name/fuzz.log" | wc -l) log lines)"
    else
        status=1
    fi
done
exit $status
