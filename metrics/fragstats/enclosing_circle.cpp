#include "enclosing_circle.h"

#include <algorithm>
#include <cmath>

#include "open_patch_runs.h"

namespace lsm {
namespace {

using Chain = std::vector<std::pair<int64_t, int64_t>>;  // (y, x), y strictly increasing

// Cross product of (b - a) x (c - a) in (y, x) coordinates.
int64_t cross(const std::pair<int64_t, int64_t>& a, const std::pair<int64_t, int64_t>& b,
              const std::pair<int64_t, int64_t>& c) {
  return (b.first - a.first) * (c.second - a.second) - (b.second - a.second) * (c.first - a.first);
}

// Monotone-chain step: the left boundary x(y) of a convex set is convex, the
// right one concave; a middle point that is not strictly outside the chord
// cannot be a hull vertex.
void push_convex(Chain& chain, std::pair<int64_t, int64_t> p, int sign) {
  while (chain.size() >= 2 && sign * cross(chain[chain.size() - 2], chain.back(), p) <= 0) chain.pop_back();
  chain.push_back(p);
}

}  // namespace

void RowConvexHull::push_level(const Level& l) {
  push_convex(left_, {l.y, l.left}, 1);
  push_convex(right_, {l.y, l.right}, -1);
}

void RowConvexHull::add_row(int64_t y, int64_t x_first, int64_t x_last) {
  Level top{y, x_first, x_last + 1};
  // The row's top corners share their level with the previous row's bottom ones.
  if (has_pending_ && pending_.y == y) {
    top.left = std::min(top.left, pending_.left);
    top.right = std::max(top.right, pending_.right);
  } else if (has_pending_) {
    push_level(pending_);
  }
  push_level(top);
  pending_ = Level{y + 1, x_first, x_last + 1};
  has_pending_ = true;
}

void RowConvexHull::points(std::vector<std::pair<int64_t, int64_t>>& out) const {
  out.clear();
  thread_local Chain left, right;  // the chains with the last row's bottom corners, memory reused
  left = left_;
  right = right_;
  if (has_pending_) {
    push_convex(left, {pending_.y, pending_.left}, 1);
    push_convex(right, {pending_.y, pending_.right}, -1);
  }
  for (const auto& [y, x] : left) out.emplace_back(x, y);
  for (const auto& [y, x] : right) out.emplace_back(x, y);
}

void RowConvexHull::reset() {
  has_pending_ = false;
  reset_slot(left_);
  reset_slot(right_);
}

double half_diameter(const std::vector<std::pair<double, double>>& p) {
  double best = 0;  // hulls of grid patches are small: all pairs
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = i + 1; j < p.size(); ++j) {
      const double dx = p[i].first - p[j].first, dy = p[i].second - p[j].second;
      best = std::max(best, dx * dx + dy * dy);
    }
  return std::sqrt(best) / 2;
}

}  // namespace lsm
