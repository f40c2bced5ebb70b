#include "proximity_sweep.h"

#include <algorithm>

namespace lsm {

ProximitySweep::ProximitySweep(const PagedArray<uint32_t>& class_of_pid, const PagedArray<uint32_t>& last_row_of_pid,
                               size_t patches, int64_t width, double cell_width, double cell_height, double radius_m,
                               const PagedPolicy& paged)
    : class_of_pid_(class_of_pid),
      last_row_of_pid_(last_row_of_pid),
      width_(width),
      cell_width_(cell_width),
      cell_height_(cell_height),
      max_gap_(gaps_within(radius_m, cell_width, cell_height, "the search radius")),
      band_(2 * max_gap_.size() - 1),
      prox_(patches, paged) {}

void ProximitySweep::row(int64_t y, const uint32_t* pids) {
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
  // The ring's slot of row y held row y - (2 reach + 1), processed by now.
  patch_runs(pids, width_, class_of_pid_, band_[static_cast<size_t>(y % static_cast<int64_t>(band_.size()))]);
  last_row_ = y;
  if (y >= reach) process(y - reach);
}

void ProximitySweep::finish() {
  for (int64_t c = processed_ + 1; c <= last_row_; ++c) process(c);
}

void ProximitySweep::process(int64_t c) {
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
  const std::vector<PatchRun>& runs = runs_of(c);
  for (const PatchRun& s : runs) {
    // What the runs of other patches of s's class within reach cover of s.
    covers_.clear();
    for (int64_t y = std::max<int64_t>(0, c - reach); y <= std::min(last_row_, c + reach); ++y) {
      const int64_t dy = y > c ? y - c : c - y, gap = max_gap_[static_cast<size_t>(dy)];
      const std::vector<PatchRun>& other = runs_of(y);
      auto r = std::lower_bound(other.begin(), other.end(), s, [gap](const PatchRun& o, const PatchRun& v) {
        return o.cls != v.cls ? o.cls < v.cls : o.x1 < v.x0 - gap;
      });
      for (; r != other.end() && r->cls == s.cls && r->x0 <= s.x1 + gap; ++r) {
        if (r->pid == s.pid) continue;
        // Columns apart of the nearest cells of the two runs (0 when they overlap).
        const int64_t dx = std::max<int64_t>({0, int64_t(r->x0) - s.x1, int64_t(s.x0) - r->x1});
        const double x_m = static_cast<double>(dx) * cell_width_, y_m = static_cast<double>(dy) * cell_height_;
        covers_.push_back({r->pid, static_cast<int32_t>(std::max<int64_t>(s.x0, r->x0 - gap)),
                           static_cast<int32_t>(std::min<int64_t>(s.x1, r->x1 + gap)), x_m * x_m + y_m * y_m});
      }
    }
    // Per focal patch: the union of its covers (cells of s in its
    // neighbourhood) and the nearest distance.
    std::sort(covers_.begin(), covers_.end(),
              [](const Cover& a, const Cover& b) { return a.focal != b.focal ? a.focal < b.focal : a.x0 < b.x0; });
    for (size_t i = 0; i < covers_.size();) {
      const uint32_t focal = covers_[i].focal;
      uint64_t cells = 0;
      double h2 = covers_[i].h2;
      int64_t end = -1;  // the last column counted
      for (; i < covers_.size() && covers_[i].focal == focal; ++i) {
        const Cover& v = covers_[i];
        const int64_t from = std::max<int64_t>(v.x0, end + 1);
        if (v.x1 >= from) cells += static_cast<uint64_t>(v.x1 - from + 1);
        end = std::max<int64_t>(end, v.x1);
        h2 = std::min(h2, v.h2);
      }
      Pair& p = pairs_[{s.pid, focal}];
      if (p.cells == 0) p.h2 = h2;
      p.cells += cells;
      p.h2 = std::min(p.h2, h2);
    }
  }
  // Patches whose last row this is: their pairs are complete (a patch may
  // have several runs in it: its pairs are taken once).
  for (const PatchRun& s : runs) {
    if (last_row_of_pid_[s.pid] != static_cast<uint64_t>(c)) continue;
    const double cell_m2 = cell_width_ * cell_height_;
    auto it = pairs_.lower_bound({s.pid, 0});
    while (it != pairs_.end() && it->first.first == s.pid) {
      prox_[it->first.second - 1] += static_cast<double>(it->second.cells) * cell_m2 / it->second.h2;
      it = pairs_.erase(it);
    }
  }
  processed_ = c;
}

}  // namespace lsm
