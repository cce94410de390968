#!/usr/bin/python3
"""Plots of touchstone run files (matplotlib, Agg backend: no display needed).

    plot.py --kind scaling|init|timeline -o OUT.png|svg|pdf|jpg [--size WIDTHxHEIGHT] FILE.h5 ...

  scaling   speed-up and GB/s against threads, one line per configuration (init mode,
            binding, policy), speed-up over the fewest threads of each line; error bars
            from the quartiles of /timings/iteration. Files with ranks (/mpi): against the
            threads of all ranks, one line per configuration and threads per rank, points
            labelled ranks x threads, speed-up over the configuration's fewest threads in all
  init      init time of each run, and each thread's fraction of local pages (/placement)
  timeline  each thread's time per iteration as a heat map (/timings/thread_iteration),
            every panel on one colour scale

The output's extension names the format. Fonts, lines and margins scale with --size.
`touchstone plot` validates the files first and then runs this script; it can also be run on
its own. Exit status 2 for bad arguments or files that cannot be read, like touchstone.
TOUCHSTONE_PLOT_AXES=1 prints each panel's axis limits and error bars on stderr (for the tests).

The picture is written as run writes its file: to a temporary file next to it, synced, then
given its name; an existing name is replaced only with --overwrite, and never when it is not a
regular file (a symbolic link, a device, a FIFO, a directory). A failure (a full disk, `ulimit
-f`) leaves the old picture and no temporary file, and every failure is a message and exit
status 2, never a traceback.
"""
import argparse
import errno
import importlib.util
import math
import os
import random
import socket
import stat
import sys
import textwrap

PROG = "plot.py"
# The most run files one picture takes (a picture of more cannot be read, and reading them
# takes minutes), and --kind init, which draws a bar, a label and a legend entry per run. The
# same numbers are in app/plot_cmd.c, which refuses more before reading any file.
MAX_FILES = 1000
MAX_INIT = 32


