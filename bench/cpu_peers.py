#!/usr/bin/python3
"""lsm's CPU backend against pylandstats and landscapemetrics on the same area/perimeter/class work.

The work: every patch's AREA and PERIM and every class's CA, NP and TE (8-cell rule, landscape
boundary not counted as edge), from a categorical GeoTIFF. Each tool is timed twice:
  in memory  from the raster already in memory (lsm: lsm_bench_metrics "first pass" on a raw copy;
             pylandstats: Landscape(array) and its methods; landscapemetrics: the metrics' _calc
             functions sharing one prepare_extras(), as calculate_lsm() does);
  from file  GeoTIFF in, results out (lsm: the `lsm metrics` command, tables written as CSV;
             pylandstats: Landscape(path); landscapemetrics: lsm_p_area(), lsm_p_perim(), lsm_c_ca(),
             lsm_c_np(), lsm_c_te() on a terra SpatRaster). Interpreter start-up is not counted
             for the peers; lsm's process start is;
  process    a fresh process per run, timed from outside: start-up, imports (pylandstats, rasterio;
             landscapemetrics, terra), GeoTIFF in, the tables written as CSV (--process-repeat runs;
             lsm: as "from file").
The "GDAL floor" row is lsm_bench_gdal_floor's process (GDAL loaded, the raster opened, its CRS
read, band 1 read, nothing else), timed like lsm's: no GDAL-based tool's whole run can be faster,
and "÷ floor" is the highest process ratio that such a tool could reach against each peer.
Medians of --repeat runs (--r-repeat for landscapemetrics). The results are checked against
lsm's in the same run: patch count, every class's NP and CA and its sorted patch areas must be
equal; PERIM and TE sums per class are reported as the largest relative difference, since the
peers pair edge lengths with the cell width/height differently on non-square cells.

Peers: pylandstats is imported as installed, else from --pylandstats DIR (a directory with its
landscape.py); landscapemetrics is loaded from the R library, else from --r-lib DIR.

  /usr/bin/python3 bench/cpu_peers.py --build build RASTER.tif [RASTER.tif ...]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

PY_PEER = r'''
import json, statistics, sys, time
if sys.argv[4]:
    sys.path.insert(0, sys.argv[4])
try:
    from pylandstats import Landscape
except ImportError:
    from landscape import Landscape
import rasterio
path, repeat, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with rasterio.open(path) as src:
    arr, res, nodata = src.read(1), src.res, src.nodata
def work(ls):
    area, perim = ls.area(), ls.perimeter()
    cls = {int(c): [ls.total_area(class_val=c), int(ls.number_of_patches(class_val=c)),
                    ls.total_edge(class_val=c)] for c in ls.classes}
    return area, perim, cls
def timed(make):
    t0 = time.perf_counter(); r = work(make()); return time.perf_counter() - t0, r
mem = [timed(lambda: Landscape(arr, res=res, nodata=nodata))[0] for _ in range(repeat)]
fil, results = zip(*[timed(lambda: Landscape(path)) for _ in range(repeat)])
area, perim, cls = results[0]
json.dump({"mem_s": statistics.median(mem), "file_s": statistics.median(fil),
           "patches": [[int(c), a, p] for c, a, p in zip(area.class_val, area.area, perim.perimeter)],
           "classes": cls}, open(out, "w"))
'''

# One fresh process: imports, GeoTIFF in, tables out as CSV (the "process" timing).
PY_ONCE = r'''
import sys
if sys.argv[3]:
    sys.path.insert(0, sys.argv[3])
try:
    from pylandstats import Landscape
except ImportError:
    from landscape import Landscape
path, out = sys.argv[1], sys.argv[2]
ls = Landscape(path)
ls.area().assign(perimeter=ls.perimeter().perimeter).to_csv(out + ".patch.csv", index=False)
with open(out + ".class.csv", "w") as f:
    for c in ls.classes:
        f.write(f"{c},{ls.total_area(class_val=c)},{ls.number_of_patches(class_val=c)},{ls.total_edge(class_val=c)}\n")
'''

R_ONCE = r'''
args <- commandArgs(trailingOnly = TRUE)
lib <- if (nchar(args[3]) > 0) args[3] else NULL
suppressMessages(library(landscapemetrics, lib.loc = lib))
r <- terra::rast(args[1])
write.csv(cbind(lsm_p_area(r), perim = lsm_p_perim(r)$value), paste0(args[2], ".patch.csv"), row.names = FALSE)
write.csv(rbind(lsm_c_ca(r), lsm_c_np(r), lsm_c_te(r)), paste0(args[2], ".class.csv"), row.names = FALSE)
'''

R_PEER = r'''
args <- commandArgs(trailingOnly = TRUE)
lib <- if (nchar(args[4]) > 0) args[4] else NULL
suppressMessages(library(landscapemetrics, lib.loc = lib))
path <- args[1]; repeat_n <- as.integer(args[2]); out <- args[3]
r <- terra::rast(path)
res <- terra::res(r)
mat <- terra::as.matrix(r, wide = TRUE)
metrics <- c("lsm_p_area", "lsm_p_perim", "lsm_c_ca", "lsm_c_np", "lsm_c_te")
from_file <- function() {
    r <- terra::rast(path)
    list(lsm_p_area(r), lsm_p_perim(r), lsm_c_ca(r), lsm_c_np(r), lsm_c_te(r))
}
in_memory <- function() {
    ex <- prepare_extras(metrics, landscape_mat = mat, directions = 8, resolution = res)
    list(lsm_p_area_calc(mat, 8, res, ex), lsm_p_perim_calc(mat, 8, res, ex), lsm_c_ca_calc(mat, 8, res, ex),
         lsm_c_np_calc(mat, 8, ex), lsm_c_te_calc(mat, FALSE, 8, res, ex))
}
secs <- function(f) { t0 <- proc.time()[["elapsed"]]; v <- f(); list(t = proc.time()[["elapsed"]] - t0, v = v) }
mem <- sapply(seq_len(repeat_n), function(i) secs(in_memory)$t)
runs <- lapply(seq_len(repeat_n), function(i) secs(from_file))
v <- runs[[1]]$v
patches <- data.frame(class = v[[1]]$class, area = v[[1]]$value, perim = v[[2]]$value)
classes <- data.frame(class = v[[3]]$class, ca = v[[3]]$value, np = v[[4]]$value, te = v[[5]]$value)
write.csv(patches, paste0(out, ".patches.csv"), row.names = FALSE)
write.csv(classes, paste0(out, ".classes.csv"), row.names = FALSE)
writeLines(format(c(median(mem), median(sapply(runs, function(x) x$t))), digits = 6), paste0(out, ".times"))
'''


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"cpu_peers: {cmd[0]} failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    return done


def raster_info(path):
    info = json.loads(run(["gdalinfo", "-json", path]).stdout)
    band = info["bands"][0]
    return info["size"][0], info["size"][1], band.get("noDataValue"), band["type"], info["geoTransform"][1]


def lsm_runs(build, path, tmp, repeat):
    width, height, nodata, band_type, cell = raster_info(path)
    prefix = os.path.join(tmp, "lsm")
    cmd = [os.path.join(build, "lsm"), "metrics", path, "--out", prefix, "-q", "--backend", "cpu",
           "--metrics", "AREA,PERIM,CA,NP,TE"]
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(cmd)
        walls.append(time.perf_counter() - t0)
    engine_ms = None
    if band_type == "Byte":  # lsm_bench_metrics reads raw Byte rasters
        raw = os.path.join(tmp, "raster.raw")
        run(["gdal_translate", "-q", "-of", "ENVI", path, raw])
        out = run([os.path.join(build, "bench", "lsm_bench_metrics"), "--raw", raw, "--width", str(width),
                   "--height", str(height), "--nodata", str(int(nodata) if nodata is not None else -1),
                   "--cell", str(cell), "--repeat", str(repeat), "--backends", "cpu",
                   "--stages", "first pass"]).stdout
        engine_ms = float(next(line.split()[3] for line in out.splitlines() if line.startswith("cpu")))
    patches = [[int(r["TYPE"]), float(r["AREA"]), float(r["PERIM"])]
               for r in csv.DictReader(open(prefix + ".patch.csv"))]
    classes = {int(r["TYPE"]): [float(r["CA"]), int(r["NP"]), float(r["TE"])]
               for r in csv.DictReader(open(prefix + ".class.csv"))}
    return {"mem_s": engine_ms / 1e3 if engine_ms else None, "file_s": statistics.median(walls),
            "process_s": statistics.median(walls),
            "patches": patches, "classes": classes, "cells": width * height}


def floor_seconds(build, path, repeat):
    """Median wall time of lsm_bench_gdal_floor's process on `path` (None when it is not built)."""
    floor = os.path.join(build, "bench", "lsm_bench_gdal_floor")
    return process_seconds([floor, path], repeat) if os.path.exists(floor) else None


