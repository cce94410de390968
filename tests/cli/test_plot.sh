#!/bin/sh
# touchstone plot: each kind makes a picture of the size asked for, with a picture in it (pixel
# values vary), in the format its extension names; bad files and unknown formats are refused
# before Python starts. The layout is checked by plot.py itself (a text outside the picture or
# over another one, a legend over a panel: a warning) at sizes from 300x200 to 3000x2000, the
# axes and error bars through TOUCHSTONE_PLOT_AXES=1, the legend and colour bars in SVG text.
. "$(dirname "$0")/lib.sh"
PYTHON=${3:?path to the Python with matplotlib}

for t in 1 2; do
    for mode in parallel serial; do
        # shellcheck disable=SC2086
        run_ts 0 "$mode $t-thread run" run "$SRC/configs/stencil2d.ini" $SMALL --set run.iterations=8 \
            --threads "$t" --set init.mode=$mode -o "$WORK/$mode-$t.h5" -q || finish
    done
done

# plot_ok DESCRIPTION OUTPUT ARGS...: exit 0, says where the picture went, no layout warning.
plot_ok() {
    what=$1
    out=$2
    shift 2
    run_ts 0 "$what" plot "$@" -o "$out" || return 1
    expect_in "$OUT" "^touchstone plot: wrote $out \((vector, )?[0-9]+ x [0-9]+ px\)$" "$what: the 'wrote' line"
    expect_not_in "$ERR" "warning|Warning" "$what: nothing clipped, overlapping or collapsed"
}

# Each: the IHDR dimensions, and more than a blank canvas. One Python for all (it starts slowly).
# Sizes from small to large, every kind: nothing may fall out of the picture. Four timelines
# do not fit in 200 px: the picture shows as many as fit and says so. An upper-case extension
# is the same format.
plot_ok "scaling 300x200" "$WORK/s300.png" "$WORK" --size 300x200
plot_ok "scaling 3000x2000" "$WORK/s3000.png" "$WORK" --size 3000x2000
plot_ok "init 400x300" "$WORK/i400.png" "$WORK/serial-1.h5" "$WORK/parallel-2.h5" "$WORK/serial-2.h5" --kind init --size 400x300
# Init of eight runs: their tick labels side by side would overlap (plot.py warns of it), so
# they stand upright. Scaling at one thread count: no "ideal" line, so no legend entry for it.
mkdir "$WORK/eight"
for k in 1 2; do
    for f in parallel-1 parallel-2 serial-1 serial-2; do cp "$WORK/$f.h5" "$WORK/eight/$f-$k.h5"; done
done
plot_ok "init of eight runs" "$WORK/i8.png" "$WORK/eight" --kind init --size 800x600
rm -rf "$WORK/eight" # the directory plots below are of $WORK's four runs
plot_ok "scaling of one thread count" "$WORK/one.svg" "$WORK/parallel-1.h5" "$WORK/serial-1.h5" --size 800x600
grep -q -- "<!-- ideal (linear) -->" "$WORK/one.svg" && fail "scaling of one thread count: an 'ideal' legend entry for no line"
plot_ok "timeline 300x200" "$WORK/t300.png" "$WORK" --kind timeline --size 300x200
expect_in "$ERR" "timeline shows the first [1-3] of 4 files" "a small timeline says what it left out"
plot_ok "timeline as .PNG" "$WORK/timeline.PNG" "$WORK/parallel-2.h5" --kind timeline --size 640x480
expect_in "$OUT" "wrote $WORK/timeline.PNG \(640 x 480 px\)" "the PNG's size in the 'wrote' line"
"$PYTHON" - "$WORK/s300.png" 300 200 "$WORK/s3000.png" 3000 2000 "$WORK/i400.png" 400 300 "$WORK/t300.png" 300 200 \
    "$WORK/timeline.PNG" 640 480 <<'PY' || fail "PNG checks"
