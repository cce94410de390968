#!/bin/sh
# touchstone plot: each kind makes a PNG of the size asked for, with a picture in it (pixel
# values vary); bad files are refused before Python starts, as by compare.
. "$(dirname "$0")/lib.sh"
PYTHON=${3:?path to the Python with matplotlib}

for t in 1 2; do
    for mode in parallel serial; do
        # shellcheck disable=SC2086
        run_ts 0 "$mode $t-thread run" run "$SRC/configs/stencil2d.ini" $SMALL --set run.iterations=8 \
            --threads "$t" --set init.mode=$mode -o "$WORK/$mode-$t.h5" -q || finish
    done
done

# Each: the IHDR dimensions, and more than a blank canvas. One Python for all (it starts slowly).
run_ts 0 "plot scaling" plot "$WORK" -o "$WORK/scaling.png"
run_ts 0 "plot init" plot "$WORK/parallel-2.h5" "$WORK/serial-2.h5" --kind init -o "$WORK/init.png"
run_ts 0 "plot timeline" plot "$WORK/parallel-2.h5" --kind timeline --size 640x480 -o "$WORK/timeline.png"
"$PYTHON" - "$WORK/scaling.png" 1000 600 "$WORK/init.png" 1000 600 "$WORK/timeline.png" 640 480 <<'PY' || fail "PNG checks"
import struct, sys
import matplotlib.image as mpimg
bad = 0
args = sys.argv[1:]
for path, width, height in zip(args[0::3], map(int, args[1::3]), map(int, args[2::3])):
    try:
        head = open(path, "rb").read(24)
        assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", "no PNG signature and IHDR"
        w, h = struct.unpack(">II", head[16:24])
        assert (w, h) == (width, height), "PNG is %dx%d, expected %dx%d" % (w, h, width, height)
        pixels = mpimg.imread(path)
        assert pixels.shape[:2] == (height, width), "pixel data is %s" % (pixels.shape,)
        colours = len({tuple(p) for p in pixels.reshape(-1, pixels.shape[2])[::7]})
        assert pixels.std() > 0.05 and colours > 20, "blank (std %.3f, %d colours)" % (pixels.std(), colours)
    except (OSError, AssertionError) as e:
        print("FAILED: %s: %s" % (path, e), file=sys.stderr)
        bad = 1
sys.exit(bad)
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
finish
