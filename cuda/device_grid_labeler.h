#pragma once
// Labeling of a class grid that is already in device memory, fused with the
// per-patch accumulators of the area and edge metrics. This is the CUDA
// engine behind the "cuda" TileLabeler (metrics/labeling/tile_labeler.h, whose CPU
// reference is metrics/labeling/tile_labeler_cpu.cpp) and behind the GPU benchmark,
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
  /// grids use kNoClass (metrics/core/raster.h) for nodata and ignore this field.
  int nodata = -1;
};

/// One patch as the device accumulates it; coordinates are grid-local.
struct DevicePatchRecord {
  int32_t class_code;
  uint32_t first;  ///< y * width + x of the patch's first cell in raster order
  uint32_t cells;
  uint32_t col_min, col_max, row_min, row_max;  ///< bounding box, inclusive
  uint32_t pad;
  /// Horizontal / vertical cell sides: perimeter sides (PatchStats::perim_edges_*)
  /// in the low 32 bits, sides against another class (class_edges_*) in the high 32.
  unsigned long long edges_h, edges_v;
  unsigned long long sum_col, sum_row;  ///< sums of the cells' column and row indices
};

/// Device time of each stage of the last labeling, in ms (set_stage_timing).
struct DeviceLabelingStages {
  float label_blocks = 0, join_blocks = 0, rank_roots = 0;
  /// The record pass: records of patches that span blocks set up, then the
  /// labels and sums (label_roots keeps its name from when it labelled every
  /// block-local root).
  float label_roots = 0, accumulate = 0;
};

/// Labels device grids on one stream. Holds its work buffers (from the
/// stream-ordered pool) between calls; one caller at a time.
class DeviceGridLabeler {
 public:
  /// Uses `stream` on the current device; the stream is not owned.
  explicit DeviceGridLabeler(cudaStream_t stream);
  ~DeviceGridLabeler();
  DeviceGridLabeler(const DeviceGridLabeler&) = delete;
  DeviceGridLabeler& operator=(const DeviceGridLabeler&) = delete;

  /// Enqueues the labeling of `grid` under `rule` and the accumulation of
  /// every patch's record on the stream, without waiting.
  /// labels: device array of width*height final labels (row-major, pitch
  /// width), or nullptr. border: device array of 2*width + 2*height labels
  /// (top row, bottom row, left column, right column), or nullptr. The grid
  /// and the output arrays must stay valid until finish() returns.
  /// Throws lsm::Error(BadInput) for an empty grid or one of 2^31 cells or
  /// more, each row counted rounded up to a multiple of 32 cells (so that a
  /// patch's side counts and the union-find's cell indices fit 32 bits),
  /// lsm::Error(Device) on a CUDA failure.
  void enqueue(const DeviceClassGrid& grid, NeighbourRule rule, uint32_t* labels, uint32_t* border);

  /// Waits for the stream and returns the patch count of the last enqueue().
  /// The record array is sized from the previous labelings; when the patches
  /// outnumber it, it grows and the record pass runs again, so this may
  /// enqueue and wait once more.
  uint32_t finish();

  /// enqueue() then finish().
  uint32_t label(const DeviceClassGrid& grid, NeighbourRule rule, uint32_t* labels, uint32_t* border) {
    enqueue(grid, rule, labels, border);
    return finish();
  }

  /// Device array of the last labeling's records, record k for label k + 1;
  /// valid after finish().
  const DevicePatchRecord* records() const { return records_.as<DevicePatchRecord>(); }

  /// With `on`, events between the stages time them (for benchmarks); read
  /// the times with stages() after finish().
  void set_stage_timing(bool on);
  DeviceLabelingStages stages() const;

 private:
  void enqueue_records();

  cudaStream_t stream_;
  DeviceBuffer parents_, root_bits_, local_bits_, merged_bits_, root_rank_, records_, count_, scan_temp_;
  PinnedBuffer host_count_;
  uint64_t record_capacity_ = 0;
  // What the last enqueue() labelled, for the record pass.
  DeviceClassGrid grid_;
  uint32_t* labels_ = nullptr;
  uint32_t* border_ = nullptr;
  uint32_t words_ = 0, words_per_row_ = 0;
  bool timing_ = false;
  cudaEvent_t events_[6] = {};
};

/// Converts a device record of a tile whose cell (0, 0) is raster cell
/// (x0, y0) into raster-wide PatchStats.
PatchStats to_patch_stats(const DevicePatchRecord& r, int64_t grid_width, int64_t x0, int64_t y0,
                          int64_t raster_width);

}  // namespace lsm
