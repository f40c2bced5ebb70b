#!/usr/bin/env bash
# The QGIS Processing provider (tools/qgis/lsm_provider) in a headless QGIS
# (issue 8): every lsm command is listed as an algorithm, lsm:metrics gives the
# CLI's tables, raster algorithms give the CLI's rasters, and a cancelled run
# leaves no process and no temporary file behind. Exits 77 (skipped) without
# qgis_process.bin (tools/setup.sh --with-qgis installs it).
#   qgis_provider_test.sh SOURCE_DIR LSM_BINARY
set -euo pipefail
source_dir=$1
export LSM_BINARY=$2
if ! command -v qgis_process.bin >/dev/null; then
  echo "SKIP: qgis_process.bin not found (install qgis and python3-qgis: bash tools/setup.sh --with-qgis)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private QGIS profile; Debian's qgis_process wrapper passes an option 3.22 rejects.
export HOME=$work/home QT_QPA_PLATFORM=offscreen QGIS_PLUGINPATH=$source_dir/tools/qgis XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
qp() { timeout 300 qgis_process.bin "$@" 2>"$work/qgis.err"; }
fail() { echo "FAIL: $*"; cat "$work/qgis.err" 2>/dev/null | tail -20; exit 1; }

qp plugins enable lsm_provider >/dev/null || fail "cannot enable the plugin"

# 1. Every command of lsm --describe is an algorithm.
qp list >"$work/list.txt" || fail "qgis_process list"
for command in $("$LSM_BINARY" --describe | grep -o '{"name":"[a-z]*","summary"' | cut -d'"' -f4); do
  grep -q "lsm:$command" "$work/list.txt" || fail "lsm:$command is not listed"
done
echo "ok: $(grep -c 'lsm:' "$work/list.txt") lsm algorithms listed"

# 2. lsm:metrics on the augusta NLCD raster: the CLI's tables, byte for byte.
augusta=${LSM_SHARED_DATA:-$source_dir/../shared/data}/landcover/lsm_augusta_nlcd.tif
if [ -f "$augusta" ]; then
  qp run lsm:metrics -- INPUT="$augusta" OUTPUT="$work/qgis" >"$work/run.txt" || fail "lsm:metrics"
  "$LSM_BINARY" metrics "$augusta" --out "$work/cli" -q
  for table in patch class land adj; do
    cmp -s "$work/qgis.$table.csv" "$work/cli.$table.csv" || fail "lsm:metrics $table table differs from the CLI's"
  done
  grep -q "CLASS_TABLE:" "$work/run.txt" || fail "no CLASS_TABLE output"
  echo "ok: lsm:metrics tables equal the CLI's"
else
  echo "SKIP part: $augusta missing (../shared/data)"
fi

# 3. Raster algorithms: the CLI's rasters (compared by GDAL checksums).
# A copy: QGIS loads an input as a layer and saves the statistics it computes
# for drawing it as INPUT.aux.xml beside it (how
# sample_rasters/nlm_fbm_400x300.tif.aux.xml once got into the repository).
sample=$work/sample.tif
cp "$source_dir/sample_rasters/nlm_fbm_400x300.tif" "$sample"
checksums() { gdalinfo -checksum "$1" | grep Checksum; }
qp run lsm:label -- INPUT="$sample" OUTPUT="$work/label.tif" NEIGHBORS=4 >/dev/null || fail "lsm:label"
"$LSM_BINARY" label "$sample" "$work/label_cli.tif" --neighbors 4 -q
[ "$(checksums "$work/label.tif")" = "$(checksums "$work/label_cli.tif")" ] || fail "lsm:label differs from the CLI's"
qp run lsm:fuzzy -- INPUT="$sample" OUTPUT="$work/fuzzy.tif" SEED_CELL="10,10;200,150" SEED_RADIUS=3 THRESHOLD=0.5 \
  MASK="$work/mask.tif" >/dev/null || fail "lsm:fuzzy"
"$LSM_BINARY" fuzzy "$sample" "$work/fuzzy_cli.tif" --seed 10,10 --seed 200,150 --seed-radius 3 -q
[ "$(checksums "$work/fuzzy.tif")" = "$(checksums "$work/fuzzy_cli.tif")" ] || fail "lsm:fuzzy differs from the CLI's"
[ -f "$work/mask.tif" ] || fail "lsm:fuzzy wrote no mask"
echo "ok: lsm:label and lsm:fuzzy rasters equal the CLI's"

# 4. Cancelling (Ctrl+C) a long run ends lsm and leaves no temporary file.
qp run lsm:synth -- OUTPUT="$work/big.tif" WIDTH=30000 HEIGHT=30000 >/dev/null 2>&1 &
# This run's lsm only: other tests run lsm synth beside this one (ctest -j).
this_run="$LSM_BINARY synth.*$work/big"
for _ in $(seq 1 120); do pgrep -f "$this_run" >/dev/null && break; sleep 0.25; done
pgrep -f "$this_run" >/dev/null || fail "lsm synth did not start"
sleep 1
pkill -INT -f "qgis_process.bin run lsm:synth" || true
wait || true
sleep 1
if pgrep -f "$this_run" >/dev/null; then fail "an lsm process survived the cancel"; fi
if ls "$work" | grep -q "big.tif"; then fail "the cancelled run left $(ls "$work" | grep big.tif)"; fi
echo "ok: cancelled run left no process and no file"
