#!/usr/bin/env python3
"""OpenCV's cv2.kmeans (CPU, all cores) on the inputs lsm_bench_kmeans dumped,
with the same k, initial centres and iteration count; prints one JSON line per
input, then a Markdown table joining lsm's lines (--ours) with OpenCV's.

cv2.kmeans takes initial labels, not centres: the first labels are each
cell's nearest initial centre (KMEANS_USE_INITIAL_LABELS), which is the first
assignment of Lloyd's algorithm from those centres.
"""
import argparse
import json
import os
import time

import cv2
import numpy as np


def nearest(features, centres, chunk=1 << 24):
    labels = np.empty(len(features), np.int32)
    for s in range(0, len(features), chunk):
        f = features[s:s + chunk]
        d = ((f[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        labels[s:s + chunk] = d.argmin(axis=1)
    return labels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--ours", required=True)
    args = ap.parse_args()
    cv2.setNumThreads(os.cpu_count())
    ours = [json.loads(l) for l in open(args.ours) if l.strip().startswith("{")]
    rows = []
    for line in open(args.manifest):
        m = json.loads(line)
        n = m["width"] * m["height"]
        if m["lab"]:
            data = np.fromfile(m["file"].replace(".u8", ".f32"), np.float32).reshape(n, m["bands"])
        else:
            data = np.fromfile(m["file"], np.uint8).reshape(n, m["bands"]).astype(np.float32)
        centres = np.array(m["init"], np.float32).reshape(-1, m["bands"])
        k = len(centres)
        labels = nearest(data, centres).reshape(-1, 1)
        criteria = (cv2.TERM_CRITERIA_MAX_ITER, m["iterations"], 0)
        t = time.perf_counter()
        inertia, _, found = cv2.kmeans(data, k, labels, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
        seconds = time.perf_counter() - t
        peer = {"input": m["name"], "peer": "opencv_cpu", "threads": cv2.getNumThreads(),
                "iterations": m["iterations"], "ms": seconds * 1e3, "inertia": float(inertia)}
        print(json.dumps(peer), flush=True)
        mine = {o["backend"]: o for o in ours if o.get("input") == m["name"] and "backend" in o}
        rows.append((m, peer, mine))
    print()
    print("| input | cells | k | iterations | lsm CUDA (ms) | per pass (ms) | floor (ms) | lsm CPU (ms) | "
          "OpenCV (ms) | OpenCV / CUDA | OpenCV / lsm CPU | inertia lsm / OpenCV |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m, peer, mine in rows:
        cuda, cpu = mine.get("cuda"), mine.get("cpu")
        ref = cuda or cpu

        def cell(o, key):
            return f"{o[key]:.3f}" if o else "-"

        def ratio(o):
            return f"{peer['ms'] / o['lloyd_ms']:.1f}x" if o else "-"

        agreement = f"{ref['inertia'] / peer['inertia']:.5f}" if ref and peer["inertia"] else "-"
        print(f"| {m['name']} | {m['width'] * m['height']} | {len(m['init']) // m['bands']} | {m['iterations']} | "
              f"{cell(cuda, 'lloyd_ms')} | {cell(cuda, 'per_pass_ms')} | {cell(cuda, 'floor_ms')} | "
              f"{cell(cpu, 'lloyd_ms')} | {peer['ms']:.1f} | {ratio(cuda)} | {ratio(cpu)} | {agreement} |")

if __name__ == "__main__":
    main()
