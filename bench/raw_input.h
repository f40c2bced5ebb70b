#pragma once
// Raw Byte rasters for the benchmarks (no GDAL on the GPU machine): W x H
// bytes, one class code per cell, `nodata` (or -1 for none) mapped to kNoClass.
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "memory_raster.h"

namespace lsm::bench {

inline MemoryClassRaster load_raw_byte(const std::string& path, int64_t width, int64_t height, int nodata,
                                       double cell) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes(static_cast<size_t>(width * height));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    throw Error(ErrorKind::Io, "cannot read " + std::to_string(bytes.size()) + " bytes from " + path);
  std::vector<int32_t> cells(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) cells[i] = bytes[i] == nodata ? kNoClass : int32_t(bytes[i]);
  return MemoryClassRaster(width, height, std::move(cells), cell, cell);
}

}  // namespace lsm::bench
