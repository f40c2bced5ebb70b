#include "connectance_sweep.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "error.h"

namespace lsm {

namespace {

// Whether cells dx columns and dy rows apart are within the threshold, in the
// one form every caller (and the tests' brute force) evaluates.
bool within(int64_t dx, int64_t dy, double w, double h, double t) {
  const double x = static_cast<double>(dx) * w, y = static_cast<double>(dy) * h;
  return x * x + y * y <= t * t;
}

constexpr int64_t kMaxReach = int64_t(1) << 20;

}  // namespace

ConnectanceSweep::ConnectanceSweep(const PagedArray<uint32_t>& class_of_pid, const PagedArray<uint32_t>& last_row_of_pid,
                                   size_t classes, int64_t width, double cell_width, double cell_height,
                                   double threshold_m)
    : class_of_pid_(class_of_pid), last_row_of_pid_(last_row_of_pid), width_(width), joinings_(classes, 0) {
  if (!(threshold_m > 0) || !std::isfinite(threshold_m))
    throw Error(ErrorKind::BadInput, "the threshold distance must be a positive number of metres");
  if (threshold_m / std::min(cell_width, cell_height) > static_cast<double>(kMaxReach))
    throw Error(ErrorKind::BadInput, "the threshold distance reaches more than 2^20 cells");
  // The largest gap in columns at each row distance dy, as long as dy alone is within reach.
  for (int64_t dy = 0; within(0, dy, cell_width, cell_height, threshold_m); ++dy) {
    int64_t g = static_cast<int64_t>(std::sqrt(std::max(0.0, threshold_m * threshold_m -
                                                                 std::pow(static_cast<double>(dy) * cell_height, 2))) /
                                     cell_width);
    while (g > 0 && !within(g, dy, cell_width, cell_height, threshold_m)) --g;  // the exact test decides
    while (within(g + 1, dy, cell_width, cell_height, threshold_m)) ++g;
    max_gap_.push_back(g);
  }
  band_.resize(max_gap_.size());
}

void ConnectanceSweep::row(int64_t y, const uint32_t* pids) {
  forget_pairs_before(y);
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
  std::vector<Run>& runs = band_[static_cast<size_t>(y % (reach + 1))];  // the row leaving reach makes room
  runs.clear();
  for (int64_t x0 = 0; x0 < width_;) {
    int64_t x1 = x0;
    while (x1 + 1 < width_ && pids[x1 + 1] == pids[x0]) ++x1;
    if (pids[x0]) runs.push_back({class_of_pid_[pids[x0]], pids[x0], static_cast<int32_t>(x0), static_cast<int32_t>(x1)});
    x0 = x1 + 1;
  }
  // Runs of one class are disjoint, so within a class both ends ascend.
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.cls != b.cls ? a.cls < b.cls : a.x0 < b.x0; });
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    for (int64_t dy = 0; dy <= reach && dy <= y; ++dy) {
      const std::vector<Run>& other = band_[static_cast<size_t>((y - dy) % (reach + 1))];
      const int64_t gap = max_gap_[static_cast<size_t>(dy)];
      // In its own row only the runs to its right: each pair of runs once.
      auto b = dy == 0 ? other.begin() + static_cast<std::ptrdiff_t>(i) + 1
                       : std::lower_bound(other.begin(), other.end(), r, [gap](const Run& o, const Run& v) {
                           return o.cls != v.cls ? o.cls < v.cls : o.x1 < v.x0 - gap;
                         });
      for (; b != other.end() && b->cls == r.cls && b->x0 <= r.x1 + gap; ++b)
        if (b->pid != r.pid) join(r.pid, b->pid, r.cls, y);
    }
  }
}

void ConnectanceSweep::join(uint32_t a, uint32_t b, uint32_t cls, int64_t y) {
  const uint64_t key = (uint64_t(std::min(a, b)) << 32) | std::max(a, b);
  if (!pairs_.insert(key).second) return;
  ++joinings_[cls];
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
  const int64_t last = std::min<int64_t>(last_row_of_pid_[a], last_row_of_pid_[b]);
  forget_at_[std::max(y, last) + reach + 1].push_back(key);
}

void ConnectanceSweep::forget_pairs_before(int64_t y) {
  while (!forget_at_.empty() && forget_at_.begin()->first <= y) {
    for (uint64_t key : forget_at_.begin()->second) pairs_.erase(key);
    forget_at_.erase(forget_at_.begin());
  }
}

}  // namespace lsm