def fail(message):
    """The message on stderr (when there is one to write to), exit status 2. os._exit: Python's
    own exit would flush a standard output that failed again and print a traceback about it."""
    try:
        print("%s: error: %s" % (PROG, message), file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass
    os._exit(2)


try:
    import matplotlib

    matplotlib.use("Agg")
    import h5py  # noqa: E402  (after choosing the backend)
    import matplotlib.pyplot as plt  # noqa: E402
    import numpy as np  # noqa: E402
    from matplotlib.container import ErrorbarContainer  # noqa: E402
    from matplotlib.patches import Patch  # noqa: E402
    from matplotlib.ticker import EngFormatter, MaxNLocator  # noqa: E402
except ImportError as e:
    fail("needs h5py and matplotlib (Debian: apt-get install python3-h5py python3-matplotlib): %s" % e)

DPI = 100
MAX_TIMELINES = 4
# The size the base styles below were chosen for; other sizes scale them (see style()).
BASE_SIZE = (1000, 600)
# Extension -> matplotlib format. The same list is in app/plot_cmd.c, which refuses the others
# before reading any file; JPEG goes through Pillow (python3-pil).
FORMATS = {"png": "png", "svg": "svg", "pdf": "pdf", "jpg": "jpeg", "jpeg": "jpeg"}
# One colour per meaning, in every kind: how the pages were first touched.
INIT_COLOURS = {"parallel": "tab:blue", "serial": "tab:orange"}
REMOTE_COLOUR = "0.85"


def text(attrs, name):
    value = attrs[name]
    return value.decode() if isinstance(value, bytes) else str(value)


def read_run(path):
    """What the plots need of one run file (the schema is in docs/hdf5-schema.md)."""
    try:
        with h5py.File(path, "r") as f:
            r, t = f["results"], f["timings"]
            run = {
                "file": path,
                "host": text(f.attrs, "host"),
                "date": text(f.attrs, "start_time")[:10],
                "kernel": text(r.attrs, "kernel"),
                "size": size_text(r.attrs),
                "init_mode": text(r.attrs, "init_mode"),
                "policy": text(f["config"].attrs, "init.policy"),
                "binding": "OMP_PLACES=%s OMP_PROC_BIND=%s" % (text(f["threads"].attrs, "OMP_PLACES"),
                                                                text(f["threads"].attrs, "OMP_PROC_BIND")),
                "threads": int(r.attrs["n_threads"]),
                "time_median": float(r["time_median"][()]),
                "gbs_median": float(r["gbs_median"][()]),
                "init_time": float(t["init"][()]),
                "quartiles": quartiles(t["iteration"][()]),
                "thread_iteration": np.asarray(t["thread_iteration"][()], dtype=float),
                "local": None,
            }
            if "placement" in f:
                run["local"] = np.asarray(f["placement/thread_local_fraction"][()], dtype=float)
            # Schema 3, a run an MPI launcher started: /mpi (without it, one process).
            run["ranks"], run["per_rank"] = 1, run["threads"]
            if "mpi" in f:
                per_rank = {int(n) for n in f["mpi/ranks"]["n_threads"]}
                run["ranks"] = int(f["mpi"].attrs["size"])
                run["per_rank"] = per_rank.pop() if len(per_rank) == 1 else None  # None: ranks differ
    except (OSError, KeyError, ValueError, TypeError) as e:
        fail("%s: not a readable touchstone run file (%s)" % (path, e))
    if run["thread_iteration"].ndim != 2 or run["thread_iteration"].shape[0] != run["threads"]:
        fail("%s: /timings/thread_iteration: expected n_threads x n_iterations values" % path)
    return run


def quartiles(iteration):
    """q1 and q3 of the timed iterations as compare computes them (linear interpolation between
    order statistics, numpy's default); NaN when there is no timed iteration."""
    times = np.asarray(iteration, dtype=float).ravel()
    times = times[np.isfinite(times)]
    if times.size == 0:
        return math.nan, math.nan
    q1, q3 = np.percentile(times, [25, 75])
    return float(q1), float(q3)


def size_text(attrs):
    nx, ny, nz = (int(attrs[k]) for k in ("nx", "ny", "nz"))
    if nx > 0:
        return "%d x %d x %d" % (nx, ny, nz) if nz > 1 else "%d x %d" % (nx, ny)
    return str(int(attrs["n"]))


def title(kind, runs):
    """What, where and when: the kernels and sizes, the hosts and the dates of the runs."""
    problems = sorted({"%s %s" % (r["kernel"], r["size"]) for r in runs})
    hosts = sorted({r["host"] for r in runs})
    dates = sorted({r["date"] for r in runs})
    when = dates[0] if len(dates) == 1 else "%s to %s" % (dates[0], dates[-1])
    return "touchstone %s: %s on %s, %s" % (kind, ", ".join(problems), ", ".join(hosts), when)


def line_label(run, varying):
    parts = ["%s init" % run["init_mode"], run["binding"]]
    if "policy" in varying:
        parts.append(run["policy"])
    if "problem" in varying:
        parts.insert(0, "%s %s" % (run["kernel"], run["size"]))
    return ", ".join(parts)


def plot_scaling(fig, runs):
    if any(r["ranks"] > 1 for r in runs):
        return plot_rank_scaling(fig, runs)
    lines = {}
    for r in runs:
        key = (r["kernel"], r["size"], r["init_mode"], r["binding"], r["policy"])
        lines.setdefault(key, []).append(r)
    varying = set()
    if len({(r["kernel"], r["size"]) for r in runs}) > 1:
        varying.add("problem")
    if len({r["policy"] for r in runs}) > 1:
        varying.add("policy")
    speed, bandwidth = fig.subplots(1, 2)
    all_threads = sorted({r["threads"] for r in runs})
    # Lines side by side by a hair, so that error bars at the same thread count stay apart.
    dodge = 0.012 * (all_threads[-1] - all_threads[0] or 1)
    for k, (key, members) in enumerate(lines.items()):
        members.sort(key=lambda r: r["threads"])
        threads = [r["threads"] + (k - (len(lines) - 1) / 2) * dodge for r in members]
        base = members[0]
        label = line_label(base, varying)
        # The speed-up's range combines the quartiles as compare does: fewest-thread run's
        # q1 / this run's q3 up to q3 / q1. GB/s scales with 1/time: the same quartiles.
        speedup = [base["time_median"] / r["time_median"] for r in members]
        low = [base["quartiles"][0] / r["quartiles"][1] for r in members]
        high = [base["quartiles"][1] / r["quartiles"][0] for r in members]
        line = speed.errorbar(threads, speedup, yerr=error_bars(speedup, low, high), marker="o", label=label)
        gbs = [r["gbs_median"] for r in members]
        low = [r["gbs_median"] * r["time_median"] / r["quartiles"][1] for r in members]
        high = [r["gbs_median"] * r["time_median"] / r["quartiles"][0] for r in members]
        bandwidth.errorbar(threads, gbs, yerr=error_bars(gbs, low, high), marker="o",
                           color=line.lines[0].get_color(), label=label)
    if len(all_threads) > 1:  # of one thread count, no line: a legend entry for nothing drawn
        speed.plot(all_threads, [t / all_threads[0] for t in all_threads], "k--",
                   linewidth=0.7 * plt.rcParams["lines.linewidth"], label="ideal (linear)")
    speed.set_ylabel("speed-up over the fewest threads")
    bandwidth.set_ylabel("GB/s at the median iteration")
    for ax in (speed, bandwidth):
        ax.set_xlabel("OpenMP threads")
        ax.set_xticks(all_threads)
        ax.grid(True, alpha=0.3)
        # From 0: a bar of 40 against 30 GB/s must not look like four times as much.
        ax.set_ylim(bottom=0)
    handles, labels = speed.get_legend_handles_labels()
    # The ideal line after the measured ones (matplotlib lists plain lines first).
    order = sorted(range(len(labels)), key=lambda i: labels[i] == "ideal (linear)")
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    handles.append(Patch(visible=False))
    labels.append("error bars: quartiles of the iteration times")
    return handles, labels


def per_rank_text(run):
    if run["per_rank"] is None:
        return "threads per rank differ"
    return "%d thread%s per rank" % (run["per_rank"], "" if run["per_rank"] == 1 else "s")


def plot_rank_scaling(fig, runs):
    """Runs with ranks: speed-up and GB/s against the threads of all ranks (ranks x threads per
    rank), one line per configuration and threads per rank, each point labelled ranks x threads;
    speed-up over the configuration's run with the fewest threads in all (1 rank x 1 thread when
    there is one; the fewer ranks of two with as many), as touchstone report computes it."""
    configs, lines = {}, {}
    for r in runs:
        config = (r["kernel"], r["size"], r["init_mode"], r["binding"], r["policy"])
        configs.setdefault(config, []).append(r)
        lines.setdefault(config + (r["per_rank"],), []).append(r)
    bases = {config: min(members, key=lambda r: (r["threads"], r["ranks"])) for config, members in configs.items()}
    varying = set()
    if len({(r["kernel"], r["size"]) for r in runs}) > 1:
        varying.add("problem")
    if len({r["policy"] for r in runs}) > 1:
        varying.add("policy")
    speed, bandwidth = fig.subplots(1, 2)
    all_threads = sorted({r["threads"] for r in runs})
    dodge = 0.012 * (all_threads[-1] - all_threads[0] or 1)
    for k, (key, members) in enumerate(lines.items()):
        members.sort(key=lambda r: (r["threads"], r["ranks"]))
        threads = [r["threads"] + (k - (len(lines) - 1) / 2) * dodge for r in members]
        base = bases[key[:-1]]
        label = "%s, %s" % (line_label(base, varying), per_rank_text(members[0]))
        speedup = [base["time_median"] / r["time_median"] for r in members]
        low = [base["quartiles"][0] / r["quartiles"][1] for r in members]
        high = [base["quartiles"][1] / r["quartiles"][0] for r in members]
        line = speed.errorbar(threads, speedup, yerr=error_bars(speedup, low, high), marker="o", label=label)
        for x, y, r in zip(threads, speedup, members):
            speed.annotate("%dx%d" % (r["ranks"], r["per_rank"]) if r["per_rank"] else "%d ranks" % r["ranks"],
                           (x, y), textcoords="offset points", xytext=(4, 4), fontsize="x-small",
                           color=line.lines[0].get_color(), annotation_clip=True)
        gbs = [r["gbs_median"] for r in members]
        low = [r["gbs_median"] * r["time_median"] / r["quartiles"][1] for r in members]
        high = [r["gbs_median"] * r["time_median"] / r["quartiles"][0] for r in members]
        bandwidth.errorbar(threads, gbs, yerr=error_bars(gbs, low, high), marker="o",
                           color=line.lines[0].get_color(), label=label)
    if len(all_threads) > 1:
        speed.plot(all_threads, [t / all_threads[0] for t in all_threads], "k--",
                   linewidth=0.7 * plt.rcParams["lines.linewidth"], label="ideal (linear)")
    speed.set_ylabel("speed-up over the fewest threads in all")
    bandwidth.set_ylabel("GB/s at the median iteration")
    for ax in (speed, bandwidth):
        ax.set_xlabel("threads in all (ranks x threads per rank)")
        ax.set_xticks(all_threads)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    handles, labels = speed.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] == "ideal (linear)")
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    handles.append(Patch(visible=False))
    labels.append("points: ranks x threads per rank; error bars: quartiles of the iteration times")
    return handles, labels


