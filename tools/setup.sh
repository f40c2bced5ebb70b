#!/usr/bin/env bash
# Installs lsm's Debian 12 dependencies (as root) and builds it into build/.
#   bash tools/setup.sh              install packages, configure, build
#   bash tools/setup.sh --deps-only  install packages only
# CUDA is used when nvcc is found (PATH or /usr/local/cuda); without it the
# CPU backend is built alone.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(build-essential cmake libgdal-dev gdal-bin libboost-program-options-dev libgtest-dev)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "--deps-only" ] && exit 0
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
