#!/usr/bin/env bash
# Pack lsm (built here, with CUDA), gdal_translate and gdalinfo with the
# Debian 12 shared libraries they load, GDAL's and PROJ's data, into one
# archive for the GPU machine, which has no GDAL (bench/stream_10g_device.sh
# unpacks it). The C and C++ runtimes stay out: the GPU machine's are newer
# and load Debian 12's libraries as they are.
# usage: bench/make_gdal_bundle.sh BUILD_DIR OUT.tar.xz
set -euo pipefail
build=$1 out=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/share/proj" "$stage/gdalplugins"
binaries=("$build/lsm" "$(command -v gdal_translate)" "$(command -v gdalinfo)")
cp "${binaries[@]}" "$stage/bin/"
runtime='^(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so'
for b in "${binaries[@]}"; do ldd "$b"; done | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    [[ $soname =~ $runtime ]] || cp -L "$path" "$stage/lib/$soname"
  done
cp -r /usr/share/gdal "$stage/share/gdal"
cp /usr/share/proj/proj.db "$stage/share/proj/"
tar -C "$stage" -cJf "$out.tmp" . && mv "$out.tmp" "$out"
echo "$out: $(du -h "$out" | cut -f1), $(ls "$stage/lib" | wc -l) libraries"
