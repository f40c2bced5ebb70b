#!/usr/bin/env bash
# Nsight Compute profile of the labeling kernels on the GPU machine: KERNELS (regex, default k_label_blocks), LC
# launches, on the inputs in ONLY (default augusta_47M), built with -lineinfo; per-instruction counts and stall
# samples in $OUT/source_INPUT.csv (SASS), the details page in $OUT/details_INPUT.txt. Carry bv_2mpx.raw.gz and
# augusta_678x440.raw.gz in .devdata/. Example:
#   KERNELS="k_accumulate|k_label_blocks" LC=2 ONLY="augusta_47M one_class_47M" bash bench/profile_labeler_device.sh
set -uo pipefail
OUT=${OUT:-/tmp/lsm_out}
mkdir -p "$OUT"
cmake -S . -B build-prof -G Ninja -DLSM_WITH_GDAL=OFF -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="-lineinfo" \
  >"$OUT/configure.log" 2>&1 || tail -20 "$OUT/configure.log"
cmake --build build-prof -j16 --target lsm_bench_gpu_label >"$OUT/build.log" 2>&1 ||
  { grep -A3 error "$OUT/build.log" | head -40; exit 1; }
gunzip -c .devdata/augusta_678x440.raw.gz >/tmp/augusta.raw
gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv.raw
for input in ${ONLY:-augusta_47M}; do
  ncu --clock-control none --kernel-name regex:"${KERNELS:-k_label_blocks}" --launch-count "${LC:-1}" \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats \
    --section SourceCounters --section MemoryWorkloadAnalysis -o "/tmp/p_$input" -f \
    build-prof/bench/lsm_bench_gpu_label --bern-valais /tmp/bv.raw --augusta /tmp/augusta.raw --giga-side 0 \
    --repeat 1 --no-cpu-check --only "$input" >/dev/null 2>&1
  ncu -i "/tmp/p_$input.ncu-rep" --page details >"$OUT/details_$input.txt" 2>&1
  ncu -i "/tmp/p_$input.ncu-rep" --page source --csv --print-source sass >"$OUT/source_$input.csv" 2>/dev/null
done
rm -f "$OUT"/*.log  # at most 8 files come back
grep -E "Duration|Executed Instructions  |Achieved Occupancy|Warp Cycles Per Issued" "$OUT"/details_*.txt