def error_bars(values, low, high):
    """matplotlib's yerr (distances below and above) from the ends of a range; none where the
    range is unknown (no timed iteration)."""
    below = [v - lo if np.isfinite(lo) else 0.0 for v, lo in zip(values, low)]
    above = [hi - v if np.isfinite(hi) else 0.0 for v, hi in zip(values, high)]
    return [np.maximum(below, 0.0), np.maximum(above, 0.0)]


def plot_init(fig, runs):
    times, local = fig.subplots(1, 2)
    labels = ["%s\n%d thr\n%s" % (r["init_mode"], r["threads"], os.path.basename(r["file"])) for r in runs]
    colours = [INIT_COLOURS.get(r["init_mode"], "tab:gray") for r in runs]
    times.bar(range(len(runs)), [r["init_time"] for r in runs], color=colours)
    times.set_xticks(range(len(runs)))
    times.set_xticklabels(labels, fontsize="x-small")
    # Side by side the labels of more than a few runs run into each other: one line each, upright.
    fig.canvas.draw()
    if ticks_overlap(times.get_xticklabels(), fig.canvas.get_renderer()):
        times.set_xticklabels([label.replace("\n", ", ") for label in labels], fontsize="x-small", rotation=90)
    times.set_ylabel("first-touch init time (s)")
    times.set_xlabel("run")
    audited = [r for r in runs if r["local"] is not None]
    width = 0.8 / max(len(audited), 1)
    handles, names = [], []
    # The colour says how the pages were touched, as on the left; runs of the same init mode
    # differ by hatching; the grey rest of each bar up to 1 is the remote pages.
    hatches = ["", "//", "..", "xx", "\\\\", "oo"]
    seen = {}
    for k, r in enumerate(audited):
        x = np.arange(len(r["local"])) + (k - (len(audited) - 1) / 2) * width
        fraction = np.asarray(r["local"], dtype=float)
        owns = np.isfinite(fraction)
        hatch = hatches[seen.setdefault(r["init_mode"], 0) % len(hatches)]
        seen[r["init_mode"]] += 1
        colour = INIT_COLOURS.get(r["init_mode"], "tab:gray")
        local.bar(x[owns], fraction[owns], width=width, color=colour, hatch=hatch, edgecolor="white")
        local.bar(x[owns], 1 - fraction[owns], bottom=fraction[owns], width=width, color=REMOTE_COLOUR,
                  edgecolor="white")
        handles.append(Patch(facecolor=colour, hatch=hatch, edgecolor="white"))
        names.append("%s init, %d thr, %s: local pages" % (r["init_mode"], r["threads"], os.path.basename(r["file"])))
    if audited:
        handles.append(Patch(facecolor=REMOTE_COLOUR))
        names.append("pages on another NUMA node")
    else:
        local.text(0.5, 0.5, "no placement audit\nin these files", ha="center", va="center",
                   transform=local.transAxes)
        for mode in sorted({r["init_mode"] for r in runs}):
            handles.append(Patch(facecolor=INIT_COLOURS.get(mode, "tab:gray")))
            names.append("%s init" % mode)
    local.set_ylim(0, 1)
    local.xaxis.set_major_locator(MaxNLocator(integer=True))
    local.set_xlabel("OpenMP thread (no bar: owns no page)")
    local.set_ylabel("fraction of the thread's pages")
    for ax in (times, local):
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    return handles, names


