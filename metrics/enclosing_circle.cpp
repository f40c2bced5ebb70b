#include "enclosing_circle.h"

#include <algorithm>
#include <cmath>
#include <random>

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

std::vector<std::pair<int64_t, int64_t>> RowConvexHull::points() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  Chain left = left_, right = right_;
  if (has_pending_) {
    push_convex(left, {pending_.y, pending_.left}, 1);
    push_convex(right, {pending_.y, pending_.right}, -1);
  }
  for (const auto& [y, x] : left) out.emplace_back(x, y);
  for (const auto& [y, x] : right) out.emplace_back(x, y);
  return out;
}

namespace {

struct Circle { double x, y, r2; };

bool inside(const Circle& c, const std::pair<double, double>& p) {
  const double dx = p.first - c.x, dy = p.second - c.y;
  return dx * dx + dy * dy <= c.r2 * (1 + 1e-12) + 1e-12;
}

Circle from_two(const std::pair<double, double>& a, const std::pair<double, double>& b) {
  const double x = (a.first + b.first) / 2, y = (a.second + b.second) / 2;
  const double dx = a.first - x, dy = a.second - y;
  return {x, y, dx * dx + dy * dy};
}

Circle from_three(const std::pair<double, double>& a, const std::pair<double, double>& b,
                  const std::pair<double, double>& c) {
  const double bx = b.first - a.first, by = b.second - a.second, cx = c.first - a.first, cy = c.second - a.second;
  const double d = 2 * (bx * cy - by * cx);
  if (d == 0) {  // collinear: the widest pair
    Circle best = from_two(a, b);
    for (const Circle& k : {from_two(a, c), from_two(b, c)})
      if (k.r2 > best.r2) best = k;
    return best;
  }
  const double b2 = bx * bx + by * by, c2 = cx * cx + cy * cy;
  const double ux = (cy * b2 - by * c2) / d, uy = (bx * c2 - cx * b2) / d;
  return {a.first + ux, a.second + uy, ux * ux + uy * uy};
}

}  // namespace

double smallest_enclosing_radius(std::vector<std::pair<double, double>> p) {
  if (p.size() < 2) return 0;
  std::mt19937 rng(12345);  // fixed: the same circle on every run
  std::shuffle(p.begin(), p.end(), rng);
  Circle c{p[0].first, p[0].second, 0};
  for (size_t i = 1; i < p.size(); ++i) {
    if (inside(c, p[i])) continue;
    c = {p[i].first, p[i].second, 0};
    for (size_t j = 0; j < i; ++j) {
      if (inside(c, p[j])) continue;
      c = from_two(p[i], p[j]);
      for (size_t k = 0; k < j; ++k)
        if (!inside(c, p[k])) c = from_three(p[i], p[j], p[k]);
    }
  }
  return std::sqrt(c.r2);
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
