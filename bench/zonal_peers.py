#!/usr/bin/python3
"""`lsm zonal` against pylandstats and landscapemetrics: a grid of sample tiles and plots around points.

The work, on one categorical GeoTIFF in a projected CRS:
  grid     square tiles of --grid cells from the top-left corner (partial tiles at the right and
           bottom edges), each its own landscape; tiles without a class are left out by every tool
           (pylandstats' ZonalGridAnalysis drops them, lsm reports them in a note);
  plots    --points random points (seeded, inside the raster) and a circular plot of radius
           --buffer (CRS units) around each, each plot its own landscape (cell-centre rule).
Metrics: landscape NP, TA, ED, SHDI and class PLAND (FRAGSTATS' definitions; boundary not counted
as edge, 8-cell rule) — the ones whose definitions all three tools share.

Each tool is timed as a fresh process (start-up and imports included, GeoTIFF and zones in,
tables out), --repeat times, median reported:
  lsm               `lsm zonal RASTER --grid N` / `--zones points.gpkg --buffer R`;
  pylandstats       ZonalGridAnalysis(zone_width=N cells) / ZonalAnalysis on the points buffered
                    by shapely (a 64-gon: a cell whose centre lies between the polygon and the
                    circle is left out, so a few plots differ by a cell), then
                    compute_landscape_metrics_df and compute_class_metrics_df;
                    BufferAnalysis (one point, its buffers, a UTM reprojection) timed on
                    --buffer-analysis-points points and scaled to all of them;
  landscapemetrics  sample_lsm(plot_type = "square" over the grid's tile centres, size = half the
                    tile side; "circle" around the points, size = R), what = the metrics above.
Values are compared zone by zone with lsm's: the largest relative difference per metric and the
number of zones equal to lsm's (every metric within 1e-9, ED within ED_TOLERANCE).

Peers: pylandstats from --pylandstats DIR (its src/pylandstats folder: the package is imported
with only its landscape, multilandscape and zonal modules, so that its spatial-signature extras
(clustergram, scikit-learn, seaborn) are not needed; adjacency.pyx built with pyximport) or as
installed; landscapemetrics from the R library, else from --r-lib DIR.

  /usr/bin/python3 bench/zonal_peers.py --build build --pylandstats PEERS/pylandstats/src/pylandstats \
      --r-lib PEERS/rlib ../shared/data/landcover/pls_bern_valais_g100_clc00.tif

Setting up the peers on Debian 12 (their public sources: martibosch/pylandstats and
r-spatialecology/landscapemetrics on GitHub, unpacked under PEERS):
  apt-get install python3-numpy python3-scipy python3-pandas python3-rasterio python3-geopandas \
      python3-dask python3-sklearn python3-matplotlib cython3 python3-dev \
      r-base-core r-cran-rcpp r-cran-terra r-cran-tibble r-cran-cli r-cran-ggplot2
  R CMD INSTALL --no-docs -l PEERS/rlib PEERS/landscapemetrics
"""
import argparse
import csv
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from osgeo import gdal, ogr, osr

gdal.UseExceptions()

METRICS = ["NP", "TA", "ED", "SHDI"]
# The peers pair a horizontal edge with the cell's width and a vertical one with its height the
# other way round from FRAGSTATS (bench/cpu_peers.py): on cells that are not quite square
# (bern_valais: 100.005 x 100.029 m) edge lengths differ by ~1e-4, so ED is compared to 1e-3.
ED_TOLERANCE = 1e-3

