#include "patch_row_metrics.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core_area.h"
#include "enclosing_circle.h"
#include "nearest_neighbour.h"

namespace lsm {
namespace {

class RowMetricsVisitor : public PatchRowVisitor {
 public:
  RowMetricsVisitor(const PatchTable& table, const RowMetricOptions& options, PatchRowResults& out)
      : table_(table),
        width_(table.raster.width),
        out_(out),
        core_(table.raster.width, table.raster.height, options.edge_depth,
              [this](uint32_t pid, uint64_t cells) {
                out_.core_areas.emplace_back(pid, cells);
                out_.patches[pid - 1].core_cells += cells;
                ++out_.patches[pid - 1].core_areas;
              }) {
    const size_t n = table.patches.size();
    out_.patches.assign(n, PatchShape{});
    // Class index of every patch, and the adjacency matrix's classes.
    std::vector<int32_t>& codes = out_.adjacency.class_codes;
    for (const PatchStats& p : table.patches) codes.push_back(p.class_code);
    std::sort(codes.begin(), codes.end());
    codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
    out_.adjacency.sides_h.assign(codes.size() * codes.size(), 0);
    out_.adjacency.sides_v.assign(codes.size() * codes.size(), 0);
    class_of_pid_.assign(n + 1, 0);
    std::vector<uint64_t> per_class(codes.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t k = static_cast<uint32_t>(
          std::lower_bound(codes.begin(), codes.end(), table.patches[i].class_code) - codes.begin());
      class_of_pid_[i + 1] = k;
      ++per_class[k];
    }
    if (options.want_enn) enn_.emplace(class_of_pid_, per_class);
    centroid_x_.resize(n);
    centroid_y_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const PatchStats& p = table.patches[i];
      centroid_x_[i] = static_cast<double>(p.sum_col) / static_cast<double>(p.cells);
      centroid_y_[i] = static_cast<double>(p.sum_row) / static_cast<double>(p.cells);
    }
    hulls_.resize(n);
    last_row_.assign(n, -1);
    row_first_.assign(n, 0);
    row_last_.assign(n, 0);
    prev_.assign(static_cast<size_t>(width_), 0);
    prev2_.assign(static_cast<size_t>(width_), 0);
  }

  void row(int64_t y, const uint32_t* pids) override {
    const RasterInfo& r = table_.raster;
    const size_t k = out_.adjacency.class_codes.size();
    for (int64_t x = 0; x < width_; ++x) {
      const uint32_t p = pids[x];
      if (!p) continue;
      PatchShape& shape = out_.patches[p - 1];
      const double dx = (static_cast<double>(x) - centroid_x_[p - 1]) * r.cell_width;
      const double dy = (static_cast<double>(y) - centroid_y_[p - 1]) * r.cell_height;
      shape.gyrate_m += std::sqrt(dx * dx + dy * dy);
      if (y > 0) {
        if (x > 0 && prev_[x - 1] == p) ++shape.diagonal_pairs;
        if (x + 1 < width_ && prev_[x + 1] == p) ++shape.diagonal_pairs;
      }
      // Adjacency: the right and upper neighbour, entered from both sides.
      const uint32_t ci = class_of_pid_[p];
      if (x + 1 < width_ && pids[x + 1]) {
        const uint32_t cj = class_of_pid_[pids[x + 1]];
        ++out_.adjacency.sides_v[ci * k + cj];
        ++out_.adjacency.sides_v[cj * k + ci];
      }
      if (y > 0 && prev_[x]) {
        const uint32_t cj = class_of_pid_[prev_[x]];
        ++out_.adjacency.sides_h[ci * k + cj];
        ++out_.adjacency.sides_h[cj * k + ci];
      }
      // The row's extent of each patch, for its hull.
      if (last_row_[p - 1] != y) {
        if (last_row_[p - 1] >= 0) hulls_[p - 1].add_row(last_row_[p - 1], row_first_[p - 1], row_last_[p - 1]);
        last_row_[p - 1] = y;
        row_first_[p - 1] = x;
      }
      row_last_[p - 1] = x;
    }
    close_patches_above(y);
    core_.row(y, pids);
    // ENN edge cells of the previous row, now that its lower neighbour is known.
    if (enn_ && y > 0) enn_->add_row(y - 1, width_, y > 1 ? prev2_.data() : nullptr, prev_.data(), pids);
    std::swap(prev2_, prev_);
    std::copy(pids, pids + width_, prev_.begin());
    last_y_ = y;
  }

  void finish() override {
    if (enn_ && last_y_ >= 0) enn_->add_row(last_y_, width_, last_y_ > 0 ? prev2_.data() : nullptr, prev_.data(), nullptr);
    close_patches_above(last_y_ + 1);
    core_.finish();
    const RasterInfo& r = table_.raster;
    for (size_t i = 0; i < out_.patches.size(); ++i) out_.patches[i].gyrate_m /= static_cast<double>(table_.patches[i].cells);
    if (enn_) {
      const std::vector<double> d = enn_->distances(r.cell_width, r.cell_height);
      for (size_t i = 0; i < d.size(); ++i) out_.patches[i].enn_m = d[i];
    } else {
      for (PatchShape& s : out_.patches) s.enn_m = std::nan("");
    }
  }

 private:
  // Patches of the previous row that row `y` does not continue are complete
  // (patches are connected, so their rows are contiguous): finish their hulls.
  void close_patches_above(int64_t y) {
    if (y == 0) return;
    for (int64_t x = 0; x < width_; ++x) {
      const uint32_t p = prev_[x];
      if (p && last_row_[p - 1] == y - 1) close(p);  // not continued in row y, not closed yet
    }
  }

  void close(uint32_t p) {
    RowConvexHull& hull = hulls_[p - 1];
    hull.add_row(last_row_[p - 1], row_first_[p - 1], row_last_[p - 1]);
    last_row_[p - 1] = -2;  // closed
    const RasterInfo& r = table_.raster;
    std::vector<std::pair<double, double>> pts;
    for (const auto& [x, y] : hull.points()) pts.emplace_back(x * r.cell_width, y * r.cell_height);
    out_.patches[p - 1].circle_radius_m = half_diameter(pts);
    hull = RowConvexHull();
  }

  const PatchTable& table_;
  int64_t width_;
  PatchRowResults& out_;
  CoreAreaTracker core_;
  std::optional<NearestNeighbourIndex> enn_;
  std::vector<uint32_t> class_of_pid_;
  std::vector<double> centroid_x_, centroid_y_;  // in cells, per PID-1
  std::vector<RowConvexHull> hulls_;
  std::vector<int64_t> last_row_, row_first_, row_last_;
  std::vector<uint32_t> prev_, prev2_;
  int64_t last_y_ = -1;
};

}  // namespace

PatchRowResults compute_patch_row_metrics(ClassRasterSource& source, TileLabeler& labeler, const PatchTable& table,
                                          const RowMetricOptions& options, LabelRasterSink* also_write,
                                          const ProgressFn& progress) {
  PatchRowResults out;
  RowMetricsVisitor visitor(table, options, out);
  visit_patch_rows(source, labeler, table, visitor, also_write, progress);
  return out;
}

}  // namespace lsm
