#pragma once
// Per-patch row and column statistics on the GPU, from a patch-ID raster
// already on the device (planar rasters), for two metrics of the second pass:
//
// - GYRATE under FRAGSTATS' rule (metrics/fragstats/fragstats_gyrate.h), equal bit for
//   bit to the CPU's fragstats_gyrate_m(): the same area medians (rounded as
//   area_median() rounds, no fused multiply-add), the same distances, and the
//   same exact sum of fixed-point terms, which does not depend on the order;
// - CIRCLE's inputs: each row's first and last cell of each patch, from
//   which the host builds the patch's hull and circle exactly as the row
//   visitor does (patch_row_metrics.cpp).
//
// Method: each run of one patch in a row (found by the thread of its first
// cell) adds its length to its patch's row count, its ends to the row's
// extent, and +1 / -1 to a difference array over the patch's columns, in
// per-patch arrays laid out by exclusive sums of the bounding boxes' heights
// and widths (cub::DeviceScan); one inclusive sum turns the differences into
// column counts (each patch's differences add up to 0, so the patches before
// it do not leak into it). One thread per patch walks its counts to
// FRAGSTATS' area medians; one thread per cell adds its fixed-point
// distance, summed per patch within a warp (__match_any_sync) and then into a
// 128-bit sum by two 64-bit atomics.
//
// Memory on the device: about 16 bytes per cell and 64 per patch, from lsm's
// pool (device_pool.h), on the caller's stream.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cell_neighbourhood.h"
#include "device_pool.h"

namespace lsm {

/// What DevicePatchRows::compute() returns, per PID - 1 where not said.
struct PatchRowStatistics {
  std::vector<double> gyrate_m;  ///< GYRATE (m) under FRAGSTATS' rule; empty unless asked
  PatchRowExtents extents;       ///< CIRCLE's inputs; empty unless asked
};

/// The device buffers, kept between calls (grown on demand).
class DevicePatchRows {
 public:
  /// `pids`: width x height patch IDs on the device (row-major, 0 = nodata,
  /// PIDs 1..`patches`); cell sizes in m; `fixed_exponent` from
  /// gyrate_fixed_exponent(). Enqueued on `stream`, which it synchronises at
  /// the end. Throws lsm::Error(Device).
  PatchRowStatistics compute(const uint32_t* pids, int64_t width, int64_t height, size_t patches, double cell_width,
                             double cell_height, int fixed_exponent, bool want_gyrate, bool want_row_extents,
                             cudaStream_t stream);
  /// Returns the buffers to the pool (stream-ordered).
  void release() noexcept;

 private:
  DeviceBuffer boxes_, cells_, row_offset_, col_offset_, row_counts_, extents_, col_diff_, col_counts_, medians_,
      sums_, temp_;
};

}  // namespace lsm
