#!/bin/sh
# SIGKILL from outside at random moments, as a node failure or the OOM killer would: spread over
# init, the iterations, checkpoint writes and the results file write (writes slowed by
# libfaultfs so that they take tens of milliseconds), and anywhere in the run. After each
# kill (lib.sh, after_kill): the file under the final name is the previous one or a complete
# new one, the newest checkpoint written is there and restarts to the bits (result and field)
# of an uninterrupted run. The phase each kill interrupted is read from the trace and counted.
# FAULTS_KILLS=N changes the number of kills (default 40), FAULTS_SEED=S repeats a sequence.
. "$(dirname "$0")/lib.sh"
SLOW=FAULTFS_SLOW=3000:32768
N=${FAULTS_KILLS:-40}
SEED=${FAULTS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $SEED (FAULTS_SEED=$SEED repeats these delays)"

t0=$(date +%s.%N)
# shellcheck disable=SC2086
faulty $SLOW -- run "$KCFG" $KARGS -o "$WORK/ref.h5" -q
expect_status 0 "uninterrupted reference" || finish
run_time=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.3f", $2 - $1 }')
kill_reference

# delay I MAX: the I-th random delay in [0, MAX) seconds, the I-th draw of one sequence. mawk
# clamps a seed above 2^31 - 1, so srand(SEED + I * k) gave every kill of such a seed the same
# delay (seed 2340478201: all eight init kills at 7 ms, too late under load).
delay() {
    awk -v s="$SEED" -v i="$1" -v max="$2" 'BEGIN { srand(s % 2147483647); for (k = 0; k < i; k++) rand()
        printf "%.3f", rand() * max }'
}

# until_seen PATTERN COUNT: polls the trace until PATTERN matched COUNT lines, while $pid lives.
until_seen() {
    while :; do
        seen=$(grep -Ec -- "$1" "$WORK/trace" 2>/dev/null)
        [ "${seen:-0}" -ge "$2" ] && return 0
        kill -0 $pid 2>/dev/null || return 1
        sleep 0.005
    done
}

PHASES=""
ENDED=0
i=1
while [ $i -le "$N" ]; do
    rm -f "$WORK/trace"
    # The delay is drawn before the start: awk takes milliseconds on a loaded machine, as long as
    # the whole start-up to the audit (~7 ms on 2 cores), so init kills under 5 ms sleep not at all.
    case $((i % 5)) in 0) max=0.015 ;; 1) max=0.25 ;; 2) max=0.04 ;; 3) max=0.05 ;; 4) max=$run_time ;; esac
    d=$(delay $i "$max")
    # shellcheck disable=SC2086
    env LD_PRELOAD="$FAULTFS" FAULTFS_TRACE="$WORK/trace" $SLOW "$TS" run "$KCFG" $KARGS -o "$KD/$KNAME.h5" -q \
        --overwrite >"$OUT" 2>"$ERR" &
    pid=$!
    case $((i % 5)) in
    0) target="init"; case $d in 0.00[0-4]) ;; *) sleep "$d" ;; esac ;;
    1) target="kernel"; until_seen ' audit ' 1 && sleep "$d" ;;
    2) target="checkpoint write"; until_seen " open $KD/$KNAME\\.ckpt\\.h5\\.tmp\\." $((1 + i / 5 % 4)) && sleep "$d" ;;
    # The second temporary results file is the write (the first, the output check at start).
    3) target="results file write"; until_seen " open $KD/$KNAME\\.h5\\.tmp\\." 2 && sleep "$d" ;;
    4) target="anywhere"; sleep "$d" ;;
    esac
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    status=$?
    if [ $status -ne 137 ]; then
        ENDED=$((ENDED + 1)) # finished first: its files are checked all the same
        [ $status -eq 0 ] || { fail "kill $i: the run ended with status $status before the kill"; sed 's/^/    /' "$ERR" >&2; }
        after_kill "kill $i (aimed at $target, the run had ended)"
        KILLS=$((KILLS - 1))
    else
        phase=$(phase_of "$WORK/trace")
        PHASES="$PHASES$phase
"
        after_kill "kill $i (aimed at $target, landed in $phase)"
    fi
    i=$((i + 1))
done

echo "random kills: $KILLS (plus $ENDED runs that ended before their kill); restarts from a checkpoint: $RESTARTS"
echo "results file afterwards: previous file kept $KEPT_PREVIOUS times, complete new file $NEW_COMPLETE times"
echo "temporary files left by killed writers (never under a final name, removed): $TEMPS_LEFT"
echo "where the kills landed:"
printf '%s' "$PHASES" | sort | uniq -c | sed 's/^/  /'
for need in init kernel "checkpoint write" "results file write"; do
    printf '%s' "$PHASES" | grep -qx "$need" || fail "no kill landed in $need (seed $SEED); the delays need adjusting"
done
finish
