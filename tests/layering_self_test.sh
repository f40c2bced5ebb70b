#!/usr/bin/env bash
# The layering test catches what it is for: on a copy of the sources with a
# front end that names an operation, a driver file that includes an
# algorithm header and a CLI file that includes the engine, it must fail and
# name each one; on the sources as they are, it must pass.
#   layering_self_test.sh SOURCE_DIR ENGINE_TEST_BINARY
set -uo pipefail
src=$1 engine_tests=$2
here=$(dirname "$0")
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$src/metrics" "$src/image_algos" "$src/cuda" "$src/tools" "$src/gdal_driver" "$copy/"
echo 'bool named(const std::string& op) { return op == "gradient"; }' >>"$copy/gdal_driver/plugin/derived_raster.cpp"
echo '#include "gradient.h"' >>"$copy/gdal_driver/plugin/connection.cpp"
echo '#include "landscape_job.h"' >>"$copy/tools/cli/command_line.cpp"
out=$(bash "$here/layering_test.sh" "$copy" "$engine_tests")
status=$?
failed=0
expect() {
  if ! grep -q "$1" <<<"$out"; then
    echo "layering_self_test: the layering test did not report: $1"
    failed=1
  fi
}
[[ $status -ne 0 ]] || { echo "layering_self_test: the layering test passed on injected violations"; failed=1; }
expect 'derived_raster.cpp:[0-9]*:.*a front end names an operation'
expect 'connection.cpp: *gradient.h: the driver holds no algorithm'
expect 'command_line.cpp: *landscape_job.h: the front ends hold no algorithm'
bash "$here/layering_test.sh" "$src" "$engine_tests" >/dev/null || { echo "layering_self_test: the sources themselves fail"; failed=1; }
((failed)) && { echo "$out"; exit 1; }
echo "layering_self_test: every injected violation was reported"