def process_seconds(cmd, repeat):
    """Median wall time of `repeat` fresh runs of `cmd` (None for 0 runs)."""
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(cmd)
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls) if walls else None


def pylandstats_runs(path, tmp, repeat, peer_dir, process_repeat):
    out = os.path.join(tmp, "pls.json")
    run([sys.executable, "-c", PY_PEER, path, str(repeat), out, peer_dir or ""])
    result = json.load(open(out))
    result["classes"] = {int(c): v for c, v in result["classes"].items()}
    result["process_s"] = process_seconds([sys.executable, "-c", PY_ONCE, path, os.path.join(tmp, "pls_once"),
                                           peer_dir or ""], process_repeat)
    return result


def landscapemetrics_runs(path, tmp, repeat, r_lib, process_repeat):
    out = os.path.join(tmp, "lm")
    script, once = os.path.join(tmp, "peer.R"), os.path.join(tmp, "once.R")
    open(script, "w").write(R_PEER)
    open(once, "w").write(R_ONCE)
    run(["Rscript", script, path, str(repeat), out, r_lib or ""])
    process_s = process_seconds(["Rscript", once, path, os.path.join(tmp, "lm_once"), r_lib or ""], process_repeat)
    mem_s, file_s = (float(x) for x in open(out + ".times").read().split())
    patches = [[int(r["class"]), float(r["area"]), float(r["perim"])]
               for r in csv.DictReader(open(out + ".patches.csv"))]
    classes = {int(r["class"]): [float(r["ca"]), int(float(r["np"])), float(r["te"])]
               for r in csv.DictReader(open(out + ".classes.csv"))}
    return {"mem_s": mem_s, "file_s": file_s, "process_s": process_s, "patches": patches, "classes": classes}


