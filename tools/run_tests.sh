#!/usr/bin/env bash
# Builds lsm (if needed) and runs the whole test suite through ctest.
# Tests that need a GPU skip with a message where there is none; tests that
# need ../shared/data skip when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
cd build
status=0
ctest --output-on-failure -j"$(nproc)" || status=$?
# ctest lists skipped tests without their reasons: these are in the log.
bash ../tests/skip_reasons.sh Testing/Temporary/LastTest.log
exit $status
