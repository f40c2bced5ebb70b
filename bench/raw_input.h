#pragma once
// Raw Byte rasters for the benchmarks (no GDAL on the GPU machine): W x H
// bytes, one class code per cell, `nodata` (or -1 for none) mapped to kNoClass.
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "labeling_inputs.h"
#include "memory_raster.h"

namespace lsm::bench {

/// The options every benchmark on a raw raster shares: --raw FILE --width W
/// --height H [--nodata V] [--cell C] [--repeat N] [--mosaic W H] (a mirror
/// mosaic of the raw raster at that size, for rasters larger than the file).
struct RawRasterArgs {
  std::string raw;
  int64_t width = 0, height = 0;
  int64_t mosaic_width = 0, mosaic_height = 0;
  int nodata = -1, repeat = 3;
  double cell = 100;
  /// Consumes option `a` (its value from `next()`) when it is one of these; false otherwise.
  template <class Next>
  bool take(const std::string& a, Next next) {
    if (a == "--raw") raw = next();
    else if (a == "--width") width = std::stoll(next());
    else if (a == "--height") height = std::stoll(next());
    else if (a == "--nodata") nodata = std::stoi(next());
    else if (a == "--cell") cell = std::stod(next());
    else if (a == "--repeat") repeat = std::stoi(next());
    else if (a == "--mosaic") {
      mosaic_width = std::stoll(next());
      mosaic_height = std::stoll(next());
    } else return false;
    return true;
  }
  /// The raster; throws lsm::Error when an option is missing or the file is short.
  MemoryClassRaster load() const;
};

inline std::vector<uint8_t> read_raw_bytes(const std::string& path, int64_t width, int64_t height) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes(static_cast<size_t>(width * height));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    throw Error(ErrorKind::Io, "cannot read " + std::to_string(bytes.size()) + " bytes from " + path);
  return bytes;
}

inline MemoryClassRaster byte_raster(const std::vector<uint8_t>& bytes, int64_t width, int64_t height, int nodata,
                                     double cell) {
  std::vector<int32_t> cells(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) cells[i] = bytes[i] == nodata ? kNoClass : int32_t(bytes[i]);
  return MemoryClassRaster(width, height, std::move(cells), cell, cell);
}

inline MemoryClassRaster load_raw_byte(const std::string& path, int64_t width, int64_t height, int nodata,
                                       double cell) {
  return byte_raster(read_raw_bytes(path, width, height), width, height, nodata, cell);
}

inline MemoryClassRaster RawRasterArgs::load() const {
  if (raw.empty() || width <= 0 || height <= 0) throw Error(ErrorKind::BadInput, "need --raw, --width, --height");
  if (mosaic_width <= 0 || mosaic_height <= 0) return load_raw_byte(raw, width, height, nodata, cell);
  return byte_raster(mirror_mosaic(read_raw_bytes(raw, width, height), width, height, mosaic_width, mosaic_height),
                     mosaic_width, mosaic_height, nodata, cell);
}

}  // namespace lsm::bench