import struct, sys
import matplotlib.image as mpimg
import numpy as np
bad = 0
args = sys.argv[1:]
for path, width, height in zip(args[0::3], map(int, args[1::3]), map(int, args[2::3])):
    try:
        head = open(path, "rb").read(24)
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", "no PNG signature and IHDR"
        w, h = struct.unpack(">II", head[16:24])
        assert (w, h) == (width, height), "PNG is %dx%d, expected %dx%d" % (w, h, width, height)
        pixels = mpimg.imread(path, format="png")
        assert pixels.shape[:2] == (height, width), "pixel data is %s" % (pixels.shape,)
        colours = len({tuple(p) for p in pixels.reshape(-1, pixels.shape[2])[::7]})
        assert pixels.std() > 0.05 and colours > 20, "blank (std %.3f, %d colours)" % (pixels.std(), colours)
        # Nothing cut off at the edges: the outermost two pixels all around are background.
        rgb = pixels[:, :, :3]
        frame = np.concatenate([rgb[:2].reshape(-1, 3), rgb[-2:].reshape(-1, 3),
                                rgb[:, :2].reshape(-1, 3), rgb[:, -2:].reshape(-1, 3)])
        assert frame.min() > 0.98, "something drawn up to the edge (clipped): %d non-white pixels" % (frame.min(axis=1) <= 0.98).sum()
    except (OSError, AssertionError) as e:
        print("FAILED: %s: %s" % (path, e), file=sys.stderr)
        bad = 1
sys.exit(bad)
PY

# The extension names the format: magic bytes of each (JPEG only where Pillow is, as matplotlib
# writes it through Pillow). The SVGs are checked further below.
plot_ok "init as PDF" "$WORK/init.pdf" "$WORK/parallel-2.h5" "$WORK/serial-2.h5" --kind init --size 2000x1200
magic() { od -An -c -N "$2" "$1" 2>/dev/null | tr -d ' \n'; }
[ "$(magic "$WORK/init.pdf" 5)" = "%PDF-" ] || fail "init.pdf is not PDF: $(magic "$WORK/init.pdf" 8)"
if "$PYTHON" -c "import PIL" 2>/dev/null; then
    plot_ok "plot as JPEG" "$WORK/timeline.jpg" "$WORK/parallel-2.h5" --kind timeline
    [ "$(magic "$WORK/timeline.jpg" 3)" = "377330377" ] || fail "timeline.jpg is not JPEG: $(magic "$WORK/timeline.jpg" 8)"
else
    run_ts 2 "plot as JPEG without Pillow" plot "$WORK/parallel-2.h5" -o "$WORK/timeline.jpg" &&
        expect_in "$ERR" "JPEG needs Pillow \(Debian: python3-pil\)" "why JPEG is refused"
    [ -e "$WORK/timeline.jpg" ] && fail "a .jpg was written without Pillow"
fi

# Scaling: both axes from 0; error bars are the quartiles of /timings/iteration combined as
# compare combines them (speed-up: q1 of the fewest-thread run / q3 of this one, up to q3 / q1;
# GB/s: the median's GB/s x median / q3 up to x median / q1); the legend names the variables.
TOUCHSTONE_PLOT_AXES=1 plot_ok "scaling as SVG, its axes printed" "$WORK/axes.svg" "$WORK" --size 1000x600
if [ "$(magic "$WORK/axes.svg" 5)" != "<?xml" ] || ! grep -q "<svg" "$WORK/axes.svg"; then
    fail "axes.svg is not SVG: $(magic "$WORK/axes.svg" 8)"
fi
"$PYTHON" - "$ERR" "$WORK" <<'PY' || fail "scaling axes and error bars"
import re, sys
import h5py
import numpy as np
lines = open(sys.argv[1]).read().splitlines()
bad = 0
def check(ok, what):
    global bad
    if not ok:
        print("FAILED: " + what, file=sys.stderr)
        bad = 1
def run(name):
    with h5py.File("%s/%s.h5" % (sys.argv[2], name)) as f:
        q1, q3 = np.percentile(f["timings/iteration"][()], [25, 75])
        return q1, q3, f["results/time_median"][()], f["results/gbs_median"][()]
