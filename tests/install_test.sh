#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: lsm in bin/, gdal_LSM.so in
# <libdir>/gdalplugins (where GDAL then finds it), the QGIS plugin with the
# installed lsm's path.   install_test.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAIL: $*"; find "$prefix" -maxdepth 6 | head -40; exit 1; }
[ -x "$prefix/bin/lsm" ] || fail "no bin/lsm"
plugin=$(find "$prefix" -name gdal_LSM.so | head -1)
[ -n "$plugin" ] && [[ $plugin == */gdalplugins/gdal_LSM.so ]] || fail "no <libdir>/gdalplugins/gdal_LSM.so"
[ ! -e "$(dirname "$plugin")/3.6" ] || fail "an empty gdalplugins/3.6 would hide the plugin from GDAL"
env ${LSM_ASAN_PRELOAD:+LD_PRELOAD=$LSM_ASAN_PRELOAD} GDAL_DRIVER_PATH=$(dirname "$plugin") gdalinfo --formats >"$prefix/formats.txt"
grep -q "LSM -raster- (ro)" "$prefix/formats.txt" || fail "GDAL does not find the installed driver"
qgis=$(find "$prefix" -type d -name lsm_provider | head -1)
[ -f "$qgis/metadata.txt" ] && [ -f "$qgis/algorithm.py" ] || fail "no QGIS plugin"
[ -f "$qgis/docs/metrics.md" ] && [ -f "$qgis/docs/images/qgis_patch_map.png" ] && [ -f "$qgis/icon.svg" ] ||
  fail "the plugin's help pages or icon are missing"
[ "$(cat "$qgis/installed_binary.txt")" = "$prefix/bin/lsm" ] || fail "installed_binary.txt: $(cat "$qgis/installed_binary.txt")"
"$prefix/bin/lsm" --describe >"$prefix/describe.json"
grep -q '"name":"fuzzy"' "$prefix/describe.json" || fail "the installed lsm does not describe itself"
for page in $(grep -o '"manual":"[^"]*"' "$prefix/describe.json" | cut -d'"' -f4 | sort -u); do
  [ -f "$qgis/docs/$page" ] || fail "the help page $page of an operation is not installed with the plugin"
done
[ -n "$(find "$prefix" -path '*/doc/*' -name GDAL_DRIVER.md)" ] || fail "the driver's help topic GDAL_DRIVER.md is not installed"
if [ -d "$build/python/lsm" ]; then  # the Python module, where the build has it
  package=$(find "$prefix" -type d -path '*-packages/lsm' | head -1)
  [ -n "$package" ] && [ -f "$package/__init__.py" ] && ls "$package"/_lsm*.so >/dev/null 2>&1 ||
    fail "no Python package lsm (with _lsm) under lib/python3.X/*-packages"
  python=$(sed -n 's/^LSM_PYTHON_EXECUTABLE_USED:[A-Z]*=//p' "$build/CMakeCache.txt")
  env ${LSM_ASAN_PRELOAD:+LD_PRELOAD=$LSM_ASAN_PRELOAD} PYTHONPATH="$(dirname "$package")" "${python:-/usr/bin/python3}" -c "
import lsm, numpy
assert lsm.__file__.startswith('$prefix'), lsm.__file__
table = lsm.Landscape(numpy.array([[1, 1], [2, 2]], dtype=numpy.uint8)).landscape_metrics(['NP'])
assert table['NP'][0] == 2, table" || fail "the installed Python module does not import or run"
fi
echo "ok: lsm, gdal_LSM.so, the QGIS plugin and the Python module installed under $prefix"
