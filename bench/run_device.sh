#!/usr/bin/env bash
# Build, test and benchmark on the GPU machine (CUDA, no GDAL), in one call.
# Expects .devdata/bv_47mpx.raw.gz: the 47 Mpx mosaic of bern_valais as raw
# Byte cells (see bench/RESULTS.md for how it is made), and .devdata/bv_2mpx.raw.gz,
# bern_valais itself as raw Byte cells. Logs go to $OUT.
set -euo pipefail
OUT=${OUT:-/tmp/lsm_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
nproc | tee -a "$OUT/gpu.txt"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build-dev "${generator[@]}" -DLSM_WITH_GDAL=OFF -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-dev -j"$(nproc)" >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
(cd build-dev && ctest -j8 --output-on-failure) >"$OUT/ctest.log" 2>&1 || { tail -60 "$OUT/ctest.log"; exit 1; }
tail -8 "$OUT/ctest.log"
grep -E "Skipped|Not Run" "$OUT/ctest.log" || echo "no skipped tests"
if [ -f .devdata/bv_47mpx.raw.gz ]; then
  gunzip -c .devdata/bv_47mpx.raw.gz >/tmp/bv_47mpx.raw
  build-dev/bench/lsm_bench_label --raw /tmp/bv_47mpx.raw --width 5741 --height 8190 --nodata 255 --cell 100 \
    --tiles "${LSM_BENCH_TILES:-0,2048,4096,8192}" --repeat 5 | tee "$OUT/bench.log"
fi
if [ -f .devdata/bv_2mpx.raw.gz ]; then  # bern_valais itself (1319 x 1640), for the full metric set
  gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv_2mpx.raw
  build-dev/bench/lsm_bench_metrics --raw /tmp/bv_2mpx.raw --width 1319 --height 1640 --nodata 255 --cell 100 \
    --repeat 5 | tee "$OUT/bench_metrics.log"
fi