axes = {m.group(1): float(m.group(2)) for m in (re.match(r".*axes '(.*)': x .*, y (\S+)\.\.", l) for l in lines) if m}
check(axes.get("speed-up over the fewest threads") == 0, "speed-up axis starts at 0: %s" % axes)
check(axes.get("GB/s at the median iteration") == 0, "GB/s axis starts at 0: %s" % axes)
bars = {}
for l in lines:
    m = re.match(r".*error bar '(.*)' '(.*)': x (\S+), y (\S+), (\S+)\.\.(\S+)$", l)
    if m:
        bars[(m.group(1), m.group(2), round(float(m.group(3))))] = tuple(map(float, m.group(4, 5, 6)))
check(len(bars) == 8, "8 error bars (2 panels x 2 lines x 2 thread counts), got %d" % len(bars))
p1, p2 = run("parallel-1"), run("parallel-2")
line = "parallel init, OMP_PLACES=cores OMP_PROC_BIND=close"
expect = {("speed-up over the fewest threads", 2): (p1[2] / p2[2], p1[0] / p2[1], p1[1] / p2[0]),
          ("speed-up over the fewest threads", 1): (1.0, p1[0] / p1[1], p1[1] / p1[0]),
          ("GB/s at the median iteration", 2): (p2[3], p2[3] * p2[2] / p2[1], p2[3] * p2[2] / p2[0])}
for (panel, threads), want in expect.items():
    got = bars.get((panel, line, threads))
    check(got is not None and np.allclose(got, want, rtol=1e-6),
          "%s, %d threads: got %s, expected (value, low, high) %s" % (panel, threads, got, want))
sys.exit(bad)
PY
grep -q -- "<!-- parallel init, OMP_PLACES=cores OMP_PROC_BIND=close -->" "$WORK/axes.svg" ||
    fail "the SVG's legend does not name OMP_PLACES=cores OMP_PROC_BIND=close"
grep -q -- "cores/close" "$WORK/axes.svg" && fail "the SVG still says cores/close"
grep -q -- "<!-- ideal (linear) -->" "$WORK/axes.svg" || fail "scaling of 1 and 2 threads: no 'ideal' line in the legend"

# Timeline: one colour bar for all panels (one scale, so files compare), in seconds.
plot_ok "timeline of two files as SVG" "$WORK/timeline.svg" "$WORK/parallel-2.h5" "$WORK/serial-2.h5" --kind timeline
n=$(grep -c -- "<!-- thread's time per iteration" "$WORK/timeline.svg")
[ "$n" -eq 1 ] || fail "timeline of two files: $n colour bar labels, expected 1"
grep -Eq -- "<!-- [0-9.]+ (|m|µ|n)s -->" "$WORK/timeline.svg" || fail "the colour bar's ticks are not in seconds"

# Init: one colour per meaning. The serial run (given first) has its init bar and its local
# pages in one colour, the parallel run in another, the remote rest of each bar in a third; the
# legend sits under the panels (plot_ok: it covers none).
plot_ok "init as SVG" "$WORK/init.svg" "$WORK/serial-2.h5" "$WORK/parallel-2.h5" --kind init
"$PYTHON" - "$WORK/init.svg" <<'PY' || fail "init colours"
import re, sys
import xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
def fills(group_id):
    g = root.find(".//s:g[@id='%s']" % group_id, ns)
    out = []
    for patch in g.findall("s:g", ns):
        if not patch.get("id", "").startswith("patch_"):
            continue
        m = re.search(r"fill: (#[0-9a-f]{6})", patch.find("s:path", ns).get("style", ""))
        if m and m.group(1) != "#ffffff":
            out.append(m.group(1))
    return out
init, local = fills("axes_1"), fills("axes_2")
serial, parallel = init if len(init) == 2 else (None, None)
ok = serial and parallel and serial != parallel and len(local) == 8
ok = ok and local[0:2] == [serial] * 2 and local[4:6] == [parallel] * 2
ok = ok and local[2] == local[3] == local[6] == local[7] and local[2] not in (serial, parallel)
if not ok:
    print("FAILED: init bars %s, local-pages bars %s: expected serial, parallel; then per run its colour "
          "twice and a third colour twice" % (init, local), file=sys.stderr)
    sys.exit(1)