def plot_timeline(fig, runs):
    # A panel needs about nine lines of text in height (title, image, ticks): fewer panels on
    # a small picture rather than panels with no room for their image.
    line = plt.rcParams["font.size"] * DPI / 72
    fits = max(1, min(MAX_TIMELINES, int(fig.bbox.height / (9 * line))))
    shown = runs[:fits]
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    # One colour scale for every panel, so that a colour is the same time in each file.
    finite = [r["thread_iteration"][np.isfinite(r["thread_iteration"])] for r in shown]
    finite = np.concatenate(finite) if finite else np.array([])
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    image = None
    for ax, r in zip(axes, shown):
        times = r["thread_iteration"]
        # NaN: not measured (the iterations before a restart on another thread count); none at
        # all in a run stopped during its warm-up.
        if not np.isfinite(times).any():
            ax.text(0.5, 0.5, "no per-thread times: %s" % ("no timed iteration" if times.size == 0
                                                           else "not measured (restarted)"),
                    ha="center", transform=ax.transAxes)
            ax.set_title(os.path.basename(r["file"]), fontsize="small")
            ax.set_axis_off()
            continue
        image = ax.imshow(r["thread_iteration"], aspect="auto", interpolation="nearest", cmap="viridis",
                          vmin=vmin, vmax=vmax)
        ax.set_ylabel("thread")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(nbins="auto", integer=True, min_n_ticks=1))
        ax.set_title("%s: %s init, %d thread%s, %s" % (os.path.basename(r["file"]), r["init_mode"], r["threads"],
                                                        "" if r["threads"] == 1 else "s", r["binding"]),
                     fontsize="small")
    if image is not None:  # some panel has a time
        bar = fig.colorbar(image, ax=list(axes), label="thread's time per iteration")
        bar.formatter = EngFormatter(unit="s", sep=" ")
        bar.update_ticks()
    axes[-1].set_xlabel("timed iteration")
    if len(runs) > len(shown):
        print("%s: timeline shows the first %d of %d files (at most %d, as many as %d px in height hold)"
              % (PROG, len(shown), len(runs), MAX_TIMELINES, fig.bbox.height), file=sys.stderr)
    return None


