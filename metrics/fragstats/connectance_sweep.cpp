#include "connectance_sweep.h"

#include <algorithm>

namespace lsm {

ConnectanceSweep::ConnectanceSweep(const PagedArray<uint32_t>& class_of_pid, const PagedArray<uint32_t>& last_row_of_pid,
                                   size_t classes, int64_t width, double cell_width, double cell_height,
                                   double threshold_m)
    : class_of_pid_(class_of_pid),
      last_row_of_pid_(last_row_of_pid),
      width_(width),
      max_gap_(gaps_within(threshold_m, cell_width, cell_height, "the threshold distance")),
      band_(max_gap_.size()),
      joinings_(classes, 0) {}

void ConnectanceSweep::row(int64_t y, const uint32_t* pids) {
  forget_pairs_before(y);
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
  std::vector<PatchRun>& runs = band_[static_cast<size_t>(y % (reach + 1))];  // the row leaving reach makes room
  patch_runs(pids, width_, class_of_pid_, runs);
  // Each run's partners on all cores, entered in run order (the counts do
  // not depend on the threads).
  const int64_t n = static_cast<int64_t>(runs.size());
  if (partners_.size() < runs.size()) partners_.resize(runs.size());
#pragma omp parallel for schedule(dynamic, 8) if (n > 64)
  for (int64_t i = 0; i < n; ++i) {
    const PatchRun& r = runs[static_cast<size_t>(i)];
    std::vector<uint32_t>& found = partners_[static_cast<size_t>(i)];
    found.clear();
    for (int64_t dy = 0; dy <= reach && dy <= y; ++dy) {
      const std::vector<PatchRun>& other = band_[static_cast<size_t>((y - dy) % (reach + 1))];
      const int64_t gap = max_gap_[static_cast<size_t>(dy)];
      // In its own row only the runs to its right: each pair of runs once.
      auto b = dy == 0 ? other.begin() + i + 1
                       : std::lower_bound(other.begin(), other.end(), r, [gap](const PatchRun& o, const PatchRun& v) {
                           return o.cls != v.cls ? o.cls < v.cls : o.x1 < v.x0 - gap;
                         });
      for (; b != other.end() && b->cls == r.cls && b->x0 <= r.x1 + gap; ++b)
        if (b->pid != r.pid) found.push_back(b->pid);
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
  }
  for (size_t i = 0; i < runs.size(); ++i)
    for (uint32_t partner : partners_[i]) join(runs[i].pid, partner, runs[i].cls, y);
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
