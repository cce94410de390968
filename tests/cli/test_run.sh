#!/bin/sh
# `touchstone run` on every kernel: verified, summarised, written; output naming and errors.
. "$(dirname "$0")/lib.sh"

for kernel in sum triad stencil2d stencil3d; do
    # shellcheck disable=SC2086
    run_ts 0 "run $kernel" run "$SRC/configs/$kernel.ini" $SMALL -o "$WORK/$kernel.h5" || continue
    expect_in "$OUT" "^touchstone [0-9.]+: $kernel, " "$kernel summary names the kernel"
    expect_in "$OUT" "verified   PASSED" "$kernel verifies"
    expect_in "$OUT" "GB/s median, .* GB/s best  \[[0-9]+ B/" "$kernel states bandwidth with its byte model"
    expect_in "$OUT" "per iteration: min .* median .* max" "$kernel reports min/median/max"
    expect_in "$OUT" "output     $WORK/$kernel.h5" "$kernel names its output"
    [ -s "$WORK/$kernel.h5" ] || fail "$kernel: no output file"
    ls "$WORK" | grep -q '\.tmp' && fail "$kernel: temporary file left behind"
done
expect_in "$OUT" "GLUP/s" "stencils report GLUP/s"

# The final field only on request, with the grid's shape (z, y, x).
# shellcheck disable=SC2086
run_ts 0 "write_field" run "$SRC/configs/stencil3d.ini" $SMALL --set output.write_field=true -o "$WORK/field.h5"
h5dump -H "$WORK/field.h5" >"$WORK/field.txt" 2>&1 || fail "h5dump cannot read field.h5"
expect_in "$WORK/field.txt" 'DATASET "u"' "/field/u written with output.write_field = true"
expect_in "$WORK/field.txt" "SIMPLE \{ \( 16, 48, 64 \)" "/field/u has shape (nz, ny, nx)"

# On a terminal, progress shows after TOUCHSTONE_PROGRESS_DELAY seconds (script(1) gives it a tty).
# shellcheck disable=SC2086
TOUCHSTONE_PROGRESS_DELAY=0 script -qec "$TS run $SRC/configs/stencil2d.ini $SMALL --set run.iterations=8000 -o $WORK/progress.h5" \
    "$WORK/typescript" >/dev/null 2>&1 || fail "long run under script(1) failed"
expect_in "$WORK/typescript" "iteration [0-9]+/8001, [0-9.]+ s elapsed" "progress line on a terminal"
# shellcheck disable=SC2086
run_ts 0 "no progress when not a terminal" run "$SRC/configs/sum.ini" $SMALL -o "$WORK/np.h5"
expect_not_in "$ERR" "elapsed" "no progress line when stderr is not a terminal"

# --quiet prints nothing on success.
# shellcheck disable=SC2086
run_ts 0 "quiet run" run "$SRC/configs/sum.ini" $SMALL -o "$WORK/quiet.h5" --quiet
[ -s "$OUT" ] && fail "--quiet printed to stdout"
[ -s "$WORK/quiet.h5" ] || fail "--quiet run wrote no file"

# Default output name from the template, in the current directory.
cd "$WORK" || exit 1
# shellcheck disable=SC2086
run_ts 0 "default output name" run "$SRC/configs/sum.ini" $SMALL --serial-init
ls "$WORK" | grep -Eq '^touchstone-sum-serial-local-[0-9]{8}-[0-9]{6}\.h5$' || fail "default name: $(ls "$WORK")"
# shellcheck disable=SC2086
SLURM_JOB_ID=4242 run_ts 0 "Slurm job id in the name" run "$SRC/configs/sum.ini" $SMALL -o 'job-%j-%k-%i.h5'
[ -s job-4242-sum-parallel.h5 ] || fail "%j did not expand to the Slurm job id: $(ls "$WORK")"
# shellcheck disable=SC2086
SLURM_JOB_ID=77 SLURM_ARRAY_JOB_ID=70 SLURM_ARRAY_TASK_ID=3 run_ts 0 "array job in the name" run "$SRC/configs/sum.ini" $SMALL -o 'a-%j.h5'
[ -s a-70_3.h5 ] || fail "%j did not expand to <array job>_<task>: $(ls "$WORK")"
# A job id that is not one never becomes part of a path: a '/' would move the file to another
# folder, a newline would go into its name. Refused before the run, naming the variable and its
# value (the newline shown as \n), nothing written anywhere; the same for the array's variables
# and for the default name; a name without %j does not care.
mkdir "$WORK/elsewhere"
for bad in "../elsewhere/x" "12
34" ".." ""; do
    # shellcheck disable=SC2086
    SLURM_JOB_ID=$bad run_ts 2 "SLURM_JOB_ID='$bad' in %j" run "$SRC/configs/sum.ini" $SMALL -o 'jb-%j.h5' &&
        expect_in "$ERR" "^touchstone: error: output.file 'jb-%j.h5': %j would be SLURM_JOB_ID='" "the variable named"
