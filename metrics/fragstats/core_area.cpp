#include "core_area.h"

#include <algorithm>
#include <cmath>

#include "cell_neighbourhood.h"
#include "error.h"

namespace lsm {

CoreAreaTracker::CoreAreaTracker(int64_t width, int64_t height, int depth, RegionFn on_region,
                                 const CellGeometry* geometry)
    : width_(width), height_(height), depth_(depth), on_region_(std::move(on_region)), geometry_(geometry) {
  reach_ = edge_depth_reach(depth);  // throws for depth < 1
  const size_t ring = static_cast<size_t>(2 * depth + 1);
  pid_rows_.assign(ring, std::vector<uint32_t>(static_cast<size_t>(width)));
  left_.assign(ring, std::vector<int32_t>(static_cast<size_t>(width)));
  right_.assign(ring, std::vector<int32_t>(static_cast<size_t>(width)));
  core_.resize(static_cast<size_t>(width));
}

void CoreAreaTracker::row(int64_t y, const uint32_t* pids) {
  const size_t slot = static_cast<size_t>(y % static_cast<int64_t>(pid_rows_.size()));
  std::vector<uint32_t>& p = pid_rows_[slot];
  std::copy(pids, pids + width_, p.begin());
  rows_seen_ = y + 1;
  if (depth_ == 1) {  // the 4-neighbour test needs no run extents
    if (y >= 1) process_centre(y - 1);
    return;
  }
  std::vector<int32_t>& l = left_[slot];
  std::vector<int32_t>& r = right_[slot];
  for (int64_t x = 0; x < width_; ++x) l[x] = (x > 0 && p[x - 1] == p[x]) ? l[x - 1] + 1 : 0;
  for (int64_t x = width_ - 1; x >= 0; --x) r[x] = (x + 1 < width_ && p[x + 1] == p[x]) ? r[x + 1] + 1 : 0;
  if (y - depth_ >= 0) process_centre(y - depth_);
}

void CoreAreaTracker::finish() {
  for (int64_t c = std::max<int64_t>(0, rows_seen_ - depth_); c < rows_seen_; ++c) process_centre(c);
  if (on_core_row_) return;
  // Close every region still open.
  std::vector<uint8_t> none(static_cast<size_t>(width_), 0);
  std::vector<uint32_t> zeros(static_cast<size_t>(width_), 0);
  label_core_row(none.data(), zeros.data(), 0);
}

void CoreAreaTracker::process_centre(int64_t c) {
  const int64_t ring = static_cast<int64_t>(pid_rows_.size());
  const std::vector<uint32_t>& centre = pid_rows_[c % ring];
  std::fill(core_.begin(), core_.end(), 0);
  if (depth_ == 1 && c >= 1 && c + 1 < height_) {
    // Depth 1: all 4 edge neighbours in the patch (and inside the raster).
    const uint32_t* up = pid_rows_[static_cast<size_t>((c - 1) % ring)].data();
    const uint32_t* down = pid_rows_[static_cast<size_t>((c + 1) % ring)].data();
    const uint32_t* mid = centre.data();
    for (int64_t x = 1; x + 1 < width_; ++x) {  // the raster's first and last columns stay 0
      const uint32_t pid = mid[x];
      core_[static_cast<size_t>(x)] = pid && up[x] == pid && down[x] == pid && mid[x - 1] == pid && mid[x + 1] == pid;
    }
  } else if (depth_ > 1 && c - depth_ >= 0 && c + depth_ < height_) {  // rows within depth of the raster's edge have no core
    // The rows of the disc, from its top: patch IDs, run extents and the disc's half-width.
    std::vector<DiscRow>& disc = disc_;
    disc.clear();
    for (int64_t dy = -depth_; dy <= depth_; ++dy) {
      const size_t s = static_cast<size_t>((c + dy) % ring);
      disc.push_back({pid_rows_[s].data(), left_[s].data(), right_[s].data(), reach_[static_cast<size_t>(std::abs(dy))]});
    }
    for (int64_t x = 0; x < width_; ++x) {
      const uint32_t pid = centre[x];
      if (!pid) continue;
      bool core = true;
      for (const DiscRow& d : disc)
        if (d.pid[x] != pid || d.left[x] < d.reach || d.right[x] < d.reach) {
          core = false;
          break;
        }
      core_[x] = core;
    }
  }
  if (on_core_row_) on_core_row_(c, core_.data(), centre.data());
  else label_core_row(core_.data(), centre.data(), geometry_ ? geometry_->cell_area_m2(c) : 0);
}

uint32_t CoreAreaTracker::find(uint32_t n) {
  while (nodes_[n].parent != n) n = nodes_[n].parent = nodes_[nodes_[n].parent].parent;
  return n;
}

void CoreAreaTracker::core_row(int64_t y, const uint32_t* pids, const uint8_t* core) {
  if (on_core_row_) return on_core_row_(y, core, pids);
  label_core_row(core, pids, geometry_ ? geometry_->cell_area_m2(y) : 0);
}

void CoreAreaTracker::label_core_row(const uint8_t* core, const uint32_t* pids, double cell_area_m2) {
  runs_.clear();
  for (int64_t x = 0; x < width_;) {
    if (!core[x]) { ++x; continue; }
    int64_t e = x;
    while (e + 1 < width_ && core[e + 1] && pids[e + 1] == pids[x]) ++e;
    const uint32_t node = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(Node{node, pids[x], static_cast<uint64_t>(e - x + 1), static_cast<double>(e - x + 1) * cell_area_m2});
    runs_.push_back(Run{x, e, pids[x], node});
    x = e + 1;
  }
  // Join runs that touch a run of the previous row (8 neighbours) of the same patch.
  size_t j = 0;
  for (Run& r : runs_) {
    while (j < prev_runs_.size() && prev_runs_[j].x1 < r.x0 - 1) ++j;
    for (size_t k = j; k < prev_runs_.size() && prev_runs_[k].x0 <= r.x1 + 1; ++k) {
      if (prev_runs_[k].pid != r.pid) continue;
      const uint32_t a = find(prev_runs_[k].node), b = find(r.node);
      if (a == b) continue;
      nodes_[b].parent = a;
      nodes_[a].cells += nodes_[b].cells;
      nodes_[a].area_m2 += nodes_[b].area_m2;
    }
  }
  // The regions this row's runs reach stay open, renumbered compactly in order
  // of first appearance (memory stays proportional to one row); the regions
  // of the previous row that no run reaches are complete.
  constexpr uint32_t kClosed = 0xFFFFFFFFu;
  remap_.assign(nodes_.size(), kClosed);
  std::vector<Node>& next = next_nodes_;
  next.clear();
  for (Run& r : runs_) {
    const uint32_t root = find(r.node);
    if (remap_[root] == kClosed) {
      remap_[root] = static_cast<uint32_t>(next.size());
      next.push_back(Node{static_cast<uint32_t>(next.size()), nodes_[root].pid, nodes_[root].cells, nodes_[root].area_m2});
    }
    r.node = remap_[root];
  }
  for (const Run& r : prev_runs_) {
    const uint32_t root = find(r.node);
    if (remap_[root] != kClosed || nodes_[root].cells == 0) continue;
    on_region_(nodes_[root].pid, nodes_[root].cells, nodes_[root].area_m2);
    nodes_[root].cells = 0;  // reported
  }
  std::swap(nodes_, next);
  std::swap(prev_runs_, runs_);
}

}  // namespace lsm
