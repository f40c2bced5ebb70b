#include "patch_runs_within.h"

#include <algorithm>
#include <cmath>

#include "error.h"

namespace lsm {

std::vector<int64_t> gaps_within(double distance_m, double cell_width, double cell_height, const std::string& what) {
  if (!(distance_m > 0) || !std::isfinite(distance_m))
    throw Error(ErrorKind::BadInput, what + " must be a positive number of metres");
  constexpr double kMaxReach = double(1 << 20);
  if (distance_m / std::min(cell_width, cell_height) > kMaxReach)
    throw Error(ErrorKind::BadInput, what + " reaches more than 2^20 cells");
  std::vector<int64_t> gaps;
  for (int64_t dy = 0; cells_within(0, dy, cell_width, cell_height, distance_m); ++dy) {
    const double dy_m = static_cast<double>(dy) * cell_height;
    int64_t g = static_cast<int64_t>(std::sqrt(std::max(0.0, distance_m * distance_m - dy_m * dy_m)) / cell_width);
    while (g > 0 && !cells_within(g, dy, cell_width, cell_height, distance_m)) --g;  // the exact test decides
    while (cells_within(g + 1, dy, cell_width, cell_height, distance_m)) ++g;
    gaps.push_back(g);
  }
  return gaps;
}

void patch_runs(const uint32_t* pids, int64_t width, const PagedArray<uint32_t>& class_of_pid,
                std::vector<PatchRun>& out) {
  out.clear();
  for (int64_t x0 = 0; x0 < width;) {
    int64_t x1 = x0;
    while (x1 + 1 < width && pids[x1 + 1] == pids[x0]) ++x1;
    if (pids[x0]) out.push_back({class_of_pid[pids[x0]], pids[x0], static_cast<int32_t>(x0), static_cast<int32_t>(x1)});
    x0 = x1 + 1;
  }
  std::sort(out.begin(), out.end(),
            [](const PatchRun& a, const PatchRun& b) { return a.cls != b.cls ? a.cls < b.cls : a.x0 < b.x0; });
}

}  // namespace lsm
