#include "window_range_patches.h"

#include <algorithm>
#include <numeric>

namespace lsm {

void WindowRangePatches::start_row(const std::vector<const int32_t*>& window_rows, int64_t width, int64_t columns,
                                   NeighbourRule rule, bool sizes) {
  sizes_ = sizes;
  rows_ = window_rows;
  columns_ = columns;
  half_ = columns / 2;
  last_column_ = width - 1 + half_;
  rule_ = rule;
  block_ = INT64_MIN;
  next_columns_built_ = 0;
  suffixes_.resize(static_cast<size_t>(columns));
  prefixes_.resize(static_cast<size_t>(std::max<int64_t>(1, columns - 1)));
  next_columns_.resize(prefixes_.size());
}

// One column: its runs of a class down the window's rows are its patches,
// all open (they touch its first and last column, itself).
void WindowRangePatches::column(int64_t c, Range& out) const {
  const int32_t n = static_cast<int32_t>(rows_.size());
  out.left.clear();
  out.open.clear();
  out.closed.clear();
  for (int32_t i = 0; i < n;) {
    const int32_t k = rows_[static_cast<size_t>(i)][c];
    int32_t end = i + 1;
    if (k >= 0) {
      while (end < n && rows_[static_cast<size_t>(end)][c] == k) ++end;
      out.left.push_back({i, end - 1, static_cast<int32_t>(out.open.size()), k});
      out.open.push_back({k, static_cast<uint64_t>(end - i)});
    }
    i = end;
  }
  out.right = out.left;
}

void WindowRangePatches::add_tally(std::vector<Tally>& tallies, int32_t class_index, uint64_t patches, uint64_t largest,
                                   double sa2) {
  auto it = std::lower_bound(tallies.begin(), tallies.end(), class_index,
                             [](const Tally& t, int32_t k) { return t.class_index < k; });
  if (it == tallies.end() || it->class_index != class_index) it = tallies.insert(it, Tally{class_index, 0, 0, 0});
  it->patches += patches;
  it->largest = std::max(it->largest, largest);
  it->sa2 += sa2;
}

// `a`'s last column lies left of `b`'s first: their open patches of one
// class that touch across that seam (a side; a corner too under the 8-cell
// rule) join, and those that then touch neither outer column close.
// Joins the open patches of `a` (nodes 0 .. na) and `b` (na ...) that touch
// across the seam: the roots are the nodes that are their own parent. With
// `settle`, every node then points at its root, and (when sizes are wanted)
// each joined patch's cells are summed at its root.
void WindowRangePatches::join_across(const Range& a, const Range& b, bool settle) {
  const size_t na = a.open.size(), nb = b.open.size();
  parent_.resize(na + nb);
  std::iota(parent_.begin(), parent_.end(), 0);
  // Runs of one class across the seam join where they share a row (a side),
  // or under the 8-cell rule rows one apart (a corner). Both lists are top
  // to bottom: one walk down the seam.
  const int32_t reach = rule_ == NeighbourRule::Eight ? 1 : 0;
  size_t from = 0;
  for (const Run& p : a.right) {
    while (from < b.left.size() && b.left[from].last + reach < p.first) ++from;
    for (size_t j = from; j < b.left.size() && b.left[j].first <= p.last + reach; ++j) {
      const Run& q = b.left[j];
      if (q.class_index != p.class_index) continue;
      const int32_t ra = find(p.id), rb = find(static_cast<int32_t>(na) + q.id);
      if (ra != rb) parent_[static_cast<size_t>(std::max(ra, rb))] = std::min(ra, rb);
    }
  }
  if (!settle) return;
  // Roots are the smaller node: one pass in node order finds them all and
  // leaves every node pointing at its root.
  for (size_t i = 0; i < na + nb; ++i) {
    const int32_t p = parent_[i];
    if (p != static_cast<int32_t>(i)) parent_[i] = parent_[static_cast<size_t>(p)];
  }
  if (!sizes_) return;
  cells_.assign(na + nb, 0);
  for (size_t i = 0; i < na + nb; ++i)
    cells_[static_cast<size_t>(parent_[i])] += i < na ? a.open[i].cells : b.open[i - na].cells;
}

void WindowRangePatches::merge(const Range& a, const Range& b, Range& out) {
  const size_t na = a.open.size(), nb = b.open.size();
  join_across(a, b, true);
  const auto cells = [&](size_t root) { return sizes_ ? cells_[root] : 0; };
  // The patches on the outer columns stay open, numbered as they are met.
  new_id_.assign(na + nb, -1);
  out.open.clear();
  const auto open_id = [&](int32_t node) {
    const size_t root = static_cast<size_t>(parent_[static_cast<size_t>(node)]);  // join_across left every node on its root
    if (new_id_[root] < 0) {
      new_id_[root] = static_cast<int32_t>(out.open.size());
      out.open.push_back({root < na ? a.open[root].class_index : b.open[root - na].class_index, cells(root)});
    }
    return new_id_[root];
  };
  out.left = a.left;
  for (Run& r : out.left) r.id = open_id(r.id);
  out.right = b.right;
  for (Run& r : out.right) r.id = open_id(static_cast<int32_t>(na) + r.id);
  // Both ascending by class: merged in one pass.
  out.closed.clear();
  auto i = a.closed.begin(), j = b.closed.begin();
  while (i != a.closed.end() || j != b.closed.end()) {
    if (j == b.closed.end() || (i != a.closed.end() && i->class_index < j->class_index)) {
      out.closed.push_back(*i++);
    } else if (i == a.closed.end() || j->class_index < i->class_index) {
      out.closed.push_back(*j++);
    } else {
      out.closed.push_back({i->class_index, i->patches + j->patches, std::max(i->largest, j->largest), i->sa2 + j->sa2});
      ++i;
      ++j;
    }
  }
  for (size_t r = 0; r < na + nb; ++r) {
    if (parent_[r] != static_cast<int32_t>(r) || new_id_[r] >= 0) continue;
    const uint64_t n = cells(r);
    add_tally(out.closed, r < na ? a.open[r].class_index : b.open[r - na].class_index, 1, n,
              static_cast<double>(n) * static_cast<double>(n));
  }
}

// Windows whose focal column x has x / columns == block start in columns
// [base, base + columns), base = block * columns - half: the block's
// suffixes, and the prefixes of the block after it.
void WindowRangePatches::build_block(int64_t block) {
  const int64_t w = columns_, base = block * w - half_;
  // The previous block's prefixes built this block's first columns: taken, not built again.
  const int64_t cached = block == block_ + 1 ? next_columns_built_ : 0;
  const auto single = [&](int64_t t) -> const Range& {
    if (t < cached) return next_columns_[static_cast<size_t>(t)];
    column(base + t, single_);
    return single_;
  };
  suffixes_[static_cast<size_t>(w - 1)] = single(w - 1);
  for (int64_t t = w - 2; t >= 0; --t)
    merge(single(t), suffixes_[static_cast<size_t>(t + 1)], suffixes_[static_cast<size_t>(t)]);
  // The next block's prefixes as far as a window of this block reaches
  // (the last block's windows stop at the raster's last column + half),
  // keeping its columns for it.
  next_columns_built_ = 0;
  if (w > 1 && base + w <= last_column_) {
    column(base + w, next_columns_[0]);
    prefixes_[0] = next_columns_[0];
    next_columns_built_ = 1;
  }
  for (int64_t t = 1; t <= w - 2 && base + w + t <= last_column_; ++t) {
    column(base + w + t, next_columns_[static_cast<size_t>(t)]);
    merge(prefixes_[static_cast<size_t>(t - 1)], next_columns_[static_cast<size_t>(t)], prefixes_[static_cast<size_t>(t)]);
    next_columns_built_ = t + 1;
  }
  block_ = block;
}

const std::vector<WindowClassPatches>& WindowRangePatches::at(int64_t x) {
  const int64_t block = x / columns_, t = x - block * columns_;
  if (block != block_) build_block(block);
  // Clipped to the window, its open patches are patches too. Tallied by
  // class index in place (the window's classes are few, the job's may not
  // be), then listed ascending.
  touched_.clear();
  const auto add = [&](int32_t k, uint64_t patches, uint64_t largest, double sa2) {
    if (static_cast<size_t>(k) >= by_class_.size()) by_class_.resize(static_cast<size_t>(k) + 1, Tally{-1, 0, 0, 0});
    Tally& t = by_class_[static_cast<size_t>(k)];
    if (t.class_index < 0) {
      t = Tally{k, 0, 0, 0};
      touched_.push_back(k);
    }
    t.patches += patches;
    t.largest = std::max(t.largest, largest);
    t.sa2 += sa2;
  };
  const auto add_open = [&](int32_t k, uint64_t cells) {
    add(k, 1, cells, static_cast<double>(cells) * static_cast<double>(cells));
  };
  if (t == 0) {  // the block itself
    for (const Tally& c : suffixes_[0].closed) add(c.class_index, c.patches, c.largest, c.sa2);
    for (const Open& o : suffixes_[0].open) add_open(o.class_index, o.cells);
  } else {  // columns [base + t, base + w) and [base + w, base + w + t): joined, every patch counted
    const Range& a = suffixes_[static_cast<size_t>(t)];
    const Range& b = prefixes_[static_cast<size_t>(t - 1)];
    join_across(a, b, sizes_);
    for (const Tally& c : a.closed) add(c.class_index, c.patches, c.largest, c.sa2);
    for (const Tally& c : b.closed) add(c.class_index, c.patches, c.largest, c.sa2);
    const size_t na = a.open.size();
    for (size_t r = 0; r < parent_.size(); ++r)
      if (parent_[r] == static_cast<int32_t>(r))
        add_open(r < na ? a.open[r].class_index : b.open[r - na].class_index, sizes_ ? cells_[r] : 0);
  }
  std::sort(touched_.begin(), touched_.end());
  result_.resize(touched_.size());
  for (size_t i = 0; i < touched_.size(); ++i) {
    Tally& tally = by_class_[static_cast<size_t>(touched_[i])];
    WindowClassPatches& p = result_[i];
    p = WindowClassPatches{};
    p.class_index = tally.class_index;
    p.patches = tally.patches;
    p.largest = tally.largest;
    p.sa2 = tally.sa2;
    tally.class_index = -1;  // untouched for the next window
  }
  return result_;
}

}  // namespace lsm
