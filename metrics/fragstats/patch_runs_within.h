#pragma once
// What the distance sweeps of CONNECT (connectance_sweep.h) and PROX
// (proximity_sweep.h) share: a row cut into runs of one patch, and the
// largest column gap between two cells that keeps them within a distance
// at each row distance. Two cells dx columns and dy rows apart are within
// distance d when (dx w)^2 + (dy h)^2 <= d^2 (w x h the cell size in m),
// evaluated in that one form everywhere, so that a distance equal to d counts.
#include <cstdint>
#include <string>
#include <vector>

#include "paged_array.h"

namespace lsm {

/// The cells of one patch in one row: columns x0..x1 (inclusive).
struct PatchRun {
  uint32_t cls, pid;  ///< class index and PID
  int32_t x0, x1;
};

/// Whether cells dx columns and dy rows apart are within `distance_m`.
inline bool cells_within(int64_t dx, int64_t dy, double cell_width, double cell_height, double distance_m) {
  const double x = static_cast<double>(dx) * cell_width, y = static_cast<double>(dy) * cell_height;
  return x * x + y * y <= distance_m * distance_m;
}

/// [dy] = the largest column gap within `distance_m` at dy rows, for dy = 0,
/// 1, ... while dy alone is within it (size - 1 is the reach in rows).
/// Throws lsm::Error(BadInput), naming the option as `what` ("the search
/// radius"), for a distance that is not a positive finite number or that
/// reaches more than 2^20 cells.
std::vector<int64_t> gaps_within(double distance_m, double cell_width, double cell_height, const std::string& what);

/// The runs of row `pids` (`width` IDs, 0 = nodata, skipped) into `out`,
/// sorted by class, then column: within a class both ends ascend.
void patch_runs(const uint32_t* pids, int64_t width, const PagedArray<uint32_t>& class_of_pid,
                std::vector<PatchRun>& out);

}  // namespace lsm
