#!/usr/bin/env python3
"""Peers of the GPU labeling benchmark, and the one table of the whole run.

Reads the inputs that lsm_bench_gpu_label dumped (--manifest), labels each
class by class with cupyx.scipy.ndimage.label (GPU) and OpenCV's
connectedComponentsWithStats (CPU), 8-cell rule, and prints one Markdown
table that joins these timings with lsm's (--ours, JSON lines of
lsm_bench_gpu_label) and NPP's (--npp, JSON lines of lsm_bench_npp_label).
Patch counts of every peer are shown next to lsm's so that they can be
compared in the same run. Missing peers are reported, not fatal.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np


def read_jsonl(path):
    rows = {}
    header = {}
    if not path:
        return header, rows
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            obj = json.loads(line)
            if "input" in obj:
                rows.setdefault(obj["input"], {}).update(obj)
            else:
                header.update(obj)
    return header, rows


def classes_of(a, nodata):
    values = np.unique(a)
    return [int(v) for v in values if int(v) != nodata]


def time_cupy(a, classes, repeat):
    import cupy as cp
    import cupyx.scipy.ndimage as ndi

    d = cp.asarray(a)
    structure = cp.ones((3, 3), dtype=bool)

    def once():
        total = 0
        for c in classes:
            _, n = ndi.label(d == c, structure=structure)
            total += int(n)
        return total

    patches = once()  # warm-up (kernel compilation)
    times = []
    for _ in range(repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        once()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    del d
    cp.get_default_memory_pool().free_all_blocks()
    return statistics.median(times), patches


def time_opencv(a, classes, repeat):
    import cv2

    def once():
        total = 0
        for c in classes:
            n, _, _, _ = cv2.connectedComponentsWithStats((a == c).astype(np.uint8), connectivity=8, ltype=cv2.CV_32S)
            total += n - 1
        return total

    patches = once()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        once()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), patches


def fmt(v, spec):
    return "–" if v is None else format(v, spec)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--manifest", required=True)
    p.add_argument("--ours", required=True)
    p.add_argument("--npp")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--opencv-max-mpx", type=float, default=60.0, help="skip OpenCV above this size (CPU time)")
    a = p.parse_args()

    header, ours = read_jsonl(a.ours)
    _, npp = read_jsonl(a.npp)
    with open(a.manifest) as f:
        manifest = json.load(f)

    peers = {}
    for entry in manifest:
        name = entry["input"]
        cells = np.fromfile(entry["path"], dtype=np.uint8).reshape(entry["height"], entry["width"])
        classes = classes_of(cells, entry["nodata"])
        row = {}
        try:
            row["cupy_ms"], row["cupy_patches"] = time_cupy(cells, classes, a.repeat)
        except Exception as e:  # a missing or failing peer is reported, not fatal
            row["cupy_error"] = str(e).splitlines()[0][:60]
        if cells.size / 1e6 <= a.opencv_max_mpx:
            try:
                row["opencv_ms"], row["opencv_patches"] = time_opencv(cells, classes, a.repeat)
            except Exception as e:
                row["opencv_error"] = str(e).splitlines()[0][:60]
        peers[name] = row
        print(json.dumps({"input": name, **row}), file=sys.stderr, flush=True)

    print(f"\nDevice: {header.get('device', '?')}; device-to-device copy {header.get('copy_GBps', 0):.0f} GB/s "
          "(read + write); floor = 5 bytes per cell at that rate. 8-cell rule. Times in ms, medians.\n")
    cols = ["input", "Mpx", "classes", "patches", "lsm kernel", "Gpx/s", "× floor", "lsm end-to-end",
            "CPU backend check", "NPP UF+compress", "NPP +info", "NPP labels", "lsm ÷ NPP", "cupy per class",
            "cupy patches", "OpenCV CPU per class", "OpenCV patches", "lsm stages: blocks/join/rank/roots/sums"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for entry in manifest:
        name = entry["input"]
        o, n, q = ours.get(name, {}), npp.get(name, {}), peers.get(name, {})
        k = o.get("kernel_ms")
        npp_ms = n.get("npp_ms")
        ratio = (npp_ms / k) if (npp_ms and k) else None
        cells = [name, fmt(o.get("mpx"), ".1f"), str(o.get("classes", "–")), str(o.get("patches", "–")),
                 fmt(k, ".3f"), fmt(o.get("gpx_per_s"), ".1f"), fmt(o.get("x_floor"), ".1f"),
                 fmt(o.get("e2e_ms"), ".2f"), o.get("cpu_check", "–"),
                 fmt(npp_ms, ".3f") if npp_ms else n.get("npp_error", "–"), fmt(n.get("npp_info_ms"), ".3f"),
                 str(n.get("npp_labels", "–")), fmt(ratio, ".1f"),
                 fmt(q.get("cupy_ms"), ".2f") if "cupy_ms" in q else q.get("cupy_error", "–"),
                 str(q.get("cupy_patches", "–")),
                 fmt(q.get("opencv_ms"), ".1f") if "opencv_ms" in q else q.get("opencv_error", "not run"),
                 str(q.get("opencv_patches", "–")),
                 "/".join(format(v, ".2f") for v in o.get("stage_ms", []))]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
