#!/usr/bin/env bash
# The outputs of the landscape operations on the real rasters of
# ../shared/data/landcover, as SHA-256 sums: tables, patch-ID and patch-metric
# rasters, patch polygons, over option sets (neighbour rules, background, a
# descriptor file, tidy tables, metric subsets, tile sizes, a 1M memory
# limit). Refactorings of the engine must leave every byte as it was.
#   identical_outputs.sh LSM DATA_DIR EXPECTED          compare (ctest)
#   identical_outputs.sh LSM DATA_DIR EXPECTED --record  rewrite EXPECTED
# Exits 77 (skip) when DATA_DIR is missing.
set -euo pipefail
lsm=$1 data=${LSM_SHARED_DATA:+$LSM_SHARED_DATA/landcover} expected=$3 mode=${4:-}
data=${data:-$2}
if [[ ! -d $data ]]; then
  echo "SKIP: no $data (the shared land-cover rasters)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sums=$work/sums

# Runs `lsm ARGS...` quietly into $work/out; a failure names the command.
run() {
  rm -rf "$work/out" && mkdir "$work/out"
  if ! "$lsm" "$@" -q >"$work/out/stdout" 2>"$work/stderr"; then
    echo "failed: lsm $*" >&2
    cat "$work/stderr" >&2
    exit 1
  fi
}
# Records the sum of every file of the last run under the case's name.
record() {
  local case=$1
  (cd "$work/out" && for f in $(ls | sort); do
     [[ $f == stdout ]] && continue
     echo "$case/$f $(sha256sum <"$f" | cut -d' ' -f1)"
   done) >>"$sums"
}

for raster in lsm_augusta_nlcd pls_bern_valais_g100_clc00 spdl_zion_nlcd2011 lsm_podlasie_ccilc lsm_landscape_simulated; do
  in=$data/$raster.tif
  run metrics "$in" --out "$work/out/m"
  record "$raster/metrics"
  # A class of the raster (the first of its class table) as background.
  background=$(awk -F, 'NR == 2 { print $1 }' "$work/out/m.class.csv")
  run metrics "$in" --out "$work/out/m" -n 4
  record "$raster/metrics-n4"
  run metrics "$in" --out "$work/out/m" --background "$background" --boundary-edge 0.5
  record "$raster/metrics-background"
  run metrics "$in" --out "$work/out/m" --memory-limit 1M --tile-size 64
  record "$raster/metrics-1M-tiles64"
  run metrics "$in" --out "$work/out/m" --metrics AREA,CA,NP,TE,SHDI --level class,land
  record "$raster/metrics-records-only"
  run metrics "$in" --out "$work/out/m" --metrics ENN,CORE,GYRATE,CONTAG --format tidy --edge-depth 2
  record "$raster/metrics-subset-tidy"
  run metrics "$in" --out "$work/out/m" --gyrate centroid --core-areas all --tile-size 17x33
  record "$raster/metrics-documented-rules"
  run label "$in" "$work/out/ids.tif"
  record "$raster/label"
  run label "$in" "$work/out/ids.tif" -n 4 --tile-size 64
  record "$raster/label-n4"
  for metric in AREA ENN CORE; do
    run patchmetric "$in" "$work/out/$metric.tif" --metric $metric
    record "$raster/patchmetric-$metric"
  done
  run patches "$in" "$work/out/patches.geojson"
  record "$raster/patches"
done

# FRAGSTATS' class descriptor file on augusta: names, a disabled class, a background class.
in=$data/lsm_augusta_nlcd.tif
cat >"$work/descriptors.fcd" <<'EOF'
ID,Name,Enabled,IsBackground
11,Water,true,false
21,Developed open,true,false
41,Deciduous forest,false,false
81,Pasture,true,true
EOF
run metrics "$in" --out "$work/out/m" --class-descriptors "$work/descriptors.fcd"
record "lsm_augusta_nlcd/metrics-descriptors"
sed 's/true,true$/true,false/' "$work/descriptors.fcd" >"$work/names.fcd"  # names, no background
run patches "$in" "$work/out/patches.geojson" --class-descriptors "$work/names.fcd" -n 4
record "lsm_augusta_nlcd/patches-descriptors-n4"

if [[ $mode == --record ]]; then
  cp "$sums" "$expected"
  echo "recorded $(wc -l <"$sums") sums in $expected"
  exit 0
fi
if ! diff -u "$expected" "$sums"; then
  echo "identical_outputs: outputs differ from $expected (lines with + are today's)"
  exit 1
fi
echo "identical_outputs: $(wc -l <"$sums") outputs byte-identical to $expected"
