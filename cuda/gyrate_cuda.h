#pragma once
// GYRATE under FRAGSTATS' rule (metrics/fragstats_gyrate.h) on the GPU, from
// a patch-ID raster already on the device, planar rasters only. Equal bit for
// bit to the CPU's fragstats_gyrate_m(): the same area medians (rounded as
// area_median() rounds, no fused multiply-add), the same distances, and the
// same exact sum of fixed-point terms, which does not depend on the order.
//
// Method: each run of one patch in a row (found by the thread of its first
// cell) adds its length to its patch's row count and +1 / -1 to a difference
// array over the patch's columns, in per-patch histograms laid out by
// exclusive sums of the bounding boxes' heights and widths (cub::DeviceScan);
// one inclusive sum turns the differences into column counts (each patch's
// differences add up to 0, so the patches before it do not leak into it). One
// thread per patch walks its counts to FRAGSTATS' area medians; one thread per
// cell adds its fixed-point distance, summed per patch within a warp
// (__match_any_sync) and then into a 128-bit sum by two 64-bit atomics.
//
// Memory on the device: about 8 bytes per cell and 56 per patch, from lsm's
// pool (device_pool.h), on the caller's stream.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "device_pool.h"

namespace lsm {

/// GYRATE's device buffers, kept between calls (grown on demand).
class DeviceGyrate {
 public:
  /// `pids`: width x height patch IDs on the device (row-major, 0 = nodata,
  /// PIDs 1..`patches`); cell sizes in m; `fixed_exponent` from
  /// gyrate_fixed_exponent(). Returns GYRATE (m) per PID - 1. Enqueued on
  /// `stream`, which it synchronises at the end. Throws lsm::Error(Device).
  std::vector<double> compute(const uint32_t* pids, int64_t width, int64_t height, size_t patches, double cell_width,
                              double cell_height, int fixed_exponent, cudaStream_t stream);
  /// Returns the buffers to the pool (stream-ordered).
  void release() noexcept;

 private:
  DeviceBuffer boxes_, cells_, row_offset_, col_offset_, row_counts_, col_diff_, col_counts_, medians_, sums_, temp_;
};

}  // namespace lsm