PY_PEER = r'''
import json, sys, time, types, importlib.util, os
pkg_dir, mode, path, zones_arg, out = sys.argv[1:6]
t_start = time.perf_counter()
if pkg_dir:
    # The package without its __init__ (which imports the spatial-signature extras).
    import numpy, pyximport
    pyximport.install(setup_args={"include_dirs": numpy.get_include()}, language_level=3)
    pkg = types.ModuleType("pylandstats"); pkg.__path__ = [pkg_dir]; sys.modules["pylandstats"] = pkg
import geopandas as gpd
if not hasattr(gpd.GeoSeries, "union_all"):  # Debian 12's geopandas 0.12 names it unary_union
    gpd.GeoSeries.union_all = lambda self: self.unary_union
from pylandstats import zonal
names = {"NP": "number_of_patches", "TA": "total_area", "ED": "edge_density", "SHDI": "shannon_diversity_index"}
if mode == "grid":
    side = float(zones_arg)
    za = zonal.ZonalGridAnalysis(path, zone_width=side, zone_height=side)
elif mode == "plots":
    points_path, radius = zones_arg.split("|")
    points = gpd.read_file(points_path)
    za = zonal.ZonalAnalysis(path, zones=points.geometry.buffer(float(radius)), zone_index=list(points["ID"]))
else:  # one BufferAnalysis per point
    points_path, radius, count = zones_arg.split("|")
    points = gpd.read_file(points_path).head(int(count))
    rows = []
    t_loop = time.perf_counter()
    for _, p in points.iterrows():
        ba = zonal.BufferAnalysis(path, gpd.GeoSeries([p.geometry], crs=points.crs), [float(radius)])
        land = ba.compute_landscape_metrics_df(metrics=list(names.values()))
        ba.compute_class_metrics_df(metrics=["proportion_of_landscape"])
        rows.append(len(land))
    json.dump({"start_seconds": t_loop - t_start, "loop_seconds": time.perf_counter() - t_loop, "zones": len(rows)},
              open(out, "w"))
    sys.exit(0)
land = za.compute_landscape_metrics_df(metrics=list(names.values()))
cls = za.compute_class_metrics_df(metrics=["proportion_of_landscape"])
seconds = time.perf_counter() - t_start
result = {"seconds": seconds, "land": {}, "cls": {}, "bounds": {}}
for zone, row in land.iterrows():
    result["land"][str(zone)] = {m: float(row[n]) for m, n in names.items()}
for (cls_code, zone), row in cls.iterrows():
    if row["proportion_of_landscape"] == row["proportion_of_landscape"]:
        result["cls"].setdefault(str(zone), {})[str(int(cls_code))] = float(row["proportion_of_landscape"])
for zone, geom in zip(za.zone_gser.index, za.zone_gser):
    result["bounds"][str(zone)] = list(geom.bounds)
json.dump(result, open(out, "w"))
'''

R_PEER = r'''
args <- commandArgs(trailingOnly = TRUE)
if (nzchar(args[1])) .libPaths(c(args[1], .libPaths()))
t_start <- Sys.time()
suppressPackageStartupMessages({ library(landscapemetrics); library(terra) })
r <- rast(args[2])
pts <- vect(args[3])
what <- c("lsm_l_np", "lsm_l_ta", "lsm_l_ed", "lsm_l_shdi", "lsm_c_pland")
res <- sample_lsm(r, y = pts, shape = args[4], size = as.numeric(args[5]), what = what,
                  plot_id = pts$ID, verbose = FALSE)
seconds <- as.numeric(difftime(Sys.time(), t_start, units = "secs"))
write.csv(as.data.frame(res), args[6], row.names = FALSE)
cat(seconds, file = paste0(args[6], ".seconds"))
'''


