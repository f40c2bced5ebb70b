// CPU reference labeling of a tile: a two-pass scan with a union-find over
// provisional labels (Rosenfeld & Pfaltz 1966; Wu, Otoo & Suzuki 2009),
// adapted to class equality, followed by a pass that relabels the cells in
// raster order of each fragment's first cell and accumulates the PatchStats.
#include <omp.h>

#include <numeric>

#include "error.h"
#include "tile_labeler.h"

namespace lsm {
namespace {

// Union-find whose root is always the smallest label: provisional labels are
// handed out in raster order, so the root of a fragment is its first label.
class MinRootUnionFind {
 public:
  uint32_t add() {
    parent_.push_back(static_cast<uint32_t>(parent_.size()));
    return parent_.back();
  }
  uint32_t find(uint32_t x) {
    uint32_t root = x;
    while (parent_[root] != root) root = parent_[root];
    while (parent_[x] != root) {  // path compression
      uint32_t next = parent_[x];
      parent_[x] = root;
      x = next;
    }
    return root;
  }
  uint32_t unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return a;
    if (a > b) std::swap(a, b);
    parent_[b] = a;
    return a;
  }
  size_t size() const { return parent_.size(); }
  uint32_t parent(uint32_t x) const { return parent_[x]; }
  void reserve(size_t n) { parent_.reserve(n); }

 private:
  std::vector<uint32_t> parent_;
};

void label_one_tile(const TileInput& tile, NeighbourRule rule, bool want_labels, TileLabels& out) {
  const int64_t w = tile.window.width, h = tile.window.height, stride = tile.stride();
  if (static_cast<uint64_t>(w) * static_cast<uint64_t>(h) >= 0xFFFFFFFFull)
    throw Error(ErrorKind::BadInput, "tile too large: at most 2^32-1 cells per tile");
  const int32_t* in = tile.halo_origin();
  auto cls = [&](int64_t x, int64_t y) { return in[(y + 1) * stride + (x + 1)]; };  // interior coords
  const bool eight = rule == NeighbourRule::Eight;

  // Pass 1: provisional labels; neighbours already visited are W, NW, N, NE (8) or W, N (4).
  std::vector<uint32_t> prov(static_cast<size_t>(w * h), 0);
  MinRootUnionFind uf;
  uf.add();  // label 0 = nodata
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const int32_t c = cls(x, y);
      if (c == kNoClass) continue;
      uint32_t label = 0;
      auto link = [&](int64_t nx, int64_t ny) {
        if (nx < 0 || nx >= w || ny < 0) return;
        if (cls(nx, ny) != c) return;
        const uint32_t n = prov[ny * w + nx];
        label = label ? uf.unite(label, n) : n;
      };
      link(x - 1, y);
      link(x, y - 1);
      if (eight) {
        link(x - 1, y - 1);
        link(x + 1, y - 1);
      }
      prov[y * w + x] = label ? label : uf.add();
    }
  }

  // Dense labels in order of roots; roots are each fragment's smallest
  // provisional label, i.e. the one given at its first cell in raster order.
  std::vector<uint32_t> dense(uf.size(), 0);
  uint32_t count = 0;
  for (uint32_t l = 1; l < uf.size(); ++l) {
    const uint32_t root = uf.find(l);
    dense[l] = root == l ? ++count : dense[root];
  }

  // Pass 2: final labels and the fragment counts.
  out.count = count;
  out.fragments.assign(count, PatchStats{});
  std::vector<bool> seen(count, false);
  if (want_labels) out.labels.assign(static_cast<size_t>(w * h), 0);
  else out.labels.clear();
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const uint32_t p = prov[y * w + x];
      if (!p) continue;
      const uint32_t label = dense[p];
      prov[y * w + x] = label;
      PatchStats& f = out.fragments[label - 1];
      const int32_t c = cls(x, y);
      if (!seen[label - 1]) {
        seen[label - 1] = true;
        f.class_code = c;
        f.first_cell = static_cast<uint64_t>(tile.window.y0 + y) * static_cast<uint64_t>(tile.raster_width) +
                       static_cast<uint64_t>(tile.window.x0 + x);
      }
      ++f.cells;
      f.add_cell_position(static_cast<uint64_t>(tile.window.x0 + x), static_cast<uint64_t>(tile.window.y0 + y));
      auto side = [&](int32_t n, uint64_t& perim, uint64_t& class_edges) {
        if (n == c) return;
        ++perim;
        if (n != kNoClass) ++class_edges;
      };
      side(cls(x, y - 1), f.perim_edges_h, f.class_edges_h);
      side(cls(x, y + 1), f.perim_edges_h, f.class_edges_h);
      side(cls(x - 1, y), f.perim_edges_v, f.class_edges_v);
      side(cls(x + 1, y), f.perim_edges_v, f.class_edges_v);
    }
  }
  if (want_labels) out.labels = prov;

  out.top.assign(prov.begin(), prov.begin() + w);
  out.bottom.assign(prov.end() - w, prov.end());
  out.left.resize(static_cast<size_t>(h));
  out.right.resize(static_cast<size_t>(h));
  for (int64_t y = 0; y < h; ++y) {
    out.left[y] = prov[y * w];
    out.right[y] = prov[y * w + w - 1];
  }
}

class CpuTileLabeler final : public TileLabeler {
 public:
  std::string name() const override { return "cpu"; }
  void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                   std::vector<TileLabels>& out) override {
    out.resize(tiles.size());
    std::string failure;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t i = 0; i < static_cast<int64_t>(tiles.size()); ++i) {
      try {
        label_one_tile(tiles[i], rule, want_labels, out[i]);
      } catch (const std::exception& e) {
#pragma omp critical(lsm_cpu_labeler_failure)
        failure = e.what();
      }
    }
    if (!failure.empty()) throw Error(ErrorKind::BadInput, failure);
  }
};

}  // namespace

std::unique_ptr<TileLabeler> make_cpu_labeler() { return std::make_unique<CpuTileLabeler>(); }

}  // namespace lsm
