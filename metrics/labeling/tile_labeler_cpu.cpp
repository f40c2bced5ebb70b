// CPU reference labeling of a tile, run by run: each row is cut into runs
// (maximal horizontal stretches of one class), a run joins the runs of its
// class that touch it in the row above through a union-find over run indices
// (run-based labeling: Ronse & Devijver 1984; He, Chao & Suzuki 2008), and a
// last pass over the runs numbers the fragments in raster order of their
// first cell and adds each run's counts to its fragment's PatchStats.
// Land cover has runs of several cells, so this touches far fewer labels
// than a cell-by-cell scan; a noise raster degrades to one run per cell.
#include <omp.h>

#include <numeric>

#include "error.h"
#include "tile_labeler.h"

namespace lsm {
namespace {

// One run of a tile row with its cell sides that are perimeter / class edge.
struct Run {
  int32_t begin = 0, end = 0;  // tile columns [begin, end)
  int32_t class_code = 0;
  uint32_t perim_h = 0, class_h = 0;  // top and bottom sides of its cells
  uint32_t perim_v = 0, class_v = 0;  // the left side of its first cell, the right side of its last
};

// Union-find whose root is always the smallest index: runs are numbered in
// raster order, so the root of a fragment is its first run.
uint32_t find_root(std::vector<uint32_t>& parent, uint32_t x) {
  uint32_t root = x;
  while (parent[root] != root) root = parent[root];
  while (parent[x] != root) {  // path compression
    const uint32_t next = parent[x];
    parent[x] = root;
    x = next;
  }
  return root;
}

// Scratch reused across the tiles a thread labels: tiles of a million cells
// would otherwise pay for fresh pages on every call.
struct RunScratch {
  std::vector<Run> runs;              // every class run of the tile, in raster order
  std::vector<uint32_t> row_begin;    // runs of row y: [row_begin[y], row_begin[y + 1])
  std::vector<uint32_t> parent;       // union-find over run indices
  std::vector<uint32_t> label;        // local label of every run
};

// Cuts row y into its class runs (nodata cells are skipped) and counts their
// perimeter sides against the halo.
void cut_row(const int32_t* row, const int32_t* above, const int32_t* below, int64_t w, std::vector<Run>& runs) {
  int64_t x = 0;
  while (x < w) {
    const int32_t c = row[x];
    int64_t end = x + 1;
    while (end < w && row[end] == c) ++end;
    if (c != kNoClass) {
      Run r;
      r.begin = static_cast<int32_t>(x);
      r.end = static_cast<int32_t>(end);
      r.class_code = c;
      uint32_t perim = 0, cls = 0;
      for (int64_t i = x; i < end; ++i) {  // branch-free: the compiler vectorises it
        const int32_t u = above[i], d = below[i];
        perim += (u != c) + (d != c);
        cls += (u != c && u != kNoClass) + (d != c && d != kNoClass);
      }
      r.perim_h = perim;
      r.class_h = cls;
      // Inside the tile the run is maximal; at the tile's sides the halo may
      // hold the same class (another tile's cells of the same patch).
      for (const int32_t n : {row[x - 1], row[end]}) {
        if (n == c) continue;
        ++r.perim_v;
        if (n != kNoClass) ++r.class_v;
      }
      runs.push_back(r);
    }
    x = end;
  }
}

// Joins the runs of row y ([cur, cur_end)) to the touching runs of its class
// in row y - 1 ([prev, prev_end)). Runs touch when their columns overlap, or
// (8-cell rule) when they meet at a corner.
void join_rows(const std::vector<Run>& runs, uint32_t prev, uint32_t prev_end, uint32_t cur, uint32_t cur_end,
               bool eight, std::vector<uint32_t>& parent) {
  const int32_t reach = eight ? 1 : 0;
  uint32_t j = prev;
  for (uint32_t i = cur; i < cur_end; ++i) {
    const Run& r = runs[i];
    while (j < prev_end && runs[j].end + reach <= r.begin) ++j;
    // Run i is a root until its first join; `root` stays the root of its
    // set, so each join finds only the other run's root.
    uint32_t root = i;
    for (uint32_t k = j; k < prev_end && runs[k].begin < r.end + reach; ++k) {
      if (runs[k].class_code != r.class_code) continue;
      const uint32_t other = find_root(parent, k);
      if (other == root) continue;
      if (other < root) {  // the smaller index stays the root
        parent[root] = other;
        root = other;
      } else {
        parent[other] = root;
      }
    }
  }
}

void label_one_tile(const TileInput& tile, NeighbourRule rule, bool want_labels, TileLabels& out) {
  const int64_t w = tile.window.width, h = tile.window.height, stride = tile.stride();
  if (static_cast<uint64_t>(w) * static_cast<uint64_t>(h) >= 0xFFFFFFFFull)
    throw Error(ErrorKind::BadInput, "tile too large: at most 2^32-1 cells per tile");
  const int32_t* in = tile.halo_origin();
  auto row_ptr = [&](int64_t y) { return in + (y + 1) * stride + 1; };  // interior row y, column 0
  const bool eight = rule == NeighbourRule::Eight;
  thread_local RunScratch s;

  s.runs.clear();
  s.row_begin.assign(static_cast<size_t>(h + 1), 0);
  for (int64_t y = 0; y < h; ++y) {
    s.row_begin[y] = static_cast<uint32_t>(s.runs.size());
    cut_row(row_ptr(y), row_ptr(y - 1), row_ptr(y + 1), w, s.runs);
  }
  s.row_begin[h] = static_cast<uint32_t>(s.runs.size());
  const uint32_t n_runs = s.row_begin[h];
  s.parent.resize(n_runs);
  std::iota(s.parent.begin(), s.parent.end(), 0u);
  for (int64_t y = 1; y < h; ++y)
    join_rows(s.runs, s.row_begin[y - 1], s.row_begin[y], s.row_begin[y], s.row_begin[y + 1], eight, s.parent);

  // Labels in order of roots: a root is its fragment's first run in raster order.
  s.label.resize(n_runs);
  uint32_t count = 0;
  for (uint32_t i = 0; i < n_runs; ++i) {
    const uint32_t root = find_root(s.parent, i);
    s.label[i] = root == i ? ++count : s.label[root];
  }
  out.count = count;
  out.fragments.assign(count, PatchStats{});
  const uint64_t x0 = static_cast<uint64_t>(tile.window.x0);
  for (int64_t y = 0; y < h; ++y) {
    const uint64_t row = static_cast<uint64_t>(tile.window.y0 + y);
    for (uint32_t i = s.row_begin[y]; i < s.row_begin[y + 1]; ++i) {
      const Run& r = s.runs[i];
      PatchStats& f = out.fragments[s.label[i] - 1];
      const uint64_t len = static_cast<uint64_t>(r.end - r.begin), col = x0 + static_cast<uint64_t>(r.begin);
      if (f.cells == 0) {  // the fragment's first run
        f.class_code = r.class_code;
        f.first_cell = row * static_cast<uint64_t>(tile.raster_width) + col;
      }
      f.cells += len;
      f.perim_edges_h += r.perim_h;
      f.class_edges_h += r.class_h;
      f.perim_edges_v += r.perim_v;
      f.class_edges_v += r.class_v;
      f.sum_col += len * col + len * (len - 1) / 2;
      f.sum_row += len * row;
      f.col_min = std::min(f.col_min, static_cast<uint32_t>(col));
      f.col_max = std::max(f.col_max, static_cast<uint32_t>(col + len - 1));
      f.row_min = std::min(f.row_min, static_cast<uint32_t>(row));
      f.row_max = std::max(f.row_max, static_cast<uint32_t>(row));
    }
  }

  // Local labels of a row: 0 where no run covers a cell (nodata).
  auto fill_row = [&](int64_t y, uint32_t* dst) {
    std::fill(dst, dst + w, 0u);
    for (uint32_t i = s.row_begin[y]; i < s.row_begin[y + 1]; ++i)
      std::fill(dst + s.runs[i].begin, dst + s.runs[i].end, s.label[i]);
  };
  if (want_labels) {
    out.labels.resize(static_cast<size_t>(w * h));
    for (int64_t y = 0; y < h; ++y) fill_row(y, out.labels.data() + y * w);
  } else {
    out.labels.clear();
  }
  out.top.resize(static_cast<size_t>(w));
  out.bottom.resize(static_cast<size_t>(w));
  fill_row(0, out.top.data());
  fill_row(h - 1, out.bottom.data());
  out.left.assign(static_cast<size_t>(h), 0);
  out.right.assign(static_cast<size_t>(h), 0);
  for (int64_t y = 0; y < h; ++y) {
    const uint32_t b = s.row_begin[y], e = s.row_begin[y + 1];
    if (b == e) continue;
    if (s.runs[b].begin == 0) out.left[y] = s.label[b];
    if (s.runs[e - 1].end == w) out.right[y] = s.label[e - 1];
  }
}

class CpuTileLabeler final : public TileLabeler {
 public:
  std::string name() const override { return "cpu"; }
  void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                   std::vector<TileLabels>& out) override {
    out.resize(tiles.size());
    std::string failure;
#pragma omp parallel for schedule(dynamic, 1) if (tiles.size() > 1)
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
