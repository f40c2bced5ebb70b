#!/usr/bin/env python3
"""OpenCV (CPU, all cores) and scikit-image on the grey photo lsm_bench_image
used: a 31-level bilinear pyramid (cv2.resize), the 7-tap Gaussian-derivative
gradient (cv2.sepFilter2D twice + cv2.cartToPolar) and HOG on every level
(cv2.HOGDescriptor.compute over the whole level; skimage.feature.hog on level
0 alone). Prints the Markdown table joining lsm's JSON lines (--ours) with
these and the paper's GPU figures (Zhang, Chai & Yu 2015, Tesla K20X).
"""
import argparse
import json
import math
import time

import cv2
import numpy as np

PAPER_MS = {"gradient": 6.4, "pyramid31": 33.0, "hog31": 329.0}


def best_ms(fn, repeat=5):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def kernels(sigma=1.0, radius=3):
    i = np.arange(-radius, radius + 1, dtype=np.float64)
    g = np.exp(-i * i / (2 * sigma * sigma))
    g /= g.sum()
    d = i * g / (i * i * g).sum()
    return g.astype(np.float32), d.astype(np.float32)


def sizes(w, h, levels=31, scale=1.05):
    return [(int(round(w / scale ** l)), int(round(h / scale ** l))) for l in range(levels)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grey", required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--height", type=int, required=True)
    ap.add_argument("--ours", required=True)
    args = ap.parse_args()
    cv2.setNumThreads(cv2.getNumberOfCPUs())
    img = np.fromfile(args.grey, np.float32).reshape(args.height, args.width)
    img8 = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    g, d = kernels()
    peers = {}

    def gradient():
        gx = cv2.sepFilter2D(img, cv2.CV_32F, d, g, borderType=cv2.BORDER_REPLICATE)
        gy = cv2.sepFilter2D(img, cv2.CV_32F, g, d, borderType=cv2.BORDER_REPLICATE)
        return cv2.cartToPolar(gx, gy)
    peers["gradient"] = best_ms(gradient)

    levels = sizes(args.width, args.height)
    peers["pyramid31"] = best_ms(lambda: [cv2.resize(img, s, interpolation=cv2.INTER_LINEAR) for s in levels[1:]])

    if hasattr(cv2, "HOGDescriptor"):  # objdetect is missing from some OpenCV builds
        level_images = [img8] + [cv2.resize(img8, s, interpolation=cv2.INTER_LINEAR) for s in levels[1:]]
        descriptors = []
        for im in level_images:
            h, w = im.shape
            win = ((w // 8) * 8, (h // 8) * 8)
            descriptors.append((cv2.HOGDescriptor(win, (24, 24), (8, 8), (8, 8), 9), im[: win[1], : win[0]]))
        peers["hog31"] = best_ms(lambda: [hd.compute(im) for hd, im in descriptors], repeat=3)
    else:
        print(json.dumps({"opencv": cv2.__version__, "HOGDescriptor": "absent from this build"}))
    try:
        from skimage.feature import hog
        peers["skimage_hog_level0"] = best_ms(
            lambda: hog(img.astype(np.float64), 9, (8, 8), (3, 3), block_norm="L2-Hys"), repeat=1)
        peers["skimage_hog31"] = best_ms(lambda: [hog(cv2.resize(img, s, interpolation=cv2.INTER_LINEAR).astype(
            np.float64), 9, (8, 8), (3, 3), block_norm="L2-Hys") for s in levels], repeat=1)
    except Exception as e:  # noqa: BLE001 - report, do not fail the table
        print(json.dumps({"skimage": str(e)}))
    print(json.dumps({"peers_ms": peers, "cpu_threads": cv2.getNumberOfCPUs()}))

    rows = [json.loads(line) for line in open(args.ours) if line.startswith("{")]
    print("\n| input | step | lsm CUDA ms | x floor | lsm CPU ms | OpenCV ms | OpenCV / CUDA | paper (K20X) ms |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r.get("backend") != "cuda":
            continue
        cpu = next((c["ms"] for c in rows if c.get("backend") == "cpu" and c["input"] == r["input"]
                    and c["step"] == r["step"]), None)
        is_photo = r["width"] == args.width and r["height"] == args.height
        cv = peers.get(r["step"]) if is_photo else None
        if cv is None and is_photo and r["step"] == "hog31":
            cv = peers.get("skimage_hog31")  # when OpenCV lacks HOGDescriptor
        paper = PAPER_MS.get(r["step"]) if is_photo else None
        print("| {} ({}x{}) | {} | {:.4f} | {:.2f} | {} | {} | {} | {} |".format(
            r["input"], r["width"], r["height"], r["step"], r["ms"], r["x_floor"],
            "-" if cpu is None else "{:.2f}".format(cpu), "-" if cv is None else "{:.2f}".format(cv),
            "-" if cv is None else "{:.0f}x".format(cv / r["ms"]), "-" if paper is None else paper))


if __name__ == "__main__":
    main()
