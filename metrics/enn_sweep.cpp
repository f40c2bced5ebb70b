#include "enn_sweep.h"

#include <cmath>
#include <limits>

#include "error.h"

namespace lsm {

EnnSweep::EnnSweep(const std::vector<uint32_t>& class_of_pid, const std::vector<uint64_t>& patches_in_class,
                   int64_t width, double cell_width, double cell_height, const std::string& temp_dir)
    : class_of_pid_(class_of_pid),
      width_(width),
      cell_width_(cell_width),
      cell_height_(cell_height),
      columns_(patches_in_class.size()),
      first_label_(patches_in_class.size(), 0),
      mixed_(patches_in_class.size(), 0),
      best2_(class_of_pid.empty() ? 0 : class_of_pid.size() - 1, std::numeric_limits<double>::infinity()),
      spill_(temp_folder(temp_dir)) {
  if (width > std::numeric_limits<int32_t>::max()) throw Error(ErrorKind::BadInput, "ENN: raster wider than 2^31 cells");
  for (uint64_t n : patches_in_class) wanted_.push_back(n >= 2);
  row_start_.push_back(0);
}

void EnnSweep::add_row(int64_t y, const uint32_t* above, const uint32_t* row, const uint32_t* below) {
  if (y > std::numeric_limits<int32_t>::max()) throw Error(ErrorKind::BadInput, "ENN: raster taller than 2^31 cells");
  sites_.clear();
  for (int64_t x = 0; x < width_; ++x) {
    const uint32_t p = row[x];
    if (!p || !wanted_[class_of_pid_[p]]) continue;
    const bool edge = (x > 0 && row[x - 1] != p) || (x + 1 < width_ && row[x + 1] != p) || (above && above[x] != p) ||
                      (below && below[x] != p);
    if (edge) sites_.push_back(Site{static_cast<int32_t>(x), p});
  }
  sweep_row(y, sites_);
  spill_.append(sites_.data(), sites_.size() * sizeof(Site));
  row_start_.push_back(row_start_.back() + sites_.size());
}

void EnnSweep::reset_columns() {
  for (std::vector<ColumnSites>& c : columns_) std::fill(c.begin(), c.end(), ColumnSites{});
  std::fill(first_label_.begin(), first_label_.end(), 0);
  std::fill(mixed_.begin(), mixed_.end(), 0);
}

void EnnSweep::sweep_row(int64_t y, const std::vector<Site>& sites) {
  // The row's own sites first: pairs within the row are found from either end.
  for (const Site& s : sites) {
    const uint32_t k = class_of_pid_[s.pid];
    std::vector<ColumnSites>& col = columns_[k];
    if (col.empty()) col.resize(static_cast<size_t>(width_));
    ColumnSites& c = col[static_cast<size_t>(s.x)];
    if (c.l1 != s.pid) {  // the previous nearest becomes the nearest of another patch
      c.r2 = c.r1;
      c.l2 = c.l1;
      c.l1 = s.pid;
    }
    c.r1 = static_cast<int32_t>(y);
    if (!first_label_[k]) first_label_[k] = s.pid;
    else if (first_label_[k] != s.pid) mixed_[k] = 1;
  }
  for (const Site& s : sites) {
    const uint32_t k = class_of_pid_[s.pid];
    if (!mixed_[k]) continue;  // only one patch of the class seen so far
    double& best = best2_[s.pid - 1];
    best = nearest_other(k, s.x, y, s.pid, best);
  }
}

// The squared distance from cell (x, y) of patch `pid` to the nearest site of
// another patch in the columns of class k, if below `best`; else `best`.
double EnnSweep::nearest_other(uint32_t k, int64_t x, int64_t y, uint32_t pid, double best) const {
  const ColumnSites* col = columns_[k].data();
  auto consider = [&](int64_t c, double dx2) {
    const ColumnSites& s = col[c];
    int32_t r;
    if (s.l1 != pid) {
      if (!s.l1) return;
      r = s.r1;
    } else {
      if (!s.l2) return;
      r = s.r2;
    }
    const double dy = static_cast<double>(y - r) * cell_height_;
    const double d2 = dx2 + dy * dy;
    if (d2 < best) best = d2;
  };
  consider(x, 0);
  for (int64_t j = 1;; ++j) {
    const double dx = static_cast<double>(j) * cell_width_, dx2 = dx * dx;
    if (dx2 >= best) break;  // no column farther out can be nearer
    const bool left = x - j >= 0, right = x + j < width_;
    if (!left && !right) break;
    if (left) consider(x - j, dx2);
    if (right) consider(x + j, dx2);
  }
  return best;
}

std::vector<double> EnnSweep::distances() {
  reset_columns();
  const int64_t height = static_cast<int64_t>(row_start_.size()) - 1;
  // Read the scratch file backwards in blocks of rows of about 8 MB.
  const uint64_t block_sites = (uint64_t(8) << 20) / sizeof(Site);
  std::vector<Site> block, row;
  uint64_t block_offset = 0;     // the first site in `block`
  int64_t block_first = height;  // rows [block_first, block_end) are in `block`
  for (int64_t y = height - 1; y >= 0; --y) {
    if (y < block_first) {
      const int64_t block_end = y + 1;
      block_first = y;
      while (block_first > 0 && row_start_[static_cast<size_t>(block_end)] - row_start_[static_cast<size_t>(block_first - 1)] <= block_sites)
        --block_first;
      const uint64_t first = row_start_[static_cast<size_t>(block_first)];
      block.resize(row_start_[static_cast<size_t>(block_end)] - first);
      if (!block.empty()) spill_.read(first * sizeof(Site), block.data(), block.size() * sizeof(Site));
      block_offset = first;
    }
    const uint64_t b = row_start_[static_cast<size_t>(y)] - block_offset, e = row_start_[static_cast<size_t>(y) + 1] - block_offset;
    row.assign(block.begin() + static_cast<int64_t>(b), block.begin() + static_cast<int64_t>(e));
    sweep_row(y, row);
  }
  std::vector<double> enn(best2_.size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t i = 0; i < best2_.size(); ++i)
    if (std::isfinite(best2_[i])) enn[i] = std::sqrt(best2_[i]);
  return enn;
}

}  // namespace lsm