def parse_size(value):
    try:
        w, h = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("expected WIDTHxHEIGHT in pixels, e.g. 1000x600")
    if not (200 <= w <= 8000 and 150 <= h <= 8000):
        raise argparse.ArgumentTypeError("from 200x150 to 8000x8000 pixels")
    return w, h


def output_format(path):
    """The matplotlib format the file name's extension names; exit 2 for any other, before any
    file is read."""
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    known = ", ".join(k for k in FORMATS if k != "jpeg")
    if ext not in FORMATS:
        fail("-o %s: %s (formats: %s)" % (path, "unknown picture format '%s'" % ext if ext else "no extension", known))
    if FORMATS[ext] == "jpeg":
        # matplotlib writes JPEG through Pillow.
        if importlib.util.find_spec("PIL") is None:
            fail("-o %s: JPEG needs Pillow (Debian: python3-pil); formats here: png, svg, pdf" % path)
    return FORMATS[ext]


def style(size):
    """matplotlib settings for a picture of size pixels: fonts, lines, ticks and paddings in
    proportion to the picture (by the square root of its area against BASE_SIZE, and never
    more than its narrower side allows), so that a small picture keeps its proportions instead
    of being all text, and a large one is not all thin lines."""
    scale = math.sqrt(size[0] * size[1] / (BASE_SIZE[0] * BASE_SIZE[1]))
    scale = min(scale, 1.3 * min(size[0] / BASE_SIZE[0], size[1] / BASE_SIZE[1]))
    scale = min(max(scale, 0.65), 4.0)
    points = {"font.size": 10, "lines.linewidth": 1.5, "lines.markersize": 6, "axes.linewidth": 0.8,
              "grid.linewidth": 0.8, "patch.linewidth": 1.0, "hatch.linewidth": 1.0, "errorbar.capsize": 3,
              "axes.labelpad": 4, "axes.titlepad": 6}
    for axis in ("xtick", "ytick"):
        points.update({axis + ".major.size": 3.5, axis + ".major.width": 0.8, axis + ".major.pad": 3.5,
                       axis + ".minor.size": 2, axis + ".minor.width": 0.6, axis + ".minor.pad": 3.4})
    inches = {"figure.constrained_layout.h_pad": 0.04167, "figure.constrained_layout.w_pad": 0.04167}
    rc = {k: v * scale for k, v in points.items()}
    rc.update({k: v * scale for k, v in inches.items()})
    return rc


