#pragma once
// Labeling of a class grid that is already in device memory, fused with the
// per-patch accumulators of the area and edge metrics. This is the CUDA
// engine behind the "cuda" TileLabeler (metrics/tile_labeler.h, whose CPU
// reference is metrics/tile_labeler_cpu.cpp) and behind the GPU benchmark,
// which labels whole rasters held on the device.
//
// Contract (identical to the CPU reference): patches connect cells of equal
// class under the 4- or 8-cell rule; labels are 1..count in raster order of
// each patch's first cell, 0 for nodata; the per-patch counts are exact
// integers. Algorithm and measurements: docs/GPU_LABELING.md.
#include <cuda_runtime.h>

#include <cstdint>

#include "device_pool.h"
#include "patch_stats.h"

namespace lsm {

/// Cell type of a device class grid.
enum class DeviceCellType { UInt8, Int32 };

/// A 2-D grid of class codes in device memory (not owned).
struct DeviceClassGrid {
  const void* cells = nullptr;  ///< device address of cell (0, 0)
  DeviceCellType type = DeviceCellType::UInt8;
  int64_t pitch = 0;            ///< elements from one row to the next
  int width = 0, height = 0;    ///< cells to label; width * height < 2^32 - 1
  /// true: one ring of cells around the grid is readable (row -1, row height,
  /// column -1, column width); their classes count for edges, but they are
  /// never labelled or joined. false: outside the grid is nodata.
  bool halo = false;
  /// UInt8 grids: the cell value that means nodata, or -1 for none. Int32
  /// grids use kNoClass (metrics/raster.h) for nodata and ignore this field.
  int nodata = -1;
};

/// One patch as the device accumulates it; coordinates are grid-local.
struct DevicePatchRecord {
  int32_t class_code;
  uint32_t first;  ///< y * width + x of the patch's first cell in raster order
  uint32_t cells, perim_h, perim_v, class_h, class_v;  ///< as in PatchStats
  uint32_t col_min, col_max, row_min, row_max;          ///< bounding box, inclusive
  uint32_t pad;
  unsigned long long sum_col, sum_row;  ///< sums of the cells' column and row indices
};

/// Labels device grids on one stream. Holds its work buffers (from the
/// stream-ordered pool) between calls; one caller at a time.
class DeviceGridLabeler {
 public:
  /// Uses `stream` on the current device; the stream is not owned.
  explicit DeviceGridLabeler(cudaStream_t stream);

  /// Labels `grid` under `rule` and accumulates every patch's record.
  /// labels: device array of width*height final labels (row-major, pitch
  /// width), or nullptr. border: device array of 2*width + 2*height labels
  /// (top row, bottom row, left column, right column), or nullptr.
  /// All work is enqueued on the stream; the call waits for that stream once,
  /// to learn the patch count, and returns it. Records are in records() until
  /// the next call. Throws lsm::Error(BadInput) for a grid of 2^32 - 1 cells
  /// or more, lsm::Error(Device) on a CUDA failure.
  uint32_t label(const DeviceClassGrid& grid, NeighbourRule rule, uint32_t* labels, uint32_t* border);

  /// Device array of the last call's records, record k for label k + 1.
  const DevicePatchRecord* records() const { return records_.as<DevicePatchRecord>(); }

 private:
  cudaStream_t stream_;
  DeviceBuffer parents_, root_bits_, root_rank_, records_, count_, scan_temp_;
  PinnedBuffer host_count_;
};

/// Converts a device record of a tile whose cell (0, 0) is raster cell
/// (x0, y0) into raster-wide PatchStats.
PatchStats to_patch_stats(const DevicePatchRecord& r, int64_t grid_width, int64_t x0, int64_t y0,
                          int64_t raster_width);

}  // namespace lsm
