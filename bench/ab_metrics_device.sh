#!/usr/bin/env bash
# A/B of the metric engine in memory on the GPU machine, in one call: lsm_bench_metrics built from this tree (new)
# and from a copy with PATCH reverted (old: `patch -R -p1`), run in turn on the 47 Mpx mosaics, augusta twice and
# bern_valais once, both backends. PATCH is a diff of the change (git diff A B -- metrics >.devdata/x.patch); the
# rasters as for run_device.sh's "fullset" (.devdata/, carried). STAGES (default "no ENN,full") go to --stages.
# Example: bash bench/ab_metrics_device.sh .devdata/parallel_distributions.patch
set -uo pipefail
PATCH=$1
OUT=${OUT:-/tmp/lsm_out}
LSM_STEPS=none LSM_TARGETS=lsm_bench_metrics OUT=$OUT bash bench/run_device.sh >/dev/null 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
rm -rf /tmp/old && mkdir -p /tmp/old
tar --exclude=./build-dev --exclude=./.git -cf - . | (cd /tmp/old && tar xf -)
(cd /tmp/old && patch -R -p1 <"$PATCH") || exit 1
cmake -S /tmp/old -B /tmp/old/build -DLSM_WITH_GDAL=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null 2>&1
cmake --build /tmp/old/build -j"$(nproc)" --target lsm_bench_metrics >/tmp/old_build.log 2>&1 ||
  { tail -20 /tmp/old_build.log; exit 1; }
for r in bv_47mpx augusta_47mpx; do gunzip -c ".devdata/$r.raw.gz" >"/tmp/$r.raw"; done
run() {  # binary raster cell
  echo "== $1 $2"
  "$1" --raw "/tmp/$2.raw" --width 5741 --height 8190 --nodata 255 --cell "$3" --stages "${STAGES:-no ENN,full}" \
    --repeat 3 | grep -E "^(cpu|cuda) "
}
for round in 1 2; do
  for b in /tmp/old/build/bench/lsm_bench_metrics build-dev/bench/lsm_bench_metrics; do run "$b" augusta_47mpx 30; done
done
for b in /tmp/old/build/bench/lsm_bench_metrics build-dev/bench/lsm_bench_metrics; do run "$b" bv_47mpx 100; done