def wrap_to(artist, length, renderer, vertical=False):
    """Breaks a text's lines until it is at most length pixels long (its height when vertical,
    as a y label is); words stay whole."""
    words = " ".join(artist.get_text().split())
    extent = artist.get_window_extent(renderer)
    if (extent.height if vertical else extent.width) <= length:
        return
    for chars in range(len(words), 8, -1):
        artist.set_text(textwrap.fill(words, chars, break_on_hyphens=False))
        extent = artist.get_window_extent(renderer)
        if (extent.height if vertical else extent.width) <= length:
            return


def fit_labels(fig, renderer):
    """Axis labels and panel titles wrapped to their panel, laid out again until they stay
    there (wrapping makes a label thicker, which makes its panel smaller). Ends drawn."""
    for _ in range(3):
        fig.draw(renderer)
        texts = [(t, t.get_text()) for ax in fig.axes for t in (ax.yaxis.label, ax.xaxis.label, ax.title)]
        for ax in fig.axes:
            box = ax.get_window_extent(renderer)
            wrap_to(ax.yaxis.label, box.height, renderer, vertical=True)
            wrap_to(ax.xaxis.label, box.width, renderer)
            wrap_to(ax.title, box.width, renderer)
        if all(t.get_text() == before for t, before in texts):
            return
    fig.draw(renderer)


def bottom_legend(fig, handles, labels, renderer):
    """One legend for the whole figure, under the panels and never over them: as many columns
    as fit the width, each label wrapped to a column if need be. Returns the height in pixels it
    takes from the bottom of the picture."""
    width = fig.bbox.width * 0.98
    legend = None
    for ncol in range(len(labels), 0, -1):
        if legend:
            legend.remove()
        legend = fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False,
                            bbox_to_anchor=(0.5, 0.0), fontsize="small")
        if legend.get_window_extent(renderer).width <= width:
            break
    if legend.get_window_extent(renderer).width > width:
        for t in legend.get_texts():
            wrap_to(t, width * 0.85, renderer)
    return legend.get_window_extent(renderer).y1