def run_timed(cmd, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def read_lsm_tables(prefix):
    land, cls = {}, {}
    with open(prefix + ".land.csv") as f:
        for row in csv.DictReader(f):
            land[row["ZONE"]] = {m: float(row[m]) for m in METRICS}
    with open(prefix + ".class.csv") as f:
        for row in csv.DictReader(f):
            cls.setdefault(row["ZONE"], {})[row["TYPE"]] = float(row["PLAND"])
    return land, cls


def relative(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300) if a != b else 0.0


def compare(lsm_land, lsm_cls, peer_land, peer_cls, not_compared=()):
    """Largest relative difference per metric and zones differing by > 1e-9, over zones both have."""
    worst = {m: 0.0 for m in METRICS + ["PLAND"] if m not in not_compared}
    differing = set()
    common = sorted(set(lsm_land) & set(peer_land))
    for z in common:
        for m in worst:
            if m == "PLAND": continue
            d = relative(lsm_land[z][m], peer_land[z][m])
            worst[m] = max(worst[m], d)
            if d > (ED_TOLERANCE if m == "ED" else 1e-9): differing.add(z)
        a, b = lsm_cls.get(z, {}), peer_cls.get(z, {})
        for c in set(a) | set(b):
            d = relative(a.get(c, 0.0), b.get(c, 0.0))
            worst["PLAND"] = max(worst["PLAND"], d)
            if d > 1e-9: differing.add(z)
    return common, worst, differing


def make_points(raster_path, count, seed, out_path):
    """Random points inside the raster whose cell holds a class, as a GeoPackage with an ID field."""
    ds = gdal.Open(raster_path)
    band = ds.GetRasterBand(1)
    gt = ds.GetGeoTransform()
    nodata = band.GetNoDataValue()
    values = band.ReadRaster()
    rng = random.Random(seed)
    srs = ds.GetSpatialRef()
    drv = ogr.GetDriverByName("GPKG")
    if os.path.exists(out_path): drv.DeleteDataSource(out_path)
    out = drv.CreateDataSource(out_path)
    layer = out.CreateLayer("points", srs, ogr.wkbPoint)
    layer.CreateField(ogr.FieldDefn("ID", ogr.OFTInteger))
    made = 0
    import array
    typecode = {gdal.GDT_Byte: "B", gdal.GDT_UInt16: "H", gdal.GDT_Int16: "h", gdal.GDT_Int32: "i"}[band.DataType]
    cells = array.array(typecode, values)
    while made < count:
        x, y = rng.uniform(0, ds.RasterXSize), rng.uniform(0, ds.RasterYSize)
        v = cells[int(y) * ds.RasterXSize + int(x)]
        if nodata is not None and v == nodata: continue
        f = ogr.Feature(layer.GetLayerDefn())
        made += 1
        f.SetField("ID", made)
        p = ogr.Geometry(ogr.wkbPoint)
        p.AddPoint_2D(gt[0] + x * gt[1], gt[3] + y * gt[5])
        f.SetGeometry(p)
        layer.CreateFeature(f)
    out = None
    return gt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raster")
    ap.add_argument("--build", default="build")
    ap.add_argument("--pylandstats", default="", help="pylandstats' src/pylandstats folder (else as installed)")
    ap.add_argument("--r-lib", default="", help="an R library folder holding landscapemetrics")
    ap.add_argument("--grid", type=int, default=46, help="tile side in cells")
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--buffer", type=float, default=1000.0, help="plot radius in CRS units")
    ap.add_argument("--buffer-analysis-points", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--peer-repeat", type=int, default=1)
    ap.add_argument("--skip", default="", help="comma-separated: pylandstats,landscapemetrics,bufferanalysis")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    lsm = os.path.join(a.build, "lsm")
    work = tempfile.mkdtemp(prefix="lsm_zonal_peers_")
    points = os.path.join(work, "points.gpkg")
    gt = make_points(a.raster, a.points, 42, points)
    side = a.grid * gt[1]
    rows = []

    # lsm
    grid_prefix, plots_prefix = os.path.join(work, "lsm_grid"), os.path.join(work, "lsm_plots")
    metrics = ",".join(METRICS + ["PLAND"])
    t_grid = run_timed([lsm, "zonal", a.raster, "--grid", str(a.grid), "--metrics", metrics, "-o", grid_prefix, "-q"], a.repeat)
    t_plots = run_timed([lsm, "zonal", a.raster, "--zones", points, "--zone-field", "ID", "--buffer", str(a.buffer),
                         "-o", plots_prefix, "--metrics", metrics, "-q"], a.repeat)
    lsm_grid = read_lsm_tables(grid_prefix)
    lsm_plots = read_lsm_tables(plots_prefix)
    rows.append(("grid", "lsm", len(lsm_grid[0]), t_grid, "", "", ""))
    rows.append(("plots", "lsm", len(lsm_plots[0]), t_plots, "", "", ""))
    print(rows, flush=True)

    def grid_zone(bounds):  # pylandstats' tile bounds -> lsm's ROW_COL
        col = round((bounds[0] - gt[0]) / side)
        row = round((gt[3] - bounds[3]) / side)
        return f"{row}_{col}"

    if "pylandstats" not in skip:
        script = os.path.join(work, "peer.py")
        open(script, "w").write(PY_PEER)
        for mode, arg, lsm_tables in (("grid", str(side), lsm_grid), ("plots", f"{points}|{a.buffer}", lsm_plots)):
            out = os.path.join(work, f"pls_{mode}.json")
            times = []
            for _ in range(a.peer_repeat):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, script, a.pylandstats, mode, a.raster, arg, out], check=True,
                               stdout=subprocess.DEVNULL)  # dask's progress bar
                times.append(time.perf_counter() - t0)
            r = json.load(open(out))
            land, cls = r["land"], r["cls"]
            if mode == "grid":
                land = {grid_zone(r["bounds"][z]): v for z, v in land.items()}
                cls = {grid_zone(r["bounds"][z]): v for z, v in cls.items()}
            # pylandstats' SHDI is the entropy of the classes' adjacency counts (NaN for one class),
            # not of their areas as FRAGSTATS': another metric.
            common, worst, differing = compare(*lsm_tables, land, cls, not_compared=("SHDI",))
            t = statistics.median(times)
            rows.append((mode, "pylandstats", len(land), t, f"{t / (t_grid if mode == 'grid' else t_plots):.0f}",
                         " ".join(f"{m} {d:.1e}" for m, d in worst.items()), f"{len(common) - len(differing)}/{len(common)}"))
        if "bufferanalysis" not in skip:
            out = os.path.join(work, "pls_buffer.json")
            n = a.buffer_analysis_points
            subprocess.run([sys.executable, script, a.pylandstats, "bufferanalysis", a.raster, f"{points}|{a.buffer}|{n}", out],
                           check=True, stdout=subprocess.DEVNULL)
            r = json.load(open(out))
            t = r["start_seconds"] + r["loop_seconds"] * a.points / n  # imports once, the points' work scaled
            rows.append(("plots", f"pylandstats BufferAnalysis ({n} points, scaled to {a.points})", a.points, t,
                         f"{t / t_plots:.0f}", "", ""))
            print(rows[-1], flush=True)

    if "landscapemetrics" not in skip:
        script = os.path.join(work, "peer.R")
        open(script, "w").write(R_PEER)
        # The grid's tiles as square plots around their centres (whole tiles only: sample_lsm's
        # squares are all of one size).
        ds = gdal.Open(a.raster)
        whole_cols, whole_rows = ds.RasterXSize // a.grid, ds.RasterYSize // a.grid
        centres = os.path.join(work, "centres.gpkg")
        drv = ogr.GetDriverByName("GPKG")
        src = drv.CreateDataSource(centres)
        layer = src.CreateLayer("centres", ds.GetSpatialRef(), ogr.wkbPoint)
        layer.CreateField(ogr.FieldDefn("ID", ogr.OFTString))
        for row in range(whole_rows):
            for col in range(whole_cols):
                f = ogr.Feature(layer.GetLayerDefn())
                f.SetField("ID", f"{row}_{col}")
                p = ogr.Geometry(ogr.wkbPoint)
                p.AddPoint_2D(gt[0] + (col + 0.5) * side, gt[3] - (row + 0.5) * side)
                f.SetGeometry(p)
                layer.CreateFeature(f)
        src = None
        for mode, pts, shape, size, lsm_tables, t_lsm in (("grid", centres, "square", side / 2, lsm_grid, t_grid),
                                                           ("plots", points, "circle", a.buffer, lsm_plots, t_plots)):
            out = os.path.join(work, f"lm_{mode}.csv")
            t0 = time.perf_counter()
            subprocess.run(["Rscript", script, a.r_lib, a.raster, pts, shape, str(size), out], check=True)
            t = time.perf_counter() - t0
            land, cls = {}, {}
            names = {"np": "NP", "ta": "TA", "ed": "ED", "shdi": "SHDI"}
            with open(out) as f:
                for row in csv.DictReader(f):
                    z = row["plot_id"]
                    if row["value"] == "NA": continue  # a plot without a class
                    if row["level"] == "landscape":
                        land.setdefault(z, {})[names[row["metric"]]] = float(row["value"])
                    elif row["metric"] == "pland":
                        cls.setdefault(z, {})[row["class"]] = float(row["value"])
            land = {z: v for z, v in land.items() if len(v) == len(METRICS)}
            common, worst, differing = compare(*lsm_tables, land, cls)
            rows.append((mode, "landscapemetrics sample_lsm", len(land), t, f"{t / t_lsm:.0f}",
                         " ".join(f"{m} {d:.1e}" for m, d in worst.items()), f"{len(common) - len(differing)}/{len(common)}"))

    print("| zones | tool | zones measured | process s | ÷ lsm | largest relative difference | equal zones |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x) if not isinstance(x, float) else f"{x:.2f}" for x in r) + " |")


if __name__ == "__main__":
    main()
