#!/usr/bin/env bash
# Installs lsm's Debian 12 dependencies (as root) and builds it into build/.
#   bash tools/setup.sh              install packages, configure, build
#   bash tools/setup.sh --deps-only  install packages only
#   --with-qgis (with either)        also QGIS (qgis, python3-qgis), for the
#                                    QGIS provider and its tests
#   --with-browser (with either)     also Chromium, which renders the
#                                    service's pages in its tests
#   --with-fuzzing (with either)     also clang, libFuzzer and LLVM's OpenMP,
#                                    for the fuzz targets (tests/fuzz)
#   --with-python-extras (with either)
#                                    also rasterio, dask.distributed, tqdm,
#                                    geopandas and matplotlib, which the
#                                    Python module works with (docs/PYTHON.md)
#   --with-postgresql (with either)  also a PostgreSQL server, for the tests
#                                    of lsm serve's shared job store (each
#                                    runs in a throwaway cluster: pg_virtualenv)
#   --with-proxy (with either)       also nginx (nginx-light) and openssl, for
#                                    the test of lsm serve behind a TLS proxy
#   --with-opencv (with either)      also OpenCV's Python bindings
#                                    (python3-opencv), the reference of the
#                                    HOG Dalal-Triggs test
# CUDA is used when nvcc is found (PATH or /usr/local/cuda); without it the
# CPU backend is built alone.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(build-essential cmake libgdal-dev gdal-bin libboost-program-options-dev libgtest-dev nlohmann-json3-dev
          libopenmpi-dev openmpi-bin
          libcpp-httplib-dev libsqlite3-dev libpq-dev pkg-config curl python3-jsonschema python3-yaml python3-owslib
          pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-pip python3-setuptools python3-wheel)
deps_only=false
for a in "$@"; do
  case "$a" in
    --deps-only) deps_only=true ;;
    --with-qgis) packages+=(qgis python3-qgis xvfb xauth) ;;
    --with-opencv) packages+=(python3-opencv) ;;
    --with-postgresql) packages+=(postgresql postgresql-common) ;;
    --with-proxy) packages+=(nginx-light openssl) ;;
    --with-python-extras) packages+=(python3-rasterio python3-distributed python3-tqdm python3-geopandas python3-matplotlib) ;;
    --with-browser) packages+=(chromium) ;;
    --with-fuzzing) packages+=(clang libfuzzer-14-dev libomp-14-dev) ;;
    *) echo "setup.sh: unknown option $a" >&2; exit 1 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
$deps_only && exit 0
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
# The Python module where python3 finds it (/usr/local/lib/python3.X/dist-packages),
# so that `python3 -c "import lsm"` works; elsewhere PYTHONPATH=build/python.
if [ -d build/python/lsm ]; then
  if [ -w /usr/local/lib ]; then
    cmake --install build --component python >/dev/null
  else
    echo "setup.sh: not root, so the Python module stays in build/python (PYTHONPATH=$PWD/build/python)" >&2
  fi
fi
