#include "cell_neighbourhood.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "serial_thresholds.h"

namespace lsm {

std::vector<int32_t> edge_depth_reach(int depth) {
  if (depth < 1) throw Error(ErrorKind::BadInput, "edge depth must be at least 1 cell");
  std::vector<int32_t> reach;
  const int64_t d2 = int64_t(depth) * depth;
  for (int64_t dy = 0; dy <= depth; ++dy) {
    int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(d2 - dy * dy)));
    while ((r + 1) * (r + 1) + dy * dy <= d2) ++r;  // exact integer square root
    while (r * r + dy * dy > d2) --r;
    reach.push_back(static_cast<int32_t>(r));
  }
  return reach;
}

namespace {

// Each patch's extent in each of its rows (PatchRowExtents), in two passes
// over the runs: the patches' first and last rows lay the entries out, then
// every run widens its row's entry.
PatchRowExtents row_extents(const PatchIdRaster& r) {
  const size_t patches = r.class_of_pid->size() - 1;
  PatchRowExtents e;
  std::vector<uint32_t> last_row(patches, 0);
  e.first_row.assign(patches, UINT32_MAX);
  auto for_each_run = [&](auto&& f) {
    for (int64_t y = 0; y < r.height; ++y) {
      const uint32_t* row = r.pids + y * r.width;
      for (int64_t x0 = 0; x0 < r.width;) {
        int64_t x1 = x0;
        while (x1 + 1 < r.width && row[x1 + 1] == row[x0]) ++x1;
        if (row[x0]) f(row[x0] - 1, y, x0, x1);
        x0 = x1 + 1;
      }
    }
  };
  for_each_run([&](size_t i, int64_t y, int64_t, int64_t) {
    e.first_row[i] = std::min(e.first_row[i], static_cast<uint32_t>(y));
    last_row[i] = static_cast<uint32_t>(y);
  });
  e.first_entry.assign(patches + 1, 0);
  for (size_t i = 0; i < patches; ++i) e.first_entry[i + 1] = e.first_entry[i] + (last_row[i] - e.first_row[i] + 1);
  e.left.assign(e.first_entry[patches], UINT32_MAX);
  e.right.assign(e.first_entry[patches], 0);
  for_each_run([&](size_t i, int64_t y, int64_t x0, int64_t x1) {
    const uint64_t j = e.first_entry[i] + static_cast<uint64_t>(y - e.first_row[i]);
    e.left[j] = std::min(e.left[j], static_cast<uint32_t>(x0));
    e.right[j] = std::max(e.right[j], static_cast<uint32_t>(x1));
  });
  return e;
}

class CpuNeighbourhoodCounter : public NeighbourhoodCounter {
 public:
  std::string name() const override { return "cpu"; }
  // The reference of the GPU's row extents (the shape visitor builds its hulls itself on the CPU).
  bool computes_row_extents(const PatchIdRaster&) const override { return true; }

  void count(const PatchIdRaster& r, int depth, NeighbourhoodCounts& out) override {
    const std::vector<int32_t> reach = edge_depth_reach(depth);
    const int64_t w = r.width, h = r.height;
    const size_t k = r.classes;
    const std::vector<uint32_t>& class_of = *r.class_of_pid;
    out.diagonal_pairs.assign(class_of.size() - 1, 0);
    out.sides_h.assign(k * k, 0);
    out.sides_v.assign(k * k, 0);
    out.core.assign(static_cast<size_t>(w * h), 0);
    out.enn_squared.clear();
    out.gyrate_m.clear();
    out.row_extents = r.with_row_extents ? row_extents(r) : PatchRowExtents{};
#pragma omp parallel if (w * h > kSerialCells)
    {
      std::vector<uint64_t> sides_h(k * k, 0), sides_v(k * k, 0);
#pragma omp for schedule(dynamic, 16)
      for (int64_t y = 0; y < h; ++y) {
        const uint32_t* row = r.pids + y * w;
        const uint32_t* above = y > 0 ? row - w : nullptr;
        uint8_t* core_row = out.core.data() + y * w;
        const bool rows_inside = y - depth >= 0 && y + depth < h;
        // Run by run (cells of one patch): one update of the patch's diagonal count per run.
        for (int64_t x0 = 0; x0 < w;) {
          const uint32_t p = row[x0];
          int64_t x1 = x0;
          while (x1 + 1 < w && row[x1 + 1] == p) ++x1;
          if (!p) {
            x0 = x1 + 1;
            continue;
          }
          const uint32_t ci = class_of[p];
          const uint64_t diagonal = count_run_neighbourhood(row, above, w, x0, x1, p, ci, class_of.data(), k,
                                                            sides_h.data(), sides_v.data());
          if (diagonal) {
#pragma omp atomic
            out.diagonal_pairs[p - 1] += diagonal;
          }
          // Core: every cell of the disc inside the raster and in the patch.
          // Within this row the run itself decides: the cell's reach must stay in [x0, x1].
          if (rows_inside)
            for (int64_t x = x0 + reach[0]; x <= x1 - reach[0]; ++x) {
              bool core = true;
              for (int64_t dy = -depth; core && dy <= depth; ++dy) {
                if (dy == 0) continue;
                const int64_t reach_x = reach[static_cast<size_t>(std::abs(dy))];
                if (x - reach_x < 0 || x + reach_x >= w) {
                  core = false;
                  break;
                }
                const uint32_t* disc_row = r.pids + (y + dy) * w;
                for (int64_t dx = -reach_x; dx <= reach_x; ++dx)
                  if (disc_row[x + dx] != p) {
                    core = false;
                    break;
                  }
              }
              core_row[x] = core;
            }
          x0 = x1 + 1;
        }
      }
#pragma omp critical(lsm_neighbourhood_merge)
      for (size_t i = 0; i < k * k; ++i) {
        out.sides_h[i] += sides_h[i];
        out.sides_v[i] += sides_v[i];
      }
    }
  }
};

}  // namespace

std::unique_ptr<NeighbourhoodCounter> make_cpu_neighbourhood_counter() {
  return std::make_unique<CpuNeighbourhoodCounter>();
}

}  // namespace lsm