def ticks_overlap(labels, renderer):
    """Whether two of an axis's tick labels overlap (the empty ones left out)."""
    boxes = [t.get_window_extent(renderer) for t in labels if t.get_text() and t.get_visible()]
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def self_check(fig, heading, renderer):
    """Warns about any text outside the picture or over another text, and any legend over a
    panel: what a size the layout cannot serve looks like. TOUCHSTONE_PLOT_AXES=1 also prints
    the axis limits."""
    picture = fig.bbox
    texts = [("the title", heading)]
    texts += [("the legend", lg) for lg in fig.legends]
    for ax in fig.axes:
        texts += [("'%s'" % t.get_text().replace("\n", " "), t) for t in (ax.title, ax.xaxis.label, ax.yaxis.label)
                  if t.get_text()]
    boxes = [(name, t.get_window_extent(renderer)) for name, t in texts]
    boxes += [("the ticks of '%s'" % (ax.get_ylabel().replace("\n", " ") or "a panel"), ax.get_tightbbox(renderer))
              for ax in fig.axes]
    for name, b in boxes:
        if b.x0 < picture.x0 - 1 or b.y0 < picture.y0 - 1 or b.x1 > picture.x1 + 1 or b.y1 > picture.y1 + 1:
            print("%s: warning: %s does not fit in %d x %d px" % (PROG, name, picture.width, picture.height),
                  file=sys.stderr)
    for i, (name, b) in enumerate(boxes[:len(texts)]):
        for other, c in boxes[i + 1:len(texts)]:
            if b.overlaps(c):
                print("%s: warning: %s overlaps %s" % (PROG, name, other), file=sys.stderr)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if ticks_overlap(axis.get_ticklabels(), renderer):
                print("%s: warning: the tick labels of '%s' overlap" % (PROG, ax.get_ylabel().replace("\n", " ")),
                      file=sys.stderr)
        for lg in fig.legends:
            if lg.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer)):
                print("%s: warning: the legend covers '%s'" % (PROG, ax.get_ylabel()), file=sys.stderr)
        if os.environ.get("TOUCHSTONE_PLOT_AXES") == "1":
            name = ax.get_ylabel().replace("\n", " ")
            print("%s: axes '%s': x %.6g..%.6g, y %.6g..%.6g" % ((PROG, name) + ax.get_xlim() + ax.get_ylim()),
                  file=sys.stderr)
            for bars in ax.containers:
                if isinstance(bars, ErrorbarContainer) and bars.has_yerr:
                    for (x, y), ((_, low), (_, high)) in zip(bars.lines[0].get_xydata(),
                                                           bars.lines[2][0].get_segments()):
                        print("%s: error bar '%s' '%s': x %.6g, y %.9g, %.9g..%.9g"
                              % (PROG, name, bars.get_label(), x, y, low, high), file=sys.stderr)


