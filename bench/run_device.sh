#!/usr/bin/env bash
# Build, test and benchmark on the GPU machine (CUDA, no GDAL), in one call.
# Expects in .devdata/ (git-excluded, carried): bv_2mpx.raw.gz (bern_valais,
# 1319 x 1640 Byte cells) and augusta_678x440.raw.gz (the NLCD augusta raster),
# made with `gdal_translate -of ENVI` (see bench/RESULTS.md); optionally
# bv_47mpx.raw.gz for the tile-scheduler benchmark. Logs go to $OUT.
# LSM_STEPS picks the steps (default: "tests gpu tiles metrics"; "fullset" the
# full metric set on the 47 Mpx mosaics bv_47mpx.raw.gz and augusta_47mpx.raw.gz
# (5741 x 8190 Byte, nodata 255; mosaic_raster.py, then gdal_translate -of ENVI); "kmeans" the
# K-means benchmark (carrotweed_{2,8}mpx_rgb.raw.gz, RGB BIP) against OpenCV; "ours" runs
# lsm's GPU benchmark without the peers; "stream" a 1.07 Gpx mosaic through
# the tile scheduler; "image" the pyramid/gradient/HOG benchmark
# (pedestrian_1080p_grey.f32.gz) against OpenCV; "fuzzy" fuzzy connectedness on
# the head-phantom CT (ct_head_512x512x140.i16.gz) against the sequential kFOE);
# LSM_GIGA_SIDE the side of the >= 1 Gpx mosaics (default 32768, 0 = none);
# "window" the moving window's count metrics on the GPUs against the CPU
# (bv_2mpx.raw.gz and its 47 Mpx and LSM_GIGA_SIDE^2 mirror mosaics; 1 GPU,
# then every GPU the machine has);
# "distances" PROX and CONNECT at 500 m and 2 km against the full set on the
# 47 Mpx bern_valais and 400 Mpx zion mirror mosaics (zion_1073x1359.raw.gz,
# 31.5 m cells; CPU, peak memory per stage);
# "simi" SIMI (every class pair similar) at 500 m and 2 km on the 47 Mpx
# mosaic, at 500 m on the 400 Mpx one (stopped after 5 minutes);
# LSM_TARGETS builds only those targets (e.g. lsm_bench_metrics);
# "guard" runs "stream" and "fullset" and compares their figures with
# bench/device_baseline.json (bench/device_guard.py: LSM_COMMIT names the
# commit, LSM_GUARD_RECORD=1 records the run as the new baseline).
set -euo pipefail
OUT=${OUT:-/tmp/lsm_out}
STEPS=${LSM_STEPS:-tests gpu tiles metrics}
[[ $STEPS == *guard* ]] && STEPS="$STEPS stream fullset"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
nproc | tee -a "$OUT/gpu.txt"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build-dev "${generator[@]}" -DLSM_WITH_GDAL=OFF -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
grep -E "NPP|CUDA backend" "$OUT/configure.log" || true
targets=()
for t in ${LSM_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build build-dev -j"$(nproc)" "${targets[@]}" >"$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
if [[ $STEPS == *tests* ]]; then
  if [ -f .devdata/ct_head_512x512x140.i16.gz ]; then  # FuzzyRealCt: crops of the real CT
    gunzip -c .devdata/ct_head_512x512x140.i16.gz >/tmp/ct_head.i16
    export LSM_FUZZY_CT_RAW=/tmp/ct_head.i16
  fi
  (cd build-dev && ctest -j8 --output-on-failure) >"$OUT/ctest.log" 2>&1 || { grep -E "Failure|FAILED|Expected|Which is|actual" "$OUT/ctest.log" | head -60; tail -30 "$OUT/ctest.log"; exit 1; }
  tail -4 "$OUT/ctest.log"
  grep -E "Skipped|Not Run" "$OUT/ctest.log" || echo "no skipped tests"
fi
if [[ $STEPS == *gpu* ]]; then  # labeling with statistics against NPP, cupy and OpenCV, one table
  gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv_2mpx.raw
  gunzip -c .devdata/augusta_678x440.raw.gz >/tmp/augusta.raw
  mkdir -p /tmp/lsm_inputs
  build-dev/bench/lsm_bench_gpu_label --bern-valais /tmp/bv_2mpx.raw --augusta /tmp/augusta.raw --dump /tmp/lsm_inputs \
    --giga-side "${LSM_GIGA_SIDE:-32768}" | tee "$OUT/ours.jsonl"
  if [ -x build-dev/bench/lsm_bench_npp_label ]; then
    build-dev/bench/lsm_bench_npp_label /tmp/lsm_inputs/manifest.json | tee "$OUT/npp.jsonl"
  else
    echo "NPP peer not built" | tee "$OUT/npp.jsonl"
  fi
  python3 bench/label_peers.py --manifest /tmp/lsm_inputs/manifest.json --ours "$OUT/ours.jsonl" \
    --npp "$OUT/npp.jsonl" 2>"$OUT/peers.log" | tee "$OUT/table.md"
fi
if [[ $STEPS == *ours* ]]; then  # lsm alone, no peers: quick iterations on the kernels
  gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv_2mpx.raw
  gunzip -c .devdata/augusta_678x440.raw.gz >/tmp/augusta.raw
  build-dev/bench/lsm_bench_gpu_label --bern-valais /tmp/bv_2mpx.raw --augusta /tmp/augusta.raw \
    --giga-side "${LSM_GIGA_SIDE:-0}" | tee "$OUT/ours.jsonl"
fi
if [[ $STEPS == *tiles* ]] && [ -f .devdata/bv_47mpx.raw.gz ]; then  # the tile scheduler path (host tiles)
  gunzip -c .devdata/bv_47mpx.raw.gz >/tmp/bv_47mpx.raw
  build-dev/bench/lsm_bench_label --raw /tmp/bv_47mpx.raw --width 5741 --height 8190 --nodata 255 --cell 100 \
    --tiles "${LSM_BENCH_TILES:-0,2048,8192}" --repeat 5 | tee "$OUT/bench.log"
fi
if [[ $STEPS == *stream* ]] && [ -f .devdata/bv_47mpx.raw.gz ]; then  # 1.07 Gpx through the tile scheduler
  [ -f /tmp/bv_47mpx.raw ] || gunzip -c .devdata/bv_47mpx.raw.gz >/tmp/bv_47mpx.raw
  build-dev/bench/lsm_bench_label --raw /tmp/bv_47mpx.raw --width 5741 --height 8190 --nodata 255 --cell 100 \
    --mosaic 32768 32768 --tiles "${LSM_STREAM_TILES:-0,4096}" --repeat 3 --backends cuda | tee "$OUT/stream.log"
fi
if [[ $STEPS == *metrics* ]]; then  # bern_valais itself (1319 x 1640), for the full metric set
  gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv_2mpx.raw
  build-dev/bench/lsm_bench_metrics --raw /tmp/bv_2mpx.raw --width 1319 --height 1640 --nodata 255 --cell 100 \
    --repeat 5 | tee "$OUT/bench_metrics.log"
fi
if [[ $STEPS == *distances* ]]; then  # PROX and CONNECT against the full set: 47 Mpx bern_valais, 400 Mpx zion mosaics
  gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv_2mpx.raw
  gunzip -c .devdata/zion_1073x1359.raw.gz >/tmp/zion.raw
  for stage in "full" "PROX 500m" "PROX 2km" "CONNECT 500m" "CONNECT 2km"; do
    /usr/bin/time -f "peak %M KB" build-dev/bench/lsm_bench_metrics --raw /tmp/bv_2mpx.raw --width 1319 --height 1640 \
      --nodata 255 --cell 100 --mosaic 5741 8190 --backends cpu --stages "$stage" --repeat 1 2>&1 | tee -a "$OUT/distances.log"
  done
  for stage in "full" "PROX 500m" "CONNECT 500m" "CONNECT 2km"; do
    /usr/bin/time -f "peak %M KB" build-dev/bench/lsm_bench_metrics --raw /tmp/zion.raw --width 1073 --height 1359 \
      --nodata 255 --cell 31.53 --mosaic 20000 20000 --backends cpu --stages "$stage" --repeat 1 2>&1 | tee -a "$OUT/distances.log"
  done
fi
if [[ $STEPS == *simi* ]]; then  # SIMI with every class pair similar, on the same mosaics (zion: 5 minutes at most)
  gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv_2mpx.raw
  gunzip -c .devdata/zion_1073x1359.raw.gz >/tmp/zion.raw
  for stage in "SIMI 500m" "SIMI 2km"; do
    /usr/bin/time -f "peak %M KB" build-dev/bench/lsm_bench_metrics --raw /tmp/bv_2mpx.raw --width 1319 --height 1640 \
      --nodata 255 --cell 100 --mosaic 5741 8190 --backends cpu --stages "$stage" --repeat 1 2>&1 | tee -a "$OUT/simi.log"
  done
  timeout 300 /usr/bin/time -f "peak %M KB" build-dev/bench/lsm_bench_metrics --raw /tmp/zion.raw --width 1073 \
    --height 1359 --nodata 255 --cell 31.53 --mosaic 20000 20000 --backends cpu --stages "SIMI 500m" --repeat 1 2>&1 |
    tee -a "$OUT/simi.log"
fi
if [[ $STEPS == *fullset* ]]; then  # the full FRAGSTATS set on the 47 Mpx bern_valais and augusta mosaics, in memory
  for name in bv_47mpx:100 augusta_47mpx:30; do
    raster=${name%%:*} cell=${name##*:}
    [ -f ".devdata/$raster.raw.gz" ] || continue
    gunzip -c ".devdata/$raster.raw.gz" >"/tmp/$raster.raw"
    echo "== $raster" | tee -a "$OUT/fullset.log"
    build-dev/bench/lsm_bench_metrics --raw "/tmp/$raster.raw" --width 5741 --height 8190 --nodata 255 --cell "$cell" \
      --stages "${LSM_FULLSET_STAGES:-first pass,no ENN,full,ENN alone,rows alone}" --repeat "${LSM_FULLSET_REPEAT:-3}" | tee -a "$OUT/fullset.log"
  done
fi
if [[ $STEPS == *kmeans* ]]; then  # K-means: lsm CUDA and CPU against OpenCV's cv2.kmeans, one table
  gunzip -c .devdata/carrotweed_8mpx_rgb.raw.gz >/tmp/cw8.raw
  gunzip -c .devdata/carrotweed_2mpx_rgb.raw.gz >/tmp/cw2.raw
  mkdir -p /tmp/kmeans_inputs
  build-dev/bench/lsm_bench_kmeans --photo carrotweed_2mpx /tmp/cw2.raw 1632 1224 \
    --photo carrotweed_8mpx /tmp/cw8.raw 3264 2448 --synthetic-side "${LSM_KMEANS_SIDE:-32768}" \
    --iters "${LSM_KMEANS_ITERS:-20}" --dump /tmp/kmeans_inputs | tee "$OUT/kmeans_ours.jsonl"
  python3 bench/kmeans_peers.py --manifest /tmp/kmeans_inputs/manifest.jsonl --ours "$OUT/kmeans_ours.jsonl" \
    2>"$OUT/kmeans_peers.log" | tee "$OUT/kmeans_table.md" || tail -20 "$OUT/kmeans_peers.log"
fi
if [[ $STEPS == *image* ]]; then  # pyramid, gradient, HOG: lsm CUDA and CPU against OpenCV, one table
  gunzip -c .devdata/pedestrian_1080p_grey.f32.gz >/tmp/ped1080.f32
  build-dev/bench/lsm_bench_image --photo pedestrian_1080p /tmp/ped1080.f32 1920 1080 \
    --giga-side "${LSM_IMAGE_GIGA_SIDE:-32768}" | tee "$OUT/image_ours.jsonl"
  python3 bench/image_peers.py --grey /tmp/ped1080.f32 --width 1920 --height 1080 --ours "$OUT/image_ours.jsonl" \
    2>"$OUT/image_peers.log" | tee "$OUT/image_table.md" || tail -20 "$OUT/image_peers.log"
fi
if [[ $STEPS == *fuzzy* ]]; then  # fuzzy connectedness: the full CT from one seed, every backend vs the reference
  gunzip -c .devdata/ct_head_512x512x140.i16.gz >/tmp/ct_head.i16
  build-dev/bench/lsm_bench_fuzzy --raw-i16 /tmp/ct_head.i16 512 512 140 --seed 254,267,52 --seed-radius 2 \
    --repeat 5 | tee "$OUT/fuzzy.jsonl"
  build-dev/bench/lsm_bench_fuzzy --raw-i16 /tmp/ct_head.i16 512 512 140 --seed 254,267,52 --seed-radius 2 \
    --adjacency full --repeat 5 | tee -a "$OUT/fuzzy.jsonl"
  build-dev/bench/lsm_bench_fuzzy --raw-i16 /tmp/ct_head.i16 512 512 140 --seed 254,267,52 --seed 30,30,5 \
    --seed-radius 2 --repeat 3 | tee -a "$OUT/fuzzy.jsonl"
fi
if [[ $STEPS == *window* ]]; then  # moving windows end to end in memory (lsm_bench_window)
  gunzip -c .devdata/bv_2mpx.raw.gz >/tmp/bv_2mpx.raw
  raw=(--raw /tmp/bv_2mpx.raw --width 1319 --height 1640 --nodata 255 --cell 100)
  ten=NP,LPI,SHDI,SIDI,PR,TE,ED,CONTAG,PLADJ,AI
  mosaic=(--mosaic 5741 8190 --window-cells 21)
  {
    for w in 5 21; do build-dev/bench/lsm_bench_window "${raw[@]}" --window-cells $w --metrics $ten --backend cuda --check; done
    build-dev/bench/lsm_bench_window "${raw[@]}" --window-cells 21 --class-metrics PLAND,NP,LPI,ED --backend cuda --check
    for m in SHDI ED NP CONTAG $ten; do  # the GPU's part alone: copies and kernels
      CUDA_VISIBLE_DEVICES=0 build-dev/bench/lsm_bench_window "${raw[@]}" "${mosaic[@]}" --metrics $m --pass-only
    done
    for m in SHDI NP SHDI,ED,CONTAG,NP; do  # the last: the peers' four (bench/window_peers.py)
      CUDA_VISIBLE_DEVICES=0 build-dev/bench/lsm_bench_window "${raw[@]}" "${mosaic[@]}" --metrics $m --backend cuda
    done
    CUDA_VISIBLE_DEVICES=0 build-dev/bench/lsm_bench_window "${raw[@]}" "${mosaic[@]}" --metrics $ten --backend cuda --check
    build-dev/bench/lsm_bench_window "${raw[@]}" "${mosaic[@]}" --metrics $ten --backend cpu --repeat 1
    side=${LSM_GIGA_SIDE:-0}
    if [ "$side" -gt 0 ]; then
      CUDA_VISIBLE_DEVICES=0 build-dev/bench/lsm_bench_window "${raw[@]}" --mosaic "$side" "$side" --window-cells 21 --metrics $ten --backend cuda --discard --repeat 1
      build-dev/bench/lsm_bench_window "${raw[@]}" --mosaic "$side" "$side" --window-cells 21 --metrics $ten --backend cuda --discard --repeat 1
    fi
  } | tee "$OUT/window.jsonl"
fi
if [[ $STEPS == *guard* ]]; then  # the figures above against the baseline, one table
  python3 bench/device_guard.py "$OUT" --commit "${LSM_COMMIT:-unknown}" ${LSM_GUARD_RECORD:+--write-baseline} |
    tee "$OUT/guard.md"
  [ -z "${LSM_GUARD_RECORD:-}" ] || cp bench/device_baseline.json "$OUT/"
fi
