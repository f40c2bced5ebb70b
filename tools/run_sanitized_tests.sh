#!/usr/bin/env bash
# The whole test suite on a build with AddressSanitizer and
# UndefinedBehaviorSanitizer (gcc, -O1, CUDA off, no benchmarks) in
# build-asan/: any out-of-bounds access, use after free or undefined
# behaviour fails the test that met it (-fno-sanitize-recover). GDAL's own
# tools (and the Python of the QGIS test), which some tests run with the
# plugin driver, get the ASan runtime preloaded, as the instrumented plugin
# needs it first in the process; libstdc++ with it, so that ASan's exception
# interceptor finds its target in a program that is not C++ (python3).
# Leak detection is off: GDAL's driver registry and PROJ's caches live until
# exit by design. gcc's -fsanitize=undefined leaves out float-cast-overflow
# (a double out of an integer's range cast to it: a huge option value, an
# attribute table's 1e10): it is named here.
# The Python module is left out: its C++ (the in-memory landscape, arrays
# read in place) runs here through the engine and GDAL tests; an
# instrumented extension would need python3 itself run under the runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizers=address,undefined,float-cast-overflow
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=$sanitizers -fno-sanitize-recover=undefined,float-cast-overflow"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLSM_WITH_CUDA=OFF -DLSM_BUILD_BENCH=OFF \
      -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitizers" \
      -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=$sanitizers" -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=$sanitizers" \
      -DLSM_WITH_PYTHON=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSM_ASAN_PRELOAD
LSM_ASAN_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libstdc++.so)  # ':' separates in LD_PRELOAD
cd build-asan
ctest --output-on-failure -j"$(nproc)"
