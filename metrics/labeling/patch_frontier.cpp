#include "patch_frontier.h"

#include <numeric>

#include "error.h"

namespace lsm {

PatchFrontier::PatchFrontier(int64_t raster_width, NeighbourRule rule, bool track_fragments,
                             const PagedPolicy& paged)
    : width_(raster_width), rule_(rule), track_(track_fragments), paged_(paged), fragment_parent_(paged) {}

uint32_t PatchFrontier::find(uint32_t x) {
  uint32_t root = x;
  while (parent_[root] != root) root = parent_[root];
  while (parent_[x] != root) {
    const uint32_t next = parent_[x];
    parent_[x] = root;
    x = next;
  }
  return root;
}

void PatchFrontier::unite(uint32_t a, uint32_t b) {
  a = find(a);
  b = find(b);
  if (a == b) return;
  if (a > b) std::swap(a, b);
  parent_[b] = a;
}

void PatchFrontier::add_tile_row(const std::vector<Window>& windows, const std::vector<TileLabels>& tiles,
                                 bool last) {
  const size_t n_open = open_.size();
  std::vector<size_t> offset(tiles.size());
  size_t n = n_open;
  for (size_t t = 0; t < tiles.size(); ++t) {
    offset[t] = n;
    n += tiles[t].count;
  }
  if (n >= kNone) throw Error(ErrorKind::BadInput, "too many patch fragments in one row of tiles; use smaller tiles");

  std::vector<PatchStats> stats(n);
  for (size_t i = 0; i < n_open; ++i) stats[i] = open_[i].stats;
  for (size_t t = 0; t < tiles.size(); ++t)
    std::copy(tiles[t].fragments.begin(), tiles[t].fragments.end(), stats.begin() + offset[t]);
  parent_.resize(n);
  std::iota(parent_.begin(), parent_.end(), 0u);
  auto node = [&](size_t t, uint32_t label) { return static_cast<uint32_t>(offset[t] + label - 1); };
  const int64_t reach = rule_ == NeighbourRule::Eight ? 1 : 0;  // diagonal reach across a seam

  // Seam with the frontier: the tile row's top row against the last row above.
  if (!frontier_.empty()) {
    for (size_t t = 0; t < tiles.size(); ++t) {
      for (int64_t x = 0; x < windows[t].width; ++x) {
        const uint32_t a = tiles[t].top[x];
        if (!a) continue;
        const uint32_t fa = node(t, a);
        const int64_t col = windows[t].x0 + x;
        for (int64_t nx = std::max<int64_t>(0, col - reach); nx <= std::min<int64_t>(width_ - 1, col + reach); ++nx) {
          const uint32_t o = frontier_[nx];
          if (o != kNone && stats[o].class_code == stats[fa].class_code) unite(fa, o);
        }
      }
    }
  }
  // Vertical seams between neighbouring tiles of the row.
  for (size_t t = 0; t + 1 < tiles.size(); ++t) {
    const int64_t h = windows[t].height;
    for (int64_t y = 0; y < h; ++y) {
      const uint32_t a = tiles[t].right[y];
      if (!a) continue;
      const uint32_t fa = node(t, a);
      for (int64_t ny = std::max<int64_t>(0, y - reach); ny <= std::min<int64_t>(h - 1, y + reach); ++ny) {
        const uint32_t b = tiles[t + 1].left[ny];
        if (b && stats[node(t + 1, b)].class_code == stats[fa].class_code) unite(fa, node(t + 1, b));
      }
    }
  }

  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r = find(i);
    if (r != i) stats[r].merge(stats[i]);
  }

  // Fragment ids: open patches keep their representative, new fragments get fresh ids.
  auto fragment_of = [&](uint32_t i) {
    return i < n_open ? open_[i].node : next_fragment_ + (i - n_open);
  };
  for (size_t t = 0; t < tiles.size(); ++t) tile_base_.push_back(next_fragment_ + (offset[t] - n_open));
  if (track_) {
    fragment_parent_.resize(next_fragment_ + (n - n_open));
    for (uint32_t i = 0; i < n; ++i) fragment_parent_[fragment_of(i)] = fragment_of(find(i));
  }

  // Patches with a cell on the tile row's bottom row stay open; the rest close.
  std::vector<uint32_t> open_index(n, kNone);
  std::vector<OpenPatch> still_open;
  std::vector<uint32_t> frontier;
  if (!last) {
    frontier.assign(static_cast<size_t>(width_), kNone);
    for (size_t t = 0; t < tiles.size(); ++t) {
      for (int64_t x = 0; x < windows[t].width; ++x) {
        const uint32_t a = tiles[t].bottom[x];
        if (!a) continue;
        const uint32_t r = find(node(t, a));
        if (open_index[r] == kNone) {
          open_index[r] = static_cast<uint32_t>(still_open.size());
          still_open.push_back({stats[r], fragment_of(r)});
        }
        frontier[windows[t].x0 + x] = open_index[r];
      }
    }
  }
  closed_.reserve(closed_.size() + n);
  for (uint32_t i = 0; i < n; ++i)
    if (parent_[i] == i && open_index[i] == kNone) closed_.push_back({stats[i], fragment_of(i)});

  next_fragment_ += n - n_open;
  open_ = std::move(still_open);
  frontier_ = std::move(frontier);
}

uint64_t PatchFrontier::find_fragment(uint64_t x) {
  uint64_t root = x;
  while (fragment_parent_[root] != root) root = fragment_parent_[root];
  while (fragment_parent_[x] != root) {
    const uint64_t next = fragment_parent_[x];
    fragment_parent_[x] = root;
    x = next;
  }
  return root;
}

PagedArray<uint32_t> PatchFrontier::fragment_pids(const PagedVector<uint64_t>& nodes,
                                                  const PagedArray<uint32_t>& pids_of_nodes) {
  if (!track_) throw Error(ErrorKind::Internal, "fragment_pids needs a frontier that tracks fragments");
  if (!open_.empty()) throw Error(ErrorKind::Internal, "fragment_pids called before the last row");
  PagedArray<uint32_t> pids(fragment_parent_.size(), paged_);
  for (size_t i = 0; i < nodes.size(); ++i) {
    pids[nodes[i]] = pids_of_nodes[i];
    if ((i & 0xFFFFF) == 0xFFFFF) release_paged_memory();
  }
  for (uint64_t f = 0; f < pids.size(); ++f) {
    pids[f] = pids[find_fragment(f)];
    if ((f & 0xFFFFF) == 0xFFFFF) release_paged_memory();
  }
  fragment_parent_.clear();
  return pids;
}

}  // namespace lsm