def kind_of(mode):
    """What a name that is not a regular file is, in the words of touchstone run."""
    if stat.S_ISLNK(mode):
        return "a symbolic link (renaming over it would replace the link, not its target)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_output(path, overwrite):
    """Before any file is read: the name is new, or a regular file that --overwrite may replace."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        fail("cannot write %s: %s" % (path, e.strerror))
    if stat.S_ISDIR(st.st_mode):
        fail("cannot write %s: %s" % (path, os.strerror(errno.EISDIR)))
    if not stat.S_ISREG(st.st_mode):
        fail("cannot write output %s: it is %s; plot writes a new file or replaces a regular one"
             % (path, kind_of(st.st_mode)))
    if not overwrite:
        fail("%s exists; remove it, choose another -o, or add --overwrite to replace it" % path)


def temp_name(path):
    """<path>.tmp.<host>.<pid>.<16 hex digits>, the names touchstone gives its temporary files
    (a run removes those of dead processes on this host from its output directory)."""
    host = socket.gethostname().split(".")[0]
    host = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in host) or "unknown"
    return "%s.tmp.%s.%d.%016x" % (path, host, os.getpid(), random.getrandbits(64))


def place(tmp, path, overwrite):
    """Gives the finished temporary file its name: a rename over a regular file with
    --overwrite, otherwise a hard link (which fails when the name exists, whatever appeared
    there meanwhile) and the temporary name removed; where the file system has no hard links,
    a look and a rename."""
    if overwrite:
        check_output(path, True)  # a symbolic link planted since the first look is not replaced
        os.rename(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            raise
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
        os.rename(tmp, path)
        return
    os.unlink(tmp)


def save(fig, path, fmt, overwrite):
    """Writes the picture to a temporary file in path's directory (O_EXCL, never through a
    link), syncs it, gives it its name and syncs the directory. On failure the temporary file
    is removed and the name is as it was; the message names the path and the errno text."""
    tmp = None
    try:
        for _ in range(8):
            tmp = temp_name(path)
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
                break
            except FileExistsError:
                tmp = None
        if tmp is None:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
        with os.fdopen(fd, "wb") as f:
            # No bbox_inches="tight": the image must be exactly the size asked for.
            fig.savefig(f, dpi=DPI, format=fmt)
            f.flush()
            os.fsync(f.fileno())
        place(tmp, path, overwrite)
        tmp = None
        directory = os.open(os.path.dirname(path) or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(directory)
        except OSError as e:
            if e.errno != errno.EINVAL:  # a file system that cannot sync a directory
                raise
        finally:
            os.close(directory)
    except FileExistsError:
        remove_temp(tmp)
        fail("%s exists; remove it, choose another -o, or add --overwrite to replace it" % path)
    except OSError as e:
        remove_temp(tmp)
        fail("cannot write %s: %s" % (path, e.strerror or e))


def remove_temp(tmp):
    if tmp is None:
        return
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    except OSError as e:
        fail("cannot remove the temporary file %s: %s; delete it" % (tmp, e.strerror))


def say(line):
    """A line on standard output, as touchstone prints its own: a closed or full output is an
    error (exit status 2) with the errno text, not a traceback at exit."""
    try:
        if sys.stdout is None:  # started with its standard output closed
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        print(line, file=sys.stdout)
        sys.stdout.flush()
    except (OSError, ValueError) as e:
        fail("cannot write to standard output: %s" % (getattr(e, "strerror", None) or e))


def main():
    global PROG
    parser = argparse.ArgumentParser(description="Plot touchstone run files as PNG, SVG, PDF or JPEG.")
    parser.add_argument("--kind", choices=("scaling", "init", "timeline"), default="scaling")
    parser.add_argument("-o", "--output", required=True, help="picture to write: .png, .svg, .pdf or .jpg")
    parser.add_argument("--size", type=parse_size, default=BASE_SIZE, help="WIDTHxHEIGHT pixels")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing picture (a regular file)")
    # touchstone plot names itself in the messages.
    parser.add_argument("--prog", default=PROG, help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="+", help="touchstone run files (.h5)")
    args = parser.parse_args()
    PROG = args.prog
    fmt = output_format(args.output)
    most = MAX_INIT if args.kind == "init" else MAX_FILES
    if len(args.files) > most:
        fail("%d run files; %s draws at most %d (a picture of more cannot be read): plot fewer at a time"
             % (len(args.files), "--kind init" if args.kind == "init" else "a plot", most))
    check_output(args.output, args.overwrite)

    runs = [read_run(path) for path in args.files]
    with plt.rc_context(style(args.size)):
        fig = plt.figure(figsize=(args.size[0] / DPI, args.size[1] / DPI), dpi=DPI, layout="constrained")
        legend = {"scaling": plot_scaling, "init": plot_init, "timeline": plot_timeline}[args.kind](fig, runs)
        renderer = fig.canvas.get_renderer()
        heading = fig.suptitle(title(args.kind, runs))
        wrap_to(heading, fig.bbox.width * 0.96, renderer)
        if legend:
            # The panels are laid out above the legend, in what is left of the picture.
            below = bottom_legend(fig, legend[0], legend[1], renderer) / fig.bbox.height
            fig.get_layout_engine().set(rect=(0, below, 1, 1 - below))
        fit_labels(fig, renderer)
        # Checked on the screen layout: a vector backend lays out again at 72 dpi, in proportion.
        self_check(fig, heading, renderer)
        save(fig, args.output, fmt, args.overwrite)
    w, h = fig.canvas.get_width_height()
    vector = "" if fmt in ("png", "jpeg") else "vector, "
    say("%s: wrote %s (%s%d x %d px)" % (PROG, args.output, vector, w, h))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        fail("interrupted")
    except MemoryError:
        fail("out of memory")
    except Exception as e:  # noqa: BLE001  a message, never a traceback
        fail("%s: %s (a bug in plot.py: please report it with the command)" % (type(e).__name__, e))
    # Anything still buffered for standard output, flushed here so that its failure is ours.
    say_flush = getattr(sys.stdout, "flush", None)
    try:
        if say_flush:
            say_flush()
    except (OSError, ValueError) as e:
        fail("cannot write to standard output: %s" % (getattr(e, "strerror", None) or e))
