#include "proximity_sweep.h"

#include <algorithm>

namespace lsm {

ProximitySweep::ProximitySweep(const PagedArray<uint32_t>& class_of_pid, const PagedArray<uint32_t>& last_row_of_pid,
                               size_t patches, size_t classes, int64_t width, double cell_width, double cell_height,
                               double radius_m, const PagedPolicy& paged, const std::vector<double>* similarity)
    : class_of_pid_(class_of_pid),
      last_row_of_pid_(last_row_of_pid),
      width_(width),
      cell_width_(cell_width),
      cell_height_(cell_height),
      max_gap_(gaps_within(radius_m, cell_width, cell_height, "the search radius")),
      band_(2 * max_gap_.size() - 1),
      shards_(kShards),
      prox_(patches, paged) {
  // Which focal classes each neighbour class is sought for: its own (PROX),
  // and with similarity weights every class that finds it similar (SIMI).
  focal_classes_.resize(classes);
  for (size_t k = 0; k < classes; ++k)
    for (size_t i = 0; i < classes; ++i)
      if (i == k || (similarity && (*similarity)[i * classes + k] > 0)) focal_classes_[k].push_back(static_cast<uint32_t>(i));
  if (similarity) {
    similarity_ = *similarity;
    classes_ = classes;
    simi_.assign(patches, paged);
  }
}

void ProximitySweep::row(int64_t y, const uint32_t* pids) {
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
  // The ring's slot of row y held row y - (2 reach + 1), processed by now.
  patch_runs(pids, width_, class_of_pid_, band_[static_cast<size_t>(y % static_cast<int64_t>(band_.size()))]);
  last_row_ = y;
  if (y >= reach) process(y - reach);
}

void ProximitySweep::finish() {
  for (int64_t c = processed_ + 1; c <= last_row_; ++c) process(c);
  complete_pairs(INT64_MAX);  // those whose reach runs past the last row
}

void ProximitySweep::covers_of(const PatchRun& s, int64_t c, std::vector<Cover>& covers,
                               std::vector<Found>& found) const {
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
  // What the runs of other patches of the classes that seek s's class
  // within reach cover of s.
  covers.clear();
  for (int64_t y = std::max<int64_t>(0, c - reach); y <= std::min(last_row_, c + reach); ++y) {
    const int64_t dy = y > c ? y - c : c - y, gap = max_gap_[static_cast<size_t>(dy)];
    const std::vector<PatchRun>& other = runs_of(y);
    for (const uint32_t focal_class : focal_classes_[s.cls]) {
      const PatchRun probe{focal_class, s.pid, s.x0, s.x1};
      auto r = std::lower_bound(other.begin(), other.end(), probe, [gap](const PatchRun& o, const PatchRun& v) {
        return o.cls != v.cls ? o.cls < v.cls : o.x1 < v.x0 - gap;
      });
      for (; r != other.end() && r->cls == focal_class && r->x0 <= s.x1 + gap; ++r) {
        if (r->pid == s.pid) continue;
        // Columns apart of the nearest cells of the two runs (0 when they overlap).
        const int64_t dx = std::max<int64_t>({0, int64_t(r->x0) - s.x1, int64_t(s.x0) - r->x1});
        const double x_m = static_cast<double>(dx) * cell_width_, y_m = static_cast<double>(dy) * cell_height_;
        covers.push_back({r->pid, static_cast<int32_t>(std::max<int64_t>(s.x0, r->x0 - gap)),
                          static_cast<int32_t>(std::min<int64_t>(s.x1, r->x1 + gap)), x_m * x_m + y_m * y_m});
      }
    }
  }
  // Per focal patch: the union of its covers (cells of s in its
  // neighbourhood) and the nearest distance.
  std::sort(covers.begin(), covers.end(),
            [](const Cover& a, const Cover& b) { return a.focal != b.focal ? a.focal < b.focal : a.x0 < b.x0; });
  found.clear();
  for (size_t i = 0; i < covers.size();) {
    Found f{covers[i].focal, 0, covers[i].h2};
    int64_t end = -1;  // the last column counted
    for (; i < covers.size() && covers[i].focal == f.focal; ++i) {
      const Cover& v = covers[i];
      const int64_t from = std::max<int64_t>(v.x0, end + 1);
      if (v.x1 >= from) f.cells += static_cast<uint64_t>(v.x1 - from + 1);
      end = std::max<int64_t>(end, v.x1);
      f.h2 = std::min(f.h2, v.h2);
    }
    found.push_back(f);
  }
}

void ProximitySweep::process(int64_t c) {
  const std::vector<PatchRun>& runs = runs_of(c);
  if (found_.size() < runs.size()) found_.resize(runs.size());
  const int64_t n = static_cast<int64_t>(runs.size());
#pragma omp parallel if (n > 64)
  {
    std::vector<Cover> covers;  // one per thread, reused run after run
#pragma omp for schedule(dynamic, 8)
    for (int64_t i = 0; i < n; ++i) covers_of(runs[static_cast<size_t>(i)], c, covers, found_[static_cast<size_t>(i)]);
  }
  // Each shard's updates on one thread: a pair's state (a sum of cells, a
  // minimum distance) does not depend on the order of its updates.
  const int64_t reach = static_cast<int64_t>(max_gap_.size()) - 1;
#pragma omp parallel for schedule(dynamic, 1) if (n > 64)
  for (int64_t k = 0; k < static_cast<int64_t>(kShards); ++k) {
    Shard& shard = shards_[static_cast<size_t>(k)];
    for (size_t i = 0; i < runs.size(); ++i) {
      const uint32_t neighbour = runs[i].pid;
      if (neighbour % kShards != static_cast<size_t>(k)) continue;
      for (const Found& f : found_[i]) {
        const uint64_t key = (uint64_t(neighbour) << 32) | f.focal;
        auto [it, fresh] = shard.pairs.try_emplace(key, Pair{0, f.h2});
        it->second.cells += f.cells;
        it->second.h2 = std::min(it->second.h2, f.h2);
        if (fresh)
          shard.complete[std::min<int64_t>(last_row_of_pid_[neighbour], last_row_of_pid_[f.focal]) + reach].push_back(key);
      }
    }
  }
  complete_pairs(c);
  processed_ = c;
}

// Adds the pairs complete once row `c` is processed to their focal patches'
// indices, in ascending (neighbour, focal).
void ProximitySweep::complete_pairs(int64_t c) {
  done_.clear();
  for (Shard& shard : shards_)
    while (!shard.complete.empty() && shard.complete.begin()->first <= c) {
      done_.insert(done_.end(), shard.complete.begin()->second.begin(), shard.complete.begin()->second.end());
      shard.complete.erase(shard.complete.begin());
    }
  std::sort(done_.begin(), done_.end());
  const double cell_m2 = cell_width_ * cell_height_;
  for (uint64_t key : done_) {
    Shard& shard = shards_[(key >> 32) % kShards];
    const auto pair = shard.pairs.find(key);
    const uint32_t neighbour = static_cast<uint32_t>(key >> 32), focal = static_cast<uint32_t>(key & 0xffffffffu);
    const double near = static_cast<double>(pair->second.cells) * cell_m2 / pair->second.h2;
    const uint32_t i = class_of_pid_[focal], k = class_of_pid_[neighbour];
    if (i == k) prox_[focal - 1] += near;
    if (!similarity_.empty()) simi_[focal - 1] += similarity_[i * classes_ + k] * near;
    shard.pairs.erase(pair);
  }
}

}  // namespace lsm