PY

# Refused before any plotting: bad files, bad options, an output that cannot be written.
echo "not hdf5" >"$WORK/bad.h5"
run_ts 2 "plot a text file" plot "$WORK/bad.h5" -o "$WORK/x.png" && expect_in "$ERR" "$WORK/bad.h5: not an HDF5 file" "bad file named"
[ -e "$WORK/x.png" ] && fail "a PNG was written for a bad file"
rm "$WORK/bad.h5"
run_ts 2 "plot without -o" plot "$WORK/parallel-1.h5" && expect_in "$ERR" "missing -o" "missing -o"
run_ts 2 "plot unknown kind" plot "$WORK/parallel-1.h5" -o "$WORK/x.png" --kind pie &&
    expect_in "$ERR" "unknown --kind 'pie' \(kinds: scaling, init, timeline\)" "unknown kind"
run_ts 2 "plot bad size" plot "$WORK/parallel-1.h5" -o "$WORK/x.png" --size 10x10 && expect_in "$ERR" "--size 10x10" "bad size"
run_ts 2 "plot unwritable output" plot "$WORK/parallel-1.h5" -o "$WORK/missing/x.png" &&
    expect_in "$ERR" "cannot write $WORK/missing/x.png: No such file or directory" "unwritable output named"
TOUCHSTONE_PYTHON=$WORK/no-python run_ts 2 "plot without Python" plot "$WORK/parallel-1.h5" -o "$WORK/x.png" &&
    expect_in "$ERR" "needs $WORK/no-python with h5py and matplotlib" "missing Python named"
# An extension matplotlib would not write as what it says: refused with the list, before the
# files are read (a missing file is not what is reported), and nothing is written.
run_ts 2 "plot to .gif" plot "$WORK/no-such.h5" -o "$WORK/x.gif" &&
    expect_in "$ERR" "-o $WORK/x.gif: unknown picture format 'gif' \(formats: png, svg, pdf, jpg\)" "unknown format named"
[ -e "$WORK/x.gif" ] && fail "a .gif was written"
run_ts 2 "plot to a name without extension" plot "$WORK/parallel-1.h5" -o "$WORK/picture" &&
    expect_in "$ERR" "no extension \(formats: png, svg, pdf, jpg\)" "missing extension"
[ -e "$WORK/picture" ] && fail "a file without extension was written"
# A picture is never replaced unasked, never through a link, never lost to a failed write
# (the rules of run's output): an existing one is refused without --overwrite and left as it
# was; a symbolic link is refused even with --overwrite, its target untouched; under ulimit -f
# the write fails with the errno text, the old picture survives, no temporary file is left; a
# standard output closed or full is a message and exit 2 (the picture written by then), never
# a Python traceback.
P=$WORK/parallel-1.h5
cp "$WORK/s300.png" "$WORK/old.png"
run_ts 2 "plot over an existing picture" plot "$P" -o "$WORK/s300.png" &&
    expect_in "$ERR" "^touchstone: error: plot: $WORK/s300.png exists; remove it, choose another -o, or add --overwrite to replace it$" "an existing picture refused"
cmp -s "$WORK/s300.png" "$WORK/old.png" || fail "the existing picture changed without --overwrite"
plot_ok "plot --overwrite replaces it" "$WORK/s300.png" "$P" --overwrite
cmp -s "$WORK/s300.png" "$WORK/old.png" && fail "--overwrite did not replace the picture"
echo precious >"$WORK/target.png"
ln -s "$WORK/target.png" "$WORK/link.png"
for over in "" --overwrite; do
    # shellcheck disable=SC2086
    run_ts 2 "plot to a symbolic link $over" plot "$P" -o "$WORK/link.png" $over &&
        expect_in "$ERR" "cannot write output $WORK/link.png: it is a symbolic link" "the link named"
