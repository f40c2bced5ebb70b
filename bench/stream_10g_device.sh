#!/usr/bin/env bash
# A 10 Gpx GeoTIFF end to end on the GPU machine, against gdal_translate
# reading it (issue 4's streaming target), in one call. That machine has no
# GDAL: lsm (built with CUDA on a Debian 12 machine), gdal_translate and
# gdalinfo come with their libraries in .devdata/gdal_bundle.tar.xz
# (bench/make_gdal_bundle.sh). The raster is the mirror mosaic of
# .devdata/bv_mirror_block.tif, one period of it (made with
# ../shared/tools/mosaic_raster.py at twice the source's width and height), as
# ZSTD-compressed 512 x 512 tiles, as mosaic_raster.py writes it. Also carry
# .devdata/gnu_time (Debian's /usr/bin/time) for machines without GNU time.
# LSM_STREAM_SIDE sets the mosaic's side (default 100000), LSM_STREAM_BACKENDS
# the lsm backends to run (default "cuda cpu"), LSM_STREAM_LSM another lsm
# binary than the bundle's (a newer build carried beside it). Logs and timings
# go to $OUT.
set -euo pipefail
OUT=${OUT:-/tmp/lsm_out}
SIDE=${LSM_STREAM_SIDE:-100000}
BACKENDS=${LSM_STREAM_BACKENDS:-cuda cpu}
WORK=${LSM_STREAM_WORK:-/tmp/lsm_stream}
BUNDLE=$WORK/bundle
LSM=${LSM_STREAM_LSM:-$BUNDLE/bin/lsm}
METRICS=AREA,PERIM,CA,NP,TE,PLAND,LPI
mkdir -p "$OUT" "$BUNDLE"
tar -C "$BUNDLE" -xJf .devdata/gdal_bundle.tar.xz
export LD_LIBRARY_PATH=$BUNDLE/lib GDAL_DATA=$BUNDLE/share/gdal PROJ_DATA=$BUNDLE/share/proj
export PROJ_LIB=$BUNDLE/share/proj GDAL_DRIVER_PATH=$BUNDLE/gdalplugins PATH=$BUNDLE/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/machine.txt" || true
{ nproc; free -g | sed -n 2p; df -h "$WORK" | tail -1; } | tee -a "$OUT/machine.txt"

# GNU time for the peak memory (carried: .devdata/gnu_time, Debian's /usr/bin/time)
gnu_time=/usr/bin/time
[ -x $gnu_time ] || gnu_time=.devdata/gnu_time
# timed NAME COMMAND...: wall seconds and peak resident memory of one command
timed() {
  local name=$1 t0 t1
  shift
  t0=$EPOCHREALTIME
  "$gnu_time" -f "%M" -o "$WORK/rss" "$@" >"$OUT/$name.log" 2>&1
  t1=$EPOCHREALTIME
  printf "| %s | %.1f | %s |\n" "$name" "$(python3 -c "print($t1 - $t0)")" "$(cat "$WORK/rss")" | tee -a "$OUT/times.md"
}

echo "| step | wall s | peak RSS KB |" | tee "$OUT/times.md"
echo "|---|---|---|" | tee -a "$OUT/times.md"
# The mosaic: a VRT that repeats one mirror period, written as mosaic_raster.py writes it
block=.devdata/bv_mirror_block.tif
gdalinfo -json "$block" >"$WORK/block.json"
python3 - "$WORK/block.json" "$(realpath "$block")" "$SIDE" >"$WORK/mosaic.vrt" <<'PY'
import json, sys
info, path, side = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
bw, bh = info["size"]
band = info["bands"][0]
gt = ",".join(repr(v) for v in info["geoTransform"])
srs = info["coordinateSystem"]["wkt"].replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
print(f'<VRTDataset rasterXSize="{side}" rasterYSize="{side}"><SRS>{srs}</SRS><GeoTransform>{gt}</GeoTransform>')
print(f'<VRTRasterBand dataType="{band["type"]}" band="1"><NoDataValue>{band["noDataValue"]}</NoDataValue>')
for y in range(0, side, bh):
    for x in range(0, side, bw):
        print(f'<SimpleSource><SourceFilename relativeToVRT="0">{path}</SourceFilename><SourceBand>1</SourceBand>'
              f'<SrcRect xOff="0" yOff="0" xSize="{bw}" ySize="{bh}"/>'
              f'<DstRect xOff="{x}" yOff="{y}" xSize="{bw}" ySize="{bh}"/></SimpleSource>')
print("</VRTRasterBand></VRTDataset>")
PY
tif=$WORK/mosaic.tif
timed write_mosaic gdal_translate -q -co TILED=YES -co BLOCKXSIZE=512 -co BLOCKYSIZE=512 -co COMPRESS=ZSTD \
  -co BIGTIFF=IF_SAFER -co NUM_THREADS=ALL_CPUS "$WORK/mosaic.vrt" "$tif"
ls -l "$tif" | tee -a "$OUT/machine.txt"

# The references: gdal_translate reading the raster, into memory (decoding on
# every core, as lsm reads) and into an uncompressed GeoTIFF (its defaults)
timed read_to_memory env GDAL_NUM_THREADS=ALL_CPUS gdal_translate -q -of MEM "$tif" unused
for backend in $BACKENDS; do
  timed "lsm_$backend" "$LSM" metrics "$tif" --out "$WORK/$backend" --backend "$backend" --metrics $METRICS -q
done
timed read_to_geotiff gdal_translate -q "$tif" "$WORK/plain.tif"
rm -f "$WORK/plain.tif"

# Backends agree: every table byte for byte
set -- $BACKENDS
if [ $# -ge 2 ]; then
  for table in patch class land; do
    cmp "$WORK/$1.$table.csv" "$WORK/$2.$table.csv" && echo "$table table: $1 = $2" | tee -a "$OUT/times.md"
  done
fi
wc -l "$WORK/$1.patch.csv" | tee -a "$OUT/times.md"
cp "$WORK/$1.class.csv" "$WORK/$1.land.csv" "$OUT/"
