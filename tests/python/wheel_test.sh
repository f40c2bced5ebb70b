#!/usr/bin/env bash
# The wheel (tools/python/pyproject.toml, setuptools' PEP 517 backend): pip
# builds it from the package the build made (LSM_PACKAGE_DIR: no CMake run
# while other tests use the build), installs it into a scratch folder, and
# the module imported from there computes a hand grid's tables.
#   wheel_test.sh SOURCE_DIR PACKAGE_DIR PYTHON
set -euo pipefail
src=$1 package=$2 python=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$src/tools/python/build" "$src"/tools/python/*.egg-info' EXIT
if ! "$python" -m pip --version >/dev/null 2>&1 || ! "$python" -c "import setuptools, wheel" 2>/dev/null; then
  echo "SKIP: pip, setuptools or wheel missing for $python (python3-pip, python3-wheel)"
  exit 77
fi
LSM_PACKAGE_DIR=$package "$python" -m pip wheel --no-build-isolation --no-deps --quiet "$src/tools/python" \
  -w "$scratch/dist" 2>&1 | grep -v "Running pip as the 'root' user" || true
wheel=$(ls "$scratch"/dist/lsm-*-linux_*.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { echo "FAIL: pip made no platform wheel"; ls -l "$scratch/dist" || true; exit 1; }
listing=$("$python" -m zipfile -l "$wheel")
[[ $listing == *lsm/_lsm* ]] || { echo "FAIL: $wheel holds no _lsm"; exit 1; }
"$python" -m pip install --no-deps --no-index --quiet --target "$scratch/site" "$wheel" 2>&1 |
  grep -v "Running pip as the 'root' user" || true
cd "$scratch"
PYTHONPATH="$scratch/site" "$python" -c "
import numpy, lsm
assert lsm.__file__.startswith('$scratch/site'), lsm.__file__
grid = numpy.array([[1, 1, 2], [1, 2, 2], [3, 3, 3]], dtype=numpy.uint8)
table = lsm.Landscape(grid, res=30).class_metrics(['CA', 'NP'])
assert table['NP'].tolist() == [1, 1, 1], table
assert abs(table['CA'].sum() - 9 * 900 / 1e4) < 1e-12, table
print('ok: %s installs and runs' % '$(basename "$wheel")')
"
