#!/usr/bin/env python3
"""Moving windows: lsm window beside GRASS r.li on the same raster, same run.

For each square window size (cells) and each metric both compute, times the
whole command of each tool (wall clock; GRASS's import and export are left
out, its r.li module timed alone) and compares their values cell by cell
where both give one, so bench/RESULTS.md can say where the definitions agree.

    apt-get install grass-core     # Debian 12: GRASS 8.2
    /usr/bin/python3 bench/window_peers.py ../shared/data/landcover/pls_bern_valais_g100_clc00.tif --sizes 5 21

GRASS's r.li reads its window from a configuration file
(~/.grass8/r.li/NAME, written here as g.gui.rlisetup would: a moving window
of N x N cells, its size relative to the region) and leaves no value where
the window leaves the raster, which is lsm's --window-edge skip.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from osgeo import gdal

gdal.UseExceptions()

# r.li's patches are 4-connected: lsm's NP is run under the same rule.
SAME_DEFINITION = {"NP": ["--neighbors", "4"]}

# r.li.edgedensity counts the window's border as edge unless -b: lsm's
# default (--boundary-edge 0) counts none of it.
RLI_FLAGS = {"ED": ["-b"]}

# lsm metric -> r.li module, where both offer the landscape-level metric.
PEERS = {
    "SHDI": "r.li.shannon",
    "SIDI": "r.li.simpson",
    "PR": "r.li.richness",
    "NP": "r.li.patchnum",
    "ED": "r.li.edgedensity",
}


def grass(location, *args):
    cmd = ["grass", os.path.join(location, "PERMANENT"), "--exec", *args]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{out.stderr[-2000:]}")


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def compare(ours, theirs):
    """(cells where both have a value, share equal within 1e-6 relative, largest difference)."""
    a = gdal.Open(ours).ReadAsArray().astype(np.float64)
    peer = gdal.Open(theirs)  # kept open while its band is read
    b = peer.ReadAsArray().astype(np.float64)
    nodata = peer.GetRasterBand(1).GetNoDataValue()
    both = np.isfinite(a) & np.isfinite(b)
    if nodata is not None:
        both &= b != nodata
    if not both.any():
        return 0, 0.0, float("nan")
    d = np.abs(a[both] - b[both])
    equal = d <= 1e-6 * np.maximum(1.0, np.abs(a[both]))
    return int(both.sum()), float(equal.mean()), float(d.max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raster")
    ap.add_argument("--build", default="build")
    ap.add_argument("--sizes", type=int, nargs="+", default=[5, 21])
    ap.add_argument("--metrics", nargs="+", default=list(PEERS))
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command; the fastest is kept")
    args = ap.parse_args()
    if not shutil.which("grass"):
        sys.exit("GRASS is not installed: apt-get install grass-core")
    lsm = os.path.abspath(os.path.join(args.build, "lsm"))
    raster = os.path.abspath(args.raster)
    info = gdal.Info(raster, format="json")
    cols, rows = info["size"]
    tmp = tempfile.mkdtemp(prefix="lsm-window-peers-")
    rli = os.path.expanduser("~/.grass8/r.li")
    os.makedirs(rli, exist_ok=True)
    try:
        location = os.path.join(tmp, "location")
        subprocess.run(["grass", "-c", raster, location, "-e"], check=True, capture_output=True)
        grass(location, "r.in.gdal", f"input={raster}", "output=lc", "-o", "--quiet")
        grass(location, "g.region", "raster=lc")
        print(f"{os.path.basename(raster)}: {cols} x {rows} cells; fastest of {args.repeat} runs, seconds")
        print("| metric | window | lsm window | GRASS r.li | r.li / lsm | cells compared | equal | largest difference |")
        print("|---|---|---|---|---|---|---|---|")
        for size in args.sizes:
            config = f"lsm_bench_mw{size}"
            # Sizes relative to the region, a quarter cell over so that GRASS's rounding gives N.
            with open(os.path.join(rli, config), "w") as f:
                f.write(f"SAMPLINGFRAME 0|0|1|1\nSAMPLEAREA -1|-1|{(size + 0.25) / rows!r}|{(size + 0.25) / cols!r}\nMOVINGWINDOW\n")
            for metric in args.metrics:
                module = PEERS[metric]
                ours = os.path.join(tmp, f"lsm_{metric}_{size}.tif")
                lsm_cmd = [lsm, "window", raster, ours, "--metrics", metric, "--level", "land", "--window-cells",
                           str(size), "--window-edge", "skip", "-q", *SAME_DEFINITION.get(metric, [])]
                lsm_s = min(timed(lsm_cmd) for _ in range(args.repeat))
                out = f"{metric.lower()}{size}"
                grass_cmd = ["grass", os.path.join(location, "PERMANENT"), "--exec", module, *RLI_FLAGS.get(metric, []), "input=lc",
                             f"config={config}", f"output={out}", "--overwrite", "--quiet"]
                grass_s = min(timed(grass_cmd) for _ in range(args.repeat))
                theirs = os.path.join(tmp, f"rli_{metric}_{size}.tif")
                grass(location, "r.out.gdal", f"input={out}", f"output={theirs}", "type=Float64", "-c", "--quiet",
                      "--overwrite")
                n, equal, largest = compare(ours, theirs)
                print(f"| {metric} | {size} x {size} | {lsm_s:.2f} | {grass_s:.2f} | {grass_s / lsm_s:.1f}x | {n} | "
                      f"{equal:.1%} | {largest:.3g} |", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for size in args.sizes:
            try:
                os.remove(os.path.join(rli, f"lsm_bench_mw{size}"))
            except FileNotFoundError:
                pass


if __name__ == "__main__":
    main()