def rel(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def check(ref, peer):
    """Problems of `peer` against lsm's results (empty: equal), and the largest PERIM/TE differences."""
    problems = []
    if len(peer["patches"]) != len(ref["patches"]):
        problems.append(f"{len(peer['patches'])} patches, lsm {len(ref['patches'])}")
    areas, perims = defaultdict(list), defaultdict(lambda: [0.0, 0.0])
    for k, rows in ((0, ref["patches"]), (1, peer["patches"])):
        for c, a, p in rows:
            areas[(k, c)].append(a)
            perims[c][k] += p
    for c, (ca, np_, _) in ref["classes"].items():
        if c not in peer["classes"]:
            problems.append(f"class {c} missing")
            continue
        pca, pnp, _ = peer["classes"][c]
        if pnp != np_ or rel(pca, ca) > 1e-9:
            problems.append(f"class {c}: NP {pnp} CA {pca}, lsm {np_} {ca}")
        a, b = sorted(areas[(0, c)]), sorted(areas[(1, c)])
        if len(a) != len(b) or any(rel(x, y) > 1e-9 for x, y in zip(a, b)):
            problems.append(f"class {c}: patch areas differ")
    perim_diff = max(rel(p[0], p[1]) for p in perims.values())
    te_diff = max(rel(v[2], peer["classes"][c][2]) for c, v in ref["classes"].items() if c in peer["classes"])
    return problems, perim_diff, te_diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rasters", nargs="+")
    ap.add_argument("--build", default="build")
    ap.add_argument("--pylandstats", help="directory with pylandstats' landscape.py, when it is not installed")
    ap.add_argument("--r-lib", help="R library holding landscapemetrics, when it is not in the default one")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--r-repeat", type=int, default=3)
    ap.add_argument("--process-repeat", type=int, default=1, help="fresh peer processes per raster (0: none)")
    a = ap.parse_args()
    rows, failed = [], False
    for path in a.rasters:
        with tempfile.TemporaryDirectory() as tmp:
            ref = lsm_runs(a.build, path, tmp, a.repeat)
            floor_s = floor_seconds(a.build, path, a.repeat)
            peers = {"pylandstats": pylandstats_runs(path, tmp, a.repeat, a.pylandstats, a.process_repeat),
                     "landscapemetrics": landscapemetrics_runs(path, tmp, a.r_repeat, a.r_lib, a.process_repeat)}
        # all three report AREA and CA in ha, PERIM and TE in m
        name = os.path.basename(path)
        rows.append((name, f"{ref['cells'] / 1e6:.2f}", "lsm (cpu)", ref["mem_s"], ref["file_s"], ref["process_s"],
                     "", "", "", "", "", "", f"{len(ref['patches'])}"))
        if floor_s:
            rows.append((name, "", "GDAL floor", None, None, floor_s, "", "", "", "", "", "", ""))
        for peer, res in peers.items():
            problems, perim_diff, te_diff = check(ref, res)
            failed |= bool(problems)
            mem_ratio = res["mem_s"] / ref["mem_s"] if ref["mem_s"] else None
            process_ratio = res["process_s"] / ref["process_s"] if res["process_s"] else None
            floor_ratio = res["process_s"] / floor_s if res["process_s"] and floor_s else None
            rows.append((name, "", peer, res["mem_s"], res["file_s"], res["process_s"], mem_ratio,
                         res["file_s"] / ref["file_s"], process_ratio, floor_ratio, f"{perim_diff:.1e}",
                         f"{te_diff:.1e}", "equal" if not problems else "; ".join(problems[:3])))
    header = ("input", "Mcells", "tool", "in memory s", "from file s", "process s", "÷ lsm (mem)", "÷ lsm (file)",
              "÷ lsm (process)", "÷ floor (process)", "PERIM diff", "TE diff", "patches/NP/CA/areas")
    fmt = lambda v: f"{v:.4f}" if isinstance(v, float) and v < 1 else (f"{v:.2f}" if isinstance(v, float) else
                                                                      ("—" if v is None else str(v)))
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(fmt(v) for v in r) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
