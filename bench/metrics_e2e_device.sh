#!/usr/bin/env bash
# lsm metrics end to end (GeoTIFF in, every table out) on the GPU machine,
# the CUDA backend against the CPU backend, default metric set and the
# area/edge set, in one call. That machine has no GDAL: lsm (built here with
# CUDA) comes with its libraries in .devdata/gdal_bundle.tar.xz
# (bench/make_gdal_bundle.sh build .devdata/gdal_bundle.tar.xz); the rasters
# are .devdata/*.tif (mosaic_raster.py mosaics); .devdata/gnu_time is
# Debian's /usr/bin/time for the peak memory. The tables of the two backends
# must be byte-identical. Prints a Markdown table; logs go to $OUT.
set -euo pipefail
OUT=${OUT:-/tmp/lsm_out}
WORK=/tmp/lsm_e2e
BUNDLE=$WORK/bundle
mkdir -p "$OUT" "$BUNDLE"
tar -C "$BUNDLE" -xJf .devdata/gdal_bundle.tar.xz
export LD_LIBRARY_PATH=$BUNDLE/lib GDAL_DATA=$BUNDLE/share/gdal PROJ_DATA=$BUNDLE/share/proj PROJ_LIB=$BUNDLE/share/proj
gnu_time=/usr/bin/time
[ -x $gnu_time ] || gnu_time=.devdata/gnu_time
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/machine.txt"
nproc | tee -a "$OUT/machine.txt"
AREA_EDGE=AREA,PERIM,CA,PLAND,NP,PD,LPI,TE,ED,AREA_MN
{
echo "| raster | metrics | backend | wall s (runs) | peak RSS MB | tables equal to cpu |"
echo "|---|---|---|---|---|---|"
for tif in .devdata/*.tif; do
  name=$(basename "$tif" .tif)
  for set in full area_edge; do
    extra=()
    [ "$set" = area_edge ] && extra=(--metrics "$AREA_EDGE")
    for backend in cpu cuda; do
      walls=""
      for run in 1 2 3; do
        prefix=$WORK/$name.$set.$backend
        t0=$EPOCHREALTIME
        "$gnu_time" -f "%M" -o "$WORK/rss" "$BUNDLE/bin/lsm" metrics "$tif" --out "$prefix" -q --backend "$backend" \
          "${extra[@]}" >"$OUT/$name.$set.$backend.log" 2>&1 || { tail -3 "$OUT/$name.$set.$backend.log"; exit 1; }
        t1=$EPOCHREALTIME
        walls="$walls $(python3 -c "print(f'{$t1 - $t0:.2f}')")"
      done
      same=-
      if [ "$backend" = cuda ]; then
        same=yes
        for t in patch class land; do cmp -s "$prefix.$t.csv" "$WORK/$name.$set.cpu.$t.csv" || same=no; done
      fi
      echo "| $name | $set | $backend |$walls | $(( $(cat "$WORK/rss") / 1024 )) | $same |"
    done
  done
done
} | tee "$OUT/e2e.md"
