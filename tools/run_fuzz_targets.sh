#!/usr/bin/env bash
# Builds the fuzz targets with clang, libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer into build-fuzz/ and runs each for SECONDS
# (default 60) on a copy of its seed corpus (tests/fuzz/README.md).
#   bash tools/run_fuzz_targets.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DLSM_WITH_CUDA=OFF -DLSM_BUILD_TESTS=OFF \
  -DLSM_BUILD_BENCH=OFF -DLSM_BUILD_FUZZERS=ON \
  -DCMAKE_CXX_FLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzz_connection_string fuzz_option_values fuzz_centres_file \
  fuzz_class_raster fuzz_execute_request
bash tests/fuzz/run_fuzzers.sh "$PWD/build-fuzz" "$seconds"
