#pragma once
// In-memory rasters: the ClassRasterSource and LabelRasterSink used by tests
// and benchmarks (and on machines without GDAL).
#include <cstdint>
#include <utility>
#include <vector>

#include "raster.h"

namespace lsm {

/// A raster of class codes held in memory, row-major. Cells equal to kNoClass are nodata.
class MemoryClassRaster final : public ClassRasterSource {
 public:
  /// Throws lsm::Error(BadInput) if cells.size() != width * height.
  MemoryClassRaster(int64_t width, int64_t height, std::vector<int32_t> cells, double cell_width = 1.0,
                    double cell_height = 1.0);
  RasterInfo info() const override { return info_; }
  using ClassRasterSource::read;
  void read(const Window& window, int32_t* out, int64_t line_stride) override;
  const std::vector<int32_t>& cells() const { return cells_; }

 private:
  RasterInfo info_;
  std::vector<int32_t> cells_;
};

/// Collects a patch-ID raster in memory.
class MemoryLabelRaster final : public LabelRasterSink {
 public:
  MemoryLabelRaster(int64_t width, int64_t height);
  void write(const Window& window, const uint32_t* labels) override;
  const std::vector<uint32_t>& labels() const { return labels_; }
  /// The labels, moved out (the sink is empty after).
  std::vector<uint32_t> take_labels() { return std::move(labels_); }

 private:
  int64_t width_, height_;
  std::vector<uint32_t> labels_;
};

}  // namespace lsm
