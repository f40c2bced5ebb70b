#!/usr/bin/env python3
"""The GPU path's regression guard (issue 53, item 5).

Reads the logs `bench/run_device.sh` leaves in $OUT — the 1.07 Gpx stream
through the tile scheduler (stream.log) and the full FRAGSTATS set on the
47 Mpx mosaics in memory (fullset.log) — into one table of figures with the
commit and the GPU, and compares each with bench/device_baseline.json: a
figure slower than its baseline by more than the noise (the baseline's
`noise`, a fraction: the spread seen between fresh machines of one kind) is
marked WORSE. Prints the table as Markdown and appends the figures as one
JSON line to $OUT/guard.jsonl; exits 0 (it reports, the reader decides).

    python3 bench/device_guard.py OUT --commit SHA [--baseline bench/device_baseline.json]
    python3 bench/device_guard.py OUT --commit SHA --write-baseline   # record this run as the baseline

Run on the device machine by `LSM_STEPS="guard" bash bench/run_device.sh`.
"""
import argparse
import json
import os
import re
import sys


def stream_figures(path):
    """lsm_bench_label's rows: backend, tile, median_ms, Mpx/s, patches, scan_ms, label_only_ms, read_only_ms,
    in_backend_ms."""
    figures = {}
    if not os.path.exists(path):
        return figures
    for line in open(path):
        cells = line.split()
        if len(cells) == 9 and cells[0] in ("cuda", "cpu") and re.fullmatch(r"\d+", cells[1]):
            key = "1.07 Gpx stream, %s, tiles %s" % (cells[0], cells[1] if cells[1] != "0" else "default")
            figures[key + ": scan and tables"] = float(cells[2])
            figures[key + ": scan"] = float(cells[5])
            figures[key + ": scheduler alone"] = float(cells[7])
            figures[key + ": in backend"] = float(cells[8])
    return figures


def fullset_figures(path):
    """lsm_bench_metrics' rows (backend, stage, ms[, patches]) under '== raster' headings."""
    figures = {}
    if not os.path.exists(path):
        return figures
    raster = None
    for line in open(path):
        if line.startswith("== "):
            raster = line[3:].strip()
            continue
        m = re.match(r"^(cuda|cpu)\s+(.+?)\s+(\d[\d.]*)(\s+\d+)?\s*$", line)  # not nan (a stage the backend lacks)
        if raster and m:  # every row is a median (the "alone" stages carry no patch count)
            figures["%s in memory, %s, %s" % (raster, m.group(1), m.group(2).strip())] = float(m.group(3))
    return figures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--baseline", default=os.path.join(os.path.dirname(__file__), "device_baseline.json"))
    ap.add_argument("--write-baseline", action="store_true")
    args = ap.parse_args()
    gpu = open(os.path.join(args.out, "gpu.txt")).read().splitlines()[1:2] if os.path.exists(
        os.path.join(args.out, "gpu.txt")) else ["unknown"]
    figures = {}
    figures.update(stream_figures(os.path.join(args.out, "stream.log")))
    figures.update(fullset_figures(os.path.join(args.out, "fullset.log")))
    if not figures:
        print("device_guard: no figures in %s (run the stream and fullset steps)" % args.out, file=sys.stderr)
        return 1
    record = {"commit": args.commit, "gpu": gpu[0] if gpu else "unknown", "figures_ms": figures}
    with open(os.path.join(args.out, "guard.jsonl"), "a") as f:
        f.write(json.dumps(record) + "\n")
    if args.write_baseline:
        with open(args.baseline, "w") as f:
            json.dump({"commit": args.commit, "gpu": record["gpu"], "noise": 0.3, "figures_ms": figures}, f,
                      indent=1, sort_keys=True)
            f.write("\n")
    baseline = json.load(open(args.baseline)) if os.path.exists(args.baseline) else {"figures_ms": {}, "noise": 0.3}
    noise = baseline.get("noise", 0.3)
    worse = 0
    print("commit %s on %s; baseline %s on %s (noise ±%.0f %%)" % (
        args.commit, record["gpu"], baseline.get("commit", "none"), baseline.get("gpu", "none"), noise * 100))
    print()
    print("| figure | baseline ms | now ms | change | verdict |")
    print("|---|---|---|---|---|")
    for name in sorted(figures):
        now = figures[name]
        base = baseline["figures_ms"].get(name)
        if base is None:
            print("| %s | – | %.1f | – | new |" % (name, now))
            continue
        change = now / base - 1 if base > 0 else 0.0
        verdict = "WORSE" if change > noise else ("better" if change < -noise else "within noise")
        worse += verdict == "WORSE"
        print("| %s | %.1f | %.1f | %+.0f %% | %s |" % (name, base, now, change * 100, verdict))
    print()
    print("%d of %d figures worse than the baseline beyond the noise" % (worse, len(figures)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
