#!/usr/bin/env bash
# A/B/n over versions of cuda/device_grid_labeler.cu on the GPU machine, in one call: FILES names copies of that
# file in .devdata/ (git-excluded, carried with bv_2mpx.raw.gz and augusta_678x440.raw.gz); one build dir, so only
# that file recompiles per version; the device labeling tests on every version, then lsm_bench_gpu_label twice on
# each (the first with the CPU backend check). It overwrites cuda/device_grid_labeler.cu of the checkout it runs in
# (the GPU machine's copy). BENCH_ARGS go to the benchmark (--int32: Int32 grids). Example:
# FILES="v7.cu v8.cu" bash bench/ab_labeler_device.sh
set -uo pipefail
OUT=${OUT:-/tmp/lsm_out}
mkdir -p "$OUT"
gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv.raw
gunzip -c .devdata/augusta_678x440.raw.gz >/tmp/augusta.raw
nvidia-smi --query-gpu=name --format=csv,noheader
read -ra F <<<"$FILES"
for i in "${!F[@]}"; do
  cp ".devdata/${F[$i]}" cuda/device_grid_labeler.cu
  cmake -S . -B build-ab -G Ninja -DLSM_WITH_GDAL=OFF -DCMAKE_BUILD_TYPE=Release >"$OUT/configure$i.log" 2>&1 ||
    tail -20 "$OUT/configure$i.log"
  cmake --build build-ab -j16 --target lsm_bench_gpu_label lsm_engine_tests >"$OUT/build$i.log" 2>&1 ||
    { grep -A3 error "$OUT/build$i.log" | head -40; exit 1; }
  cp build-ab/bench/lsm_bench_gpu_label "/tmp/bench$i"
  cp build-ab/tests/lsm_engine_tests "/tmp/tests$i"
done
for i in "${!F[@]}"; do
  echo "tests ${F[$i]}:"
  "/tmp/tests$i" --gtest_filter="${TESTS:-*Device*:*Label*:*Cuda*:*Tile*}" >"$OUT/tests$i.log" 2>&1
  tail -1 "$OUT/tests$i.log"
  grep -E "FAILED|Failure" -A5 "$OUT/tests$i.log" | head -12
done
rm -f "$OUT"/tests*.log "$OUT"/configure*.log  # at most 8 files come back
summary='
import json, sys
for line in sys.stdin:
    try: d = json.loads(line)
    except Exception: continue
    if "input" in d:
        print(d["input"], d.get("cells", ""), d["kernel_ms"], d["gpx_per_s"], d["stage_ms"], d.get("cpu_check", ""))
'
for run in 1 2; do
  for i in "${!F[@]}"; do
    echo "${F[$i]} run $run"
    check=--no-cpu-check
    [ "$run" = 1 ] && check=""
    "/tmp/bench$i" --bern-valais /tmp/bv.raw --augusta /tmp/augusta.raw --giga-side 0 $check ${BENCH_ARGS:-} |
      python3 -c "$summary"
  done
done
