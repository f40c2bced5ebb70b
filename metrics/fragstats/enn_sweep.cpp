#include "enn_sweep.h"

#include <algorithm>
#include <cmath>
#include <omp.h>
#include <limits>

#include "error.h"
#include "serial_thresholds.h"

namespace lsm {

namespace {

// The squared distance of cells `columns` and `rows` apart, in the order of
// operations of EnnSweep::nearest_other.
double squared_distance(int64_t columns, int64_t rows, double cell_width, double cell_height) {
  const double dx = static_cast<double>(columns) * cell_width, dy = static_cast<double>(rows) * cell_height;
  return dx * dx + dy * dy;
}

}  // namespace

EnnSweep::EnnSweep(const uint32_t* class_of_pid, size_t n_patches, const std::vector<uint64_t>& patches_in_class,
                   NeighbourRule rule, int64_t width, double cell_width, double cell_height,
                   const std::string& temp_dir, const PagedPolicy& paged, PatchIdRows rows)
    : class_of_pid_(class_of_pid),
      least_d2_(std::min({squared_distance(2, 0, cell_width, cell_height),
                          squared_distance(0, 2, cell_width, cell_height),
                          rule == NeighbourRule::Four ? squared_distance(1, 1, cell_width, cell_height)
                                                      : std::numeric_limits<double>::infinity()})),
      width_(width),
      cell_width_(cell_width),
      cell_height_(cell_height),
      columns_(patches_in_class.size()),
      first_label_(patches_in_class.size(), 0),
      mixed_(patches_in_class.size(), 0),
      best2_(n_patches, paged),
      rows_(std::move(rows)) {
  if (!rows_) spill_.emplace(temp_folder(temp_dir));
  if (width > int64_t(kColumnMask)) throw Error(ErrorKind::BadInput, "ENN: raster wider than 2^30 cells");
  for (uint64_t n : patches_in_class) wanted_.push_back(n >= 2);
  row_start_.push_back(0);
}

void EnnSweep::add_row(int64_t y, const uint32_t* above, const uint32_t* row, const uint32_t* below) {
  if (y > std::numeric_limits<int32_t>::max()) throw Error(ErrorKind::BadInput, "ENN: raster taller than 2^31 cells");
  find_sites(above, row, below, sites_);
  sweep_row(y, sites_.data(), sites_.data() + sites_.size(), 0, 1, kQueryDown);
  height_ = y + 1;
  if (!spill_) return;  // the upward sweep finds them again in the caller's rows
  spill_->append(sites_.data(), sites_.size() * sizeof(Site));
  row_start_.push_back(row_start_.back() + sites_.size());
}

void EnnSweep::find_sites(const uint32_t* above, const uint32_t* row, const uint32_t* below,
                          std::vector<Site>& sites) const {
  sites.clear();
  for (int64_t x = 0; x < width_; ++x) {
    const uint32_t p = row[x];
    if (!p || !wanted_[class_of_pid_[p]]) continue;
    const bool side = (x > 0 && row[x - 1] != p) || (x + 1 < width_ && row[x + 1] != p);
    const bool top = above && above[x] != p, bottom = below && below[x] != p;
    if (!(side || top || bottom)) continue;  // not an edge cell
    // A cell whose neighbours towards a half-plane are all in its patch (or
    // off the raster) cannot realise the patch's ENN there: that neighbour is
    // strictly nearer to anything in it. So it is searched only in the sweep
    // of the other half-plane.
    uint32_t flags = static_cast<uint32_t>(x);
    if (side || top) flags |= kQueryDown;
    if (side || bottom) flags |= kQueryUp;
    sites.push_back(Site{flags, p});
  }
}

void EnnSweep::reset_columns() {
  for (std::vector<ColumnSites>& c : columns_) std::fill(c.begin(), c.end(), ColumnSites{});
  std::fill(first_label_.begin(), first_label_.end(), 0);
  std::fill(mixed_.begin(), mixed_.end(), 0);
}

void EnnSweep::sweep_row(int64_t y, const Site* first, const Site* last, uint32_t part, uint32_t parts,
                         uint32_t query) {
  // The row's own sites first: pairs within the row are found from either end.
  for (const Site* it = first; it != last; ++it) {
    const Site& s = *it;
    const uint32_t k = class_of_pid_[s.pid];
    if (k % parts != part) continue;
    std::vector<ColumnSites>& col = columns_[k];
    if (col.empty()) col.resize(static_cast<size_t>(width_));
    ColumnSites& c = col[s.column()];
    if (c.l1 != s.pid) {  // the previous nearest becomes the nearest of another patch
      c.r2 = c.r1;
      c.l2 = c.l1;
      c.l1 = s.pid;
    }
    c.r1 = static_cast<int32_t>(y);
    if (!first_label_[k]) first_label_[k] = s.pid;
    else if (first_label_[k] != s.pid) mixed_[k] = 1;
  }
  for (const Site* it = first; it != last; ++it) {
    const Site& s = *it;
    const uint32_t k = class_of_pid_[s.pid];
    // Another part's class, one patch of the class seen so far, or a cell searched in the other sweep.
    if (k % parts != part || !mixed_[k] || !(s.flags & query)) continue;
    double& best = best2_[s.pid - 1];
    if (best > 0 && best <= least_d2_) continue;  // as near as two patches can be
    const double found = nearest_other(k, static_cast<int64_t>(s.column()), y, s.pid,
                                       best > 0 ? best : std::numeric_limits<double>::infinity());
    if (std::isfinite(found)) best = found;
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

void EnnSweep::distances(const std::function<void(size_t, double)>& put) {
  reset_columns();
  // The edge cells backwards in blocks of rows of about 8 MB, read from the
  // scratch file or found again in the caller's rows; each block's rows are
  // swept by several threads, each taking its own classes (classes share
  // nothing: their columns, and their patches' distances).
  const uint64_t block_sites = (uint64_t(8) << 20) / sizeof(Site);
  std::vector<Site> block, row_sites;
  std::vector<std::pair<uint64_t, uint64_t>> range;  // [y - block_first]: row y's sites in the block
  for (int64_t block_end = height_; block_end > 0;) {
    int64_t block_first = block_end - 1;
    if (spill_) {
      while (block_first > 0 && row_start_[static_cast<size_t>(block_end)] - row_start_[static_cast<size_t>(block_first - 1)] <= block_sites)
        --block_first;
      const uint64_t offset = row_start_[static_cast<size_t>(block_first)];
      block.resize(row_start_[static_cast<size_t>(block_end)] - offset);
      if (!block.empty()) spill_->read(offset * sizeof(Site), block.data(), block.size() * sizeof(Site));
      range.clear();
      for (int64_t y = block_first; y < block_end; ++y)
        range.emplace_back(row_start_[static_cast<size_t>(y)] - offset, row_start_[static_cast<size_t>(y) + 1] - offset);
    } else {  // rows upwards until the block is full (the block holds them bottom row first)
      block.clear();
      std::vector<std::pair<uint64_t, uint64_t>> upwards;
      for (int64_t y = block_end - 1;; --y) {
        find_sites(rows_(y - 1), rows_(y), rows_(y + 1), row_sites);
        upwards.emplace_back(block.size(), block.size() + row_sites.size());
        block.insert(block.end(), row_sites.begin(), row_sites.end());
        block_first = y;
        if (y == 0 || block.size() >= block_sites) break;
      }
      range.assign(upwards.rbegin(), upwards.rend());
    }
#pragma omp parallel if (block.size() > kSerialSites)
    {
      const uint32_t parts = static_cast<uint32_t>(omp_get_num_threads()), part = static_cast<uint32_t>(omp_get_thread_num());
      for (int64_t y = block_end - 1; y >= block_first; --y) {
        const auto [first, end] = range[static_cast<size_t>(y - block_first)];
        sweep_row(y, block.data() + first, block.data() + end, part, parts, kQueryUp);
      }
    }
    block_end = block_first;
    release_paged_memory();
  }
  for (size_t i = 0; i < best2_.size(); ++i) {
    put(i, best2_[i] > 0 ? std::sqrt(best2_[i]) : std::numeric_limits<double>::quiet_NaN());
    if ((i & 0xFFFFF) == 0xFFFFF) release_paged_memory();
  }
  best2_.clear();
  std::vector<std::vector<ColumnSites>>().swap(columns_);
}

}  // namespace lsm
