#!/usr/bin/python3
"""Plots of touchstone run files, as PNG (matplotlib, Agg backend: no display needed).

    plot.py --kind scaling|init|timeline -o OUT.png [--size WIDTHxHEIGHT] FILE.h5 ...

  scaling   speed-up and GB/s against threads, one line per configuration (init mode,
            binding, policy), speed-up over the fewest threads of each line
  init      init time of each run, and each thread's fraction of local pages (/placement)
  timeline  each thread's time per iteration as a heat map (/timings/thread_iteration)

`touchstone plot` validates the files first and then runs this script; it can also be run on
its own. Exit status 2 for bad arguments or files that cannot be read, like touchstone.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402  (after choosing the backend)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

DPI = 100
MAX_TIMELINES = 4


def fail(message):
    print("plot.py: error: " + message, file=sys.stderr)
    sys.exit(2)


def text(attrs, name):
    value = attrs[name]
    return value.decode() if isinstance(value, bytes) else str(value)


def read_run(path):
    """What the plots need of one run file (the schema is in the README)."""
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
                "binding": "%s/%s" % (text(f["threads"].attrs, "OMP_PLACES"),
                                      text(f["threads"].attrs, "OMP_PROC_BIND")),
                "threads": int(r.attrs["n_threads"]),
                "time_median": float(r["time_median"][()]),
                "gbs_median": float(r["gbs_median"][()]),
                "init_time": float(t["init"][()]),
                "thread_iteration": np.asarray(t["thread_iteration"][()], dtype=float),
                "local": None,
            }
            if "placement" in f:
                run["local"] = np.asarray(f["placement/thread_local_fraction"][()], dtype=float)
    except (OSError, KeyError, ValueError, TypeError) as e:
        fail("%s: not a readable touchstone run file (%s)" % (path, e))
    if run["thread_iteration"].ndim != 2 or run["thread_iteration"].shape[0] != run["threads"]:
        fail("%s: /timings/thread_iteration: expected n_threads x n_iterations values" % path)
    return run


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
    for key, members in lines.items():
        members.sort(key=lambda r: r["threads"])
        threads = [r["threads"] for r in members]
        base = members[0]
        speedup = [base["time_median"] / r["time_median"] for r in members]
        label = line_label(base, varying)
        speed.plot(threads, speedup, marker="o", label=label)
        bandwidth.plot(threads, [r["gbs_median"] for r in members], marker="o", label=label)
    speed.plot(all_threads, [t / all_threads[0] for t in all_threads], "k--", linewidth=1,
               label="ideal (linear)")
    speed.set_ylabel("speed-up over the fewest threads (median times)")
    bandwidth.set_ylabel("bandwidth at the median iteration (GB/s)")
    for ax in (speed, bandwidth):
        ax.set_xlabel("OpenMP threads")
        ax.set_xticks(all_threads)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")


def plot_init(fig, runs):
    times, local = fig.subplots(1, 2)
    labels = ["%s\n%d thr\n%s" % (r["init_mode"], r["threads"], os.path.basename(r["file"])) for r in runs]
    colours = ["tab:blue" if r["init_mode"] == "parallel" else "tab:orange" for r in runs]
    times.bar(range(len(runs)), [r["init_time"] for r in runs], color=colours)
    times.set_xticks(range(len(runs)))
    times.set_xticklabels(labels, fontsize="x-small")
    times.set_ylabel("first-touch initialisation time (s)")
    times.set_xlabel("run")
    audited = [r for r in runs if r["local"] is not None]
    width = 0.8 / max(len(audited), 1)
    for k, r in enumerate(audited):
        x = np.arange(len(r["local"])) + (k - (len(audited) - 1) / 2) * width
        local.bar(x, np.nan_to_num(r["local"], nan=0.0), width=width,
                  label="%s init, %s" % (r["init_mode"], os.path.basename(r["file"])))
    if audited:
        local.legend(fontsize="small")
    else:
        local.text(0.5, 0.5, "no placement audit in these files", ha="center", transform=local.transAxes)
    local.set_ylim(0, 1.05)
    local.xaxis.set_major_locator(MaxNLocator(integer=True))
    local.set_xlabel("OpenMP thread (a thread that owns no page has no bar)")
    local.set_ylabel("pages local to the thread after init (fraction)")
    for ax in (times, local):
        ax.grid(True, axis="y", alpha=0.3)


def plot_timeline(fig, runs):
    shown = runs[:MAX_TIMELINES]
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
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
        scale, unit = time_unit(np.nanmax(times))
        image = ax.imshow(r["thread_iteration"] * scale, aspect="auto", interpolation="nearest", cmap="viridis")
        ax.set_ylabel("OpenMP thread")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title("%s: %s init, %d threads, %s" % (os.path.basename(r["file"]), r["init_mode"],
                                                      r["threads"], r["binding"]), fontsize="small")
        fig.colorbar(image, ax=ax, label="thread's time per iteration (%s)" % unit)
    axes[-1].set_xlabel("timed iteration")
    if len(runs) > MAX_TIMELINES:
        print("plot.py: timeline shows the first %d of %d files" % (MAX_TIMELINES, len(runs)), file=sys.stderr)


def time_unit(longest):
    """Seconds shown in the unit that keeps the numbers readable."""
    for scale, unit in ((1, "s"), (1e3, "ms"), (1e6, "\u00b5s")):
        if longest * scale >= 1:
            return scale, unit
    return 1e9, "ns"


def parse_size(value):
    try:
        w, h = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("expected WIDTHxHEIGHT in pixels, e.g. 1000x600")
    if not (200 <= w <= 8000 and 150 <= h <= 8000):
        raise argparse.ArgumentTypeError("from 200x150 to 8000x8000 pixels")
    return w, h


def main():
    parser = argparse.ArgumentParser(description="Plot touchstone run files as PNG.")
    parser.add_argument("--kind", choices=("scaling", "init", "timeline"), default="scaling")
    parser.add_argument("-o", "--output", required=True, help="PNG file to write")
    parser.add_argument("--size", type=parse_size, default=(1000, 600), help="WIDTHxHEIGHT pixels")
    parser.add_argument("files", nargs="+", help="touchstone run files (.h5)")
    args = parser.parse_args()

    runs = [read_run(path) for path in args.files]
    fig = plt.figure(figsize=(args.size[0] / DPI, args.size[1] / DPI), dpi=DPI, layout="constrained")
    {"scaling": plot_scaling, "init": plot_init, "timeline": plot_timeline}[args.kind](fig, runs)
    fig.suptitle(title(args.kind, runs))
    try:
        # No bbox_inches="tight": the image must be exactly the size asked for.
        fig.savefig(args.output, dpi=DPI, format="png")
    except OSError as e:
        fail("cannot write %s: %s" % (args.output, e.strerror or e))


if __name__ == "__main__":
    main()