done
[ "$(cat "$WORK/target.png")" = precious ] && [ -L "$WORK/link.png" ] || fail "the link or its target changed"
cp "$WORK/s300.png" "$WORK/old.png"
expect_run 2 "plot under ulimit -f 8" sh -c 'ulimit -f 8 && exec "$@"' sh "$TS" plot "$P" -o "$WORK/s300.png" --overwrite &&
    expect_in "$ERR" "cannot write $WORK/s300.png: File too large" "the errno text of ulimit -f"
cmp -s "$WORK/s300.png" "$WORK/old.png" || fail "ulimit -f: the old picture was not kept"
ls "$WORK" | grep -q '\.tmp\.' && fail "ulimit -f: a temporary file was left: $(ls "$WORK" | grep '\.tmp\.')"
expect_not_in "$ERR" "Traceback" "ulimit -f: no traceback"
"$TS" plot "$P" -o "$WORK/closed.png" >&- 2>"$ERR"
status=$?
[ "$status" -eq 2 ] || fail "plot with stdout closed: exit status $status, expected 2"
expect_in "$ERR" "cannot write to standard output: Bad file descriptor" "stdout closed: the errno text"
expect_not_in "$ERR" "Traceback|Exception" "stdout closed: no traceback"
"$TS" plot "$P" -o "$WORK/full.png" >/dev/full 2>"$ERR"
status=$?
[ "$status" -eq 2 ] || fail "plot with stdout full: exit status $status, expected 2"
expect_in "$ERR" "cannot write to standard output: No space left on device" "stdout full: the errno text"
expect_not_in "$ERR" "Traceback|Exception" "stdout full: no traceback"

# At most 1000 files a picture (32 for --kind init), counted before any is read: 1001 names of a
# text file (hard links: cheap) are refused for their number, not for what they hold. A hundred
# copies of one small run are plotted (reading was mostly zeroing HDF5's 1 MiB conversion
# buffer for every table: 1,000 files took minutes).
mkdir "$WORK/many" "$WORK/bad"
echo "not hdf5" >"$WORK/bad/0.h5"
INIT33=""
i=1
while [ $i -le 1000 ]; do
    ln "$WORK/bad/0.h5" "$WORK/bad/$i.h5"
    [ $i -le 100 ] && ln "$P" "$WORK/many/$i.h5"
    [ $i -le 33 ] && INIT33="$INIT33 $WORK/bad/$i.h5"
    i=$((i + 1))
done
run_ts 2 "plot of 1001 files" plot "$WORK/bad" -o "$WORK/x.png" &&
    expect_in "$ERR" "plot: 1001 run files; a plot draws at most 1000" "the limit named"
# shellcheck disable=SC2086
run_ts 2 "plot --kind init of 33 files" plot --kind init $INIT33 -o "$WORK/x.png" &&
    expect_in "$ERR" "plot: 33 run files; --kind init draws at most 32" "the limit of init named"
# shellcheck disable=SC2086
"$PYTHON" "$SRC/tools/plot.py" --kind init -o "$WORK/x.png" $INIT33 >"$OUT" 2>"$ERR"
status=$?
[ "$status" -eq 2 ] || fail "plot.py --kind init of 33 files: exit status $status, expected 2"
expect_in "$ERR" "plot.py: error: 33 run files; --kind init draws at most 32" "plot.py names the limit"
[ -e "$WORK/x.png" ] && fail "a picture was written past the limit"
plot_ok "plot of 100 files" "$WORK/many.png" "$WORK/many" --size 400x300

# plot.py on its own refuses the same, before reading its files.
"$PYTHON" "$SRC/tools/plot.py" -o "$WORK/x.bmp" "$WORK/no-such.h5" >"$OUT" 2>"$ERR"
status=$?
[ "$status" -eq 2 ] || fail "plot.py -o x.bmp: exit status $status, expected 2"
expect_in "$ERR" "plot.py: error: -o $WORK/x.bmp: unknown picture format 'bmp'" "plot.py names the format"
finish
