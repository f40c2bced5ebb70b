#!/usr/bin/env bash
# mpirun -n N lsm metrics and lsm label (docs/SCALING.md, "One raster across
# MPI ranks"): the tables and the patch-ID raster are the one-process bytes
# for N = 1 to 4 ranks, both neighbour rules, on the sample raster,
# bern_valais (when ../shared is there) and adversarial grids — a spiral and
# a U crossing every range border, one patch spanning every range with a
# range of nodata alone, more ranks than tile rows; a rank that cannot read
# its range ends the run with its message and no output; a landscape
# border (negative codes) gives the one-process bytes too.
#   mpi_ranks_test.sh LSM_BINARY SOURCE_DIR LANDCOVER_DIR
set -uo pipefail
lsm=$1 src=$2 landcover=$3
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (bash tools/setup.sh installs openmpi-bin)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ranks() { local n=$1; shift; timeout 300 mpirun --oversubscribe --allow-run-as-root -n "$n" "$lsm" "$@"; }

# An ASCII grid (GDAL's AAIGrid) of W x H cells of 10 m from awk's cell(x, y).
grid() {
  local name=$1 w=$2 h=$3 body=$4
  awk -v w="$w" -v h="$h" "function cell(x, y) { $body } BEGIN {
    printf \"ncols %d\\nnrows %d\\nxllcorner 500000\\nyllcorner 5000000\\ncellsize 10\\nNODATA_value -9999\\n\", w, h
    for (y = 0; y < h; y++) { for (x = 0; x < w; x++) printf \"%d \", cell(x, y); printf \"\\n\" } }" >"$name"
}
# A spiral of class 1 in class 2: rings of class 1 every other ring, each with a gap to the next.
grid spiral.asc 41 41 'd = x < y ? x : y; e = 40 - x; f = 40 - y; if (e < d) d = e; if (f < d) d = f;
  if (d % 2 == 0) return (x == d + 1 && y == d) ? 2 : 1; return (x == d && y == d + 1) ? 1 : 2'
# A U of class 3 (arms in columns 3 and 33, joined in row 43) over a hashed mosaic of classes 1 and 2.
grid u.asc 37 45 'if (x == 3 || x == 33 || (y == 43 && x >= 3 && x <= 33)) return 3;
  return ((x * 7 + y * 13 + int(x * y / 5)) % 5 < 2) ? 1 : 2'
# One patch of class 7 through every range, rows 12-17 nodata but its stem.
grid spanning.asc 40 30 'if (y >= 12 && y < 18) return x == 20 ? 7 : -9999; return (x + y) % 11 == 0 ? 4 : 7'

# Every table (and the label raster) of `mpirun -n N` against one process.
same_as_one_process() {
  local input=$1 tile=$2 what=$3; shift 3
  for rule in 8 4; do
    "$lsm" metrics "$input" --out one --tile-size "$tile" --neighbors "$rule" -q "$@" || { fail "$what: one process"; continue; }
    for n in 1 2 3 4; do
      ranks "$n" metrics "$input" --out "r$n" --tile-size "$tile" --neighbors "$rule" -q "$@" || { fail "$what: $n ranks"; continue; }
      for t in one.*.csv; do
        cmp -s "$t" "r$n.${t#one.}" || fail "$what, rule $rule, $n ranks: ${t#one.} differs"
      done
    done
  done
  "$lsm" label "$input" one.tif --tile-size "$tile" -q
  for n in 2 4; do
    ranks "$n" label "$input" "r$n.tif" --tile-size "$tile" -q && cmp -s one.tif "r$n.tif" || fail "$what: lsm label with $n ranks differs"
  done
  rm -f one.csv one.*.csv one.tif r?.*.csv r?.tif
}

same_as_one_process "$src/sample_rasters/nlm_fbm_400x300.tif" 32 "sample raster"
same_as_one_process spiral.asc 4 "spiral"
same_as_one_process u.asc 6 "U"
same_as_one_process spanning.asc 6 "one patch over every range"
same_as_one_process spanning.asc 16 "more ranks than tile rows (2)"
if [ -f "$landcover/pls_bern_valais_g100_clc00.tif" ]; then
  same_as_one_process "$landcover/pls_bern_valais_g100_clc00.tif" 128 "bern_valais"
else
  echo "note: $landcover/pls_bern_valais_g100_clc00.tif missing: bern_valais not compared"
fi

# A rank that cannot read its rows: rank 0 reports it, no table is left.
gdal_translate -q -co TILED=YES -co BLOCKXSIZE=64 -co BLOCKYSIZE=64 -co COMPRESS=DEFLATE \
  "$src/sample_rasters/nlm_fbm_400x300.tif" cut.tif
truncate -s -3000 cut.tif
if ranks 3 metrics cut.tif --out cut --tile-size 64 -q 2>err.txt; then fail "a truncated raster ran"; fi
grep -q "lsm: error: rank [12]: cannot read rows" err.txt || fail "no rank's message: $(head -c 300 err.txt)"
ls cut.*.csv >/dev/null 2>&1 && fail "a failed run left tables"

# FRAGSTATS' landscape border (negative codes: outside the landscape, but
# deciding its boundary edges) in two ranges' rows and crossing range
# borders, with edge depth 2: the one-process tables and IDs.
grid border.asc 20 24 'if (y < 2 || (x < 3 && y > 14)) return -3 - x % 2; return 1 + int((x + 2 * y) / 5) % 3'
same_as_one_process border.asc 4 "landscape border" --edge-depth 2

if ((failures)); then
  echo "mpi_ranks_test: $failures failure(s)"
  exit 1
fi
echo "mpi_ranks_test: 1 to 4 ranks give the one-process bytes"