done
expect_in "$ERR" "SLURM_JOB_ID='', which cannot be part of a file name" "an empty job id refused"
# shellcheck disable=SC2086
SLURM_JOB_ID="12
34" run_ts 2 "a newline in SLURM_JOB_ID, the default name" run "$SRC/configs/sum.ini" $SMALL &&
    expect_in "$ERR" 'SLURM_JOB_ID=.12\\n34., which cannot be part of a file name' "the newline shown as a backslash and n"
# shellcheck disable=SC2086
SLURM_JOB_ID=77 SLURM_ARRAY_JOB_ID=70 SLURM_ARRAY_TASK_ID=3/.. run_ts 2 "a '/' in SLURM_ARRAY_TASK_ID" \
    run "$SRC/configs/sum.ini" $SMALL -o 'ab-%j.h5' &&
    expect_in "$ERR" "%j would be SLURM_ARRAY_TASK_ID='3/\.\.'" "the array task variable named"
ls "$WORK/elsewhere" "$WORK" | grep -Eq '^(x|jb|ab-70).*h5$|^12' && fail "a refused job id wrote a file: $(ls "$WORK" "$WORK/elsewhere")"
# shellcheck disable=SC2086
SLURM_JOB_ID=a/b run_ts 0 "a name without %j ignores SLURM_JOB_ID" run "$SRC/configs/sum.ini" $SMALL -o 'nojob.h5'
# shellcheck disable=SC2086
run_ts 2 "bad placeholder" run "$SRC/configs/sum.ini" $SMALL -o 'x-%q.h5'
expect_in "$ERR" "%q" "bad placeholder named"

# Unwritable output: exit 2 before running, the path and the errno text, no file.
# shellcheck disable=SC2086
run_ts 2 "missing output directory" run "$SRC/configs/sum.ini" $SMALL -o "$WORK/missing/out.h5"
expect_in "$ERR" "$WORK/missing/out.h5.*No such file or directory" "missing directory: path and errno text"
[ -e "$WORK/missing" ] && fail "missing directory was created"
# shellcheck disable=SC2086
run_ts 2 "output under /proc" run "$SRC/configs/sum.ini" $SMALL -o /proc/touchstone-test.h5
expect_in "$ERR" "/proc/touchstone-test.h5" "unwritable path named"
# shellcheck disable=SC2086
run_ts 2 "output is a directory" run "$SRC/configs/sum.ini" $SMALL -o "$WORK"
expect_in "$ERR" "$WORK" "directory as output named"

# jobs/run.sbatch's log names the job once: its id, or an array task's <array job>_<task>
# with the task's own id beside it. Run as a batch script would be, with an srun that only
# starts the program (no Slurm here: tests/slurm runs it under one).
mkdir -p "$WORK/fake-srun"
cat >"$WORK/fake-srun/srun" <<'SRUN'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -c) shift 2 ;; -*) shift ;; *) break ;; esac; done
exec "$@"
SRUN
chmod +x "$WORK/fake-srun/srun"
# sbatch_log WHAT ENV...: run.sbatch on sum.ini under ENV; its log in $OUT.
sbatch_log() {
    what=$1
    shift
    # shellcheck disable=SC2086
    expect_run 0 "$what" env "$@" PATH="$WORK/fake-srun:$PATH" TOUCHSTONE="$TS" TOUCHSTONE_RESULTS="$WORK/jobs" \
        bash "$SRC/jobs/run.sbatch" "$SRC/configs/sum.ini" $SMALL -q
}
sbatch_log "run.sbatch, one job" -u SLURM_ARRAY_JOB_ID -u SLURM_ARRAY_TASK_ID SLURM_JOB_ID=77 &&
    expect_in "$OUT" "^run\.sbatch: job 77 on " "run.sbatch names the job once"
expect_not_in "$OUT" "job id" "run.sbatch repeats the job's id"
sbatch_log "run.sbatch, an array task" SLURM_JOB_ID=1234 SLURM_ARRAY_JOB_ID=1200 SLURM_ARRAY_TASK_ID=3 &&
    expect_in "$OUT" "^run\.sbatch: job 1200_3 \(array task 3 of job 1200, job id 1234\) on " \
        "run.sbatch names an array task and its own id"
[ -s "$WORK/jobs/run-sum-parallel-1200_3.h5" ] || fail "run.sbatch, an array task: no results file named after the task"
finish
