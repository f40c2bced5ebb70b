#pragma once
// ENN on the GPU (FRAGSTATS 4.2, "Aggregation metrics: ENN"): for every
// patch, the shortest cell-centre to cell-centre distance to another patch of
// its class, from a patch-ID raster already on the device. Equal bit for bit
// to the CPU sweep (metrics/fragstats/enn_sweep.h): both return, per patch, the
// floating-point minimum over pairs of edge cells of dx2 + dy * dy with
// dx = columns x cell width and dy = rows x cell height, each product and the
// sum rounded once (no fused multiply-add here, none on the host's baseline
// x86-64), and the minimum of a set does not depend on the order it is taken in.
//
// Method. Sites are the edge cells (a 4-neighbour inside the raster in
// another patch) of classes with two patches or more, selected with
// cub::DeviceSelect and sorted by (class, column, row) with
// cub::DeviceRadixSort. Within a (class, column) segment, maximal runs of one
// patch are numbered (cub::DeviceScan), so every site knows the nearest site
// above and below it of another patch. One thread per site then searches
// outwards from its own column, as the CPU sweep does, while the horizontal
// gap alone is shorter than the best distance found for its patch so far
// (shared by the patch's sites through an atomic minimum on the bits of the
// positive double): in column c a binary search finds the nearest sites at
// or above and below the site's row, and a step past the run of its own patch
// gives the nearest of another patch.
//
// Exact: let (p, q) be the closest pair of patch P and another patch of its
// class. The search from p reaches q's column (their horizontal gap alone is
// below the best it can have found), and there it finds a site of another
// patch at most as far vertically as q on q's side. Every distance it finds
// is one to another patch. (tests/test_nearest_neighbour.cpp checks it
// against brute force on random and adversarial grids.)
//
// Memory on the device: about 48 bytes per site and 8 per patch, per class
// and column 8 bytes, from lsm's pool (device_pool.h), on the caller's stream.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "device_pool.h"

namespace lsm {

/// The ENN search's device buffers, kept between calls (grown on demand).
class DeviceNearestPatch {
 public:
  /// Whether search() takes a raster of `cells` cells (indices are 32-bit).
  static bool fits(int64_t cells) { return cells < (int64_t(1) << 31); }

  /// `pids`: width x height patch IDs on the device (row-major, 0 = nodata);
  /// `class_of`: class index per PID on the device (index 0 unused);
  /// `class_of_host`: the same on the host (patches per class decide which
  /// classes have an ENN); `classes`: number of class indices; cell sizes in m.
  /// Returns per PID - 1 the squared ENN in m2, +infinity when the class has
  /// no other patch. Enqueued on `stream`, which it synchronises at the end.
  /// Throws lsm::Error(Device) on a CUDA failure, lsm::Error(BadInput) when
  /// the raster does not fit (fits()).
  std::vector<double> search(const uint32_t* pids, const uint32_t* class_of,
                             const std::vector<uint32_t>& class_of_host, size_t classes, int64_t width,
                             int64_t height, double cell_width, double cell_height, cudaStream_t stream);

  /// Returns the buffers to the pool (stream-ordered).
  void release() noexcept;

 private:
  DeviceBuffer wanted_, cells_, keys_, sorted_, count_, temp_, rows_, site_pid_, run_, run_first_, above_, below_,
      segments_, best_;
};

}  // namespace lsm
