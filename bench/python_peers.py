#!/usr/bin/python3
"""The Python module against pylandstats: the same arrays, the same metrics, one Python process.

The work, on each categorical GeoTIFF given: its band 1 read once with rasterio into a numpy array
(nodata cells set to pylandstats' nodata, 0), then, timed as the median of --repeat runs in this
process:
  lsm          lsm.Landscape(array, res=..., nodata=0) and its class_metrics() and
               landscape_metrics() (every FRAGSTATS column of both levels: the default set);
  pylandstats  pylandstats.Landscape(array, res=..., nodata=0) and its
               compute_class_metrics_df() and compute_landscape_metrics_df() (its default set).
The values that both define alike are compared class by class and for the landscape: the largest
relative difference per metric (PAIRS). A first untimed lsm run loads the module's libraries.

pylandstats is imported as installed, else from --pylandstats DIR (its src/pylandstats folder,
imported without its __init__, adjacency.pyx built with pyximport: bench/zonal_peers.py's set-up).

  PYTHONPATH=build/python /usr/bin/python3 bench/python_peers.py --pylandstats PEERS/pylandstats/src/pylandstats \
      --repeat 3 ../shared/data/landcover/lsm_augusta_nlcd.tif ../shared/data/landcover/spdl_zion_nlcd2011.tif
"""
import argparse
import statistics
import sys
import time
import types

import numpy
import rasterio

import lsm

# (FRAGSTATS acronym, pylandstats' name): the metrics both compute by FRAGSTATS' definitions.
PAIRS = [("CA", "total_area"), ("PLAND", "proportion_of_landscape"), ("NP", "number_of_patches"),
         ("PD", "patch_density"), ("LPI", "largest_patch_index"), ("TE", "total_edge"), ("ED", "edge_density"),
         ("LSI", "landscape_shape_index"), ("AREA_MN", "area_mn"), ("AREA_CV", "area_cv"),
         ("SHDI", "shannon_diversity_index"), ("CONTAG", "contagion"), ("MESH", "effective_mesh_size")]


def import_pylandstats(folder):
    try:
        import pylandstats
        return pylandstats
    except ImportError:
        if not folder:
            raise
    import pyximport
    pyximport.install(setup_args={"include_dirs": numpy.get_include()}, language_level=3)
    package = types.ModuleType("pylandstats")
    package.__path__ = [folder]
    sys.modules["pylandstats"] = package
    from pylandstats import landscape
    return landscape


def timed(repeat, work):
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def largest_difference(ours, theirs):
    ours, theirs = numpy.asarray(ours, dtype=float), numpy.asarray(theirs, dtype=float)
    both = ~(numpy.isnan(ours) | numpy.isnan(theirs))
    if not both.any():
        return float("nan")
    scale = numpy.maximum(numpy.abs(theirs[both]), 1e-12)
    return float(numpy.max(numpy.abs(ours[both] - theirs[both]) / scale))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rasters", nargs="+")
    parser.add_argument("--pylandstats", default="")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pls = import_pylandstats(args.pylandstats)
    print("| raster | Mcells | classes | lsm s | pylandstats s | ÷ lsm | largest difference (metric) | metrics beyond 1e-9 |")
    print("|---|---|---|---|---|---|---|---|")
    for path in args.rasters:
        with rasterio.open(path) as dataset:
            cells = dataset.read(1)
            res = tuple(abs(r) for r in dataset.res)
            if dataset.nodata is not None:
                cells = numpy.where(cells == dataset.nodata, 0, cells)
        cells = cells.astype(numpy.int32)

        def run_lsm():
            land = lsm.Landscape(cells, res=res, nodata=0)
            return land.class_metrics(), land.landscape_metrics()

        def run_pylandstats():
            land = pls.Landscape(cells, res=res, nodata=0)
            return land.compute_class_metrics_df(), land.compute_landscape_metrics_df()

        run_lsm()  # libraries loaded, pages touched
        lsm_s, (lsm_class, lsm_land) = timed(args.repeat, run_lsm)
        pls_s, (pls_class, pls_land) = timed(args.repeat, run_pylandstats)
        pls_class = pls_class.loc[lsm_class["TYPE"].tolist()]
        differences = []
        for acronym, name in PAIRS:
            if acronym in lsm_class and name in pls_class:
                differences.append((largest_difference(lsm_class[acronym], pls_class[name]), acronym))
            if acronym in lsm_land and name in pls_land:
                differences.append((largest_difference(lsm_land[acronym], pls_land[name]), acronym + " (land)"))
        worst = max(d for d in differences if d[0] == d[0])
        beyond = ", ".join(name for difference, name in differences if difference > 1e-9) or "none"
        print("| %s | %.2f | %d | %.3f | %.2f | %.0f | %.1e (%s) | %s |" % (
            path.split("/")[-1], cells.size / 1e6, len(lsm_class), lsm_s, pls_s, pls_s / lsm_s, worst[0], worst[1],
            beyond))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
