#include "nearest_neighbour.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "error.h"

namespace lsm {

NearestNeighbourIndex::NearestNeighbourIndex(std::vector<uint32_t> class_of_pid,
                                             const std::vector<uint64_t>& patches_in_class)
    : class_of_pid_(std::move(class_of_pid)), cells_(patches_in_class.size()) {
  for (uint64_t n : patches_in_class) wanted_.push_back(n >= 2);
}

void NearestNeighbourIndex::add_row(int64_t y, int64_t width, const uint32_t* above, const uint32_t* row,
                                    const uint32_t* below) {
  if (width > std::numeric_limits<int32_t>::max() || y > std::numeric_limits<int32_t>::max())
    throw Error(ErrorKind::BadInput, "ENN: raster side above 2^31 cells");
  for (int64_t x = 0; x < width; ++x) {
    const uint32_t p = row[x];
    if (!p) continue;
    const uint32_t k = class_of_pid_[p];
    if (!wanted_[k]) continue;
    const bool edge = (x > 0 && row[x - 1] != p) || (x + 1 < width && row[x + 1] != p) ||
                      (above && above[x] != p) || (below && below[x] != p);
    if (edge) cells_[k].push_back(EdgeCell{static_cast<int32_t>(x), static_cast<int32_t>(y), p, 0});
  }
}

namespace {

struct KdTree {
  struct Node {
    double x0, y0, x1, y1;  // bounding box (metres)
    uint32_t begin, end;    // range of points
    uint32_t left = 0, right = 0;  // children (0 = leaf)
    uint32_t pid;           // the one patch of all points, or 0 when mixed
  };
  // Point positions (m): for geographic rasters px is the column times the
  // smallest cell width, so box gaps stay lower bounds of true distances.
  std::vector<double> px, py;
  std::vector<uint32_t> pid;
  std::vector<Node> nodes;
  // Geographic rasters: the exact squared distance between points a and b.
  const CellGeometry* geodesic = nullptr;
  const std::vector<int32_t>* col = nullptr;
  const std::vector<int32_t>* row = nullptr;

  uint32_t build(std::vector<uint32_t>& idx, uint32_t b, uint32_t e) {
    Node n{};
    n.x0 = n.y0 = std::numeric_limits<double>::infinity();
    n.x1 = n.y1 = -n.x0;
    n.begin = b;
    n.end = e;
    n.pid = pid[idx[b]];
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t k = idx[i];
      n.x0 = std::min(n.x0, px[k]);
      n.x1 = std::max(n.x1, px[k]);
      n.y0 = std::min(n.y0, py[k]);
      n.y1 = std::max(n.y1, py[k]);
      if (pid[k] != n.pid) n.pid = 0;
    }
    const uint32_t me = static_cast<uint32_t>(nodes.size());
    nodes.push_back(n);
    if (e - b > 8 && n.pid == 0) {
      const uint32_t m = b + (e - b) / 2;
      const bool by_x = (n.x1 - n.x0) >= (n.y1 - n.y0);
      std::nth_element(idx.begin() + b, idx.begin() + m, idx.begin() + e, [&](uint32_t a, uint32_t c) {
        return by_x ? (px[a] < px[c] || (px[a] == px[c] && a < c)) : (py[a] < py[c] || (py[a] == py[c] && a < c));
      });
      const uint32_t l = build(idx, b, m);
      const uint32_t r = build(idx, m, e);
      nodes[me].left = l;
      nodes[me].right = r;
    }
    return me;
  }

  // Shortest squared distance from (x, y) to a point of another patch than `self`, below `best`.
  void nearest(uint32_t ni, uint32_t from, uint32_t self, const std::vector<uint32_t>& idx, double& best) const {
    const double x = px[from], y = py[from];
    const Node& n = nodes[ni];
    if (n.pid == self) return;
    const double dx = std::max({n.x0 - x, 0.0, x - n.x1}), dy = std::max({n.y0 - y, 0.0, y - n.y1});
    if (dx * dx + dy * dy >= best) return;
    if (!n.left) {
      for (uint32_t i = n.begin; i < n.end; ++i) {
        const uint32_t k = idx[i];
        if (pid[k] == self) continue;
        if (geodesic) {
          const double d = geodesic->distance_m((*col)[k], (*row)[k], (*col)[from], (*row)[from]);
          best = std::min(best, d * d);
        } else {
          const double ex = px[k] - x, ey = py[k] - y;
          best = std::min(best, ex * ex + ey * ey);
        }
      }
      return;
    }
    // Nearer child first: tightens `best` sooner.
    const Node& l = nodes[n.left];
    const Node& r = nodes[n.right];
    auto gap = [&](const Node& c) {
      const double gx = std::max({c.x0 - x, 0.0, x - c.x1}), gy = std::max({c.y0 - y, 0.0, y - c.y1});
      return gx * gx + gy * gy;
    };
    if (gap(l) <= gap(r)) {
      nearest(n.left, from, self, idx, best);
      nearest(n.right, from, self, idx, best);
    } else {
      nearest(n.right, from, self, idx, best);
      nearest(n.left, from, self, idx, best);
    }
  }
};

}  // namespace

std::vector<double> NearestNeighbourIndex::distances(const CellGeometry& geometry) const {
  std::vector<double> enn(class_of_pid_.empty() ? 0 : class_of_pid_.size() - 1,
                          std::numeric_limits<double>::quiet_NaN());
  for (const std::vector<EdgeCell>& cells : cells_) {
    if (cells.empty()) continue;
    KdTree tree;
    const uint32_t n = static_cast<uint32_t>(cells.size());
    tree.px.resize(n);
    tree.py.resize(n);
    tree.pid.resize(n);
    std::vector<int32_t> col(n), row(n);
    for (uint32_t i = 0; i < n; ++i) {
      col[i] = cells[i].x;
      row[i] = cells[i].y;
      tree.pid[i] = cells[i].pid;
      if (geometry.geodesic()) {
        tree.px[i] = cells[i].x * geometry.min_width_m();
        tree.py[i] = geometry.southing_m(cells[i].y + 0.5);
      } else {
        tree.px[i] = cells[i].x * geometry.side_h_m(0);
        tree.py[i] = cells[i].y * geometry.side_v_m(0);
      }
    }
    if (geometry.geodesic()) {
      tree.geodesic = &geometry;
      tree.col = &col;
      tree.row = &row;
    }
    std::vector<uint32_t> idx(n);
    for (uint32_t i = 0; i < n; ++i) idx[i] = i;
    tree.build(idx, 0, n);
    // One shared bound per patch: its cells are visited together.
    std::vector<uint32_t> by_patch(n);
    for (uint32_t i = 0; i < n; ++i) by_patch[i] = i;
    std::stable_sort(by_patch.begin(), by_patch.end(), [&](uint32_t a, uint32_t b) { return cells[a].pid < cells[b].pid; });
    std::vector<uint32_t> starts;  // first entry of each patch in by_patch
    for (uint32_t s = 0; s < n; ++s)
      if (s == 0 || cells[by_patch[s]].pid != cells[by_patch[s - 1]].pid) starts.push_back(s);
    starts.push_back(n);
    // Patches are searched independently in the shared read-only tree.
    const int64_t groups = static_cast<int64_t>(starts.size()) - 1;
#pragma omp parallel for schedule(dynamic, 16) if (groups > 64)
    for (int64_t g = 0; g < groups; ++g) {
      const uint32_t p = cells[by_patch[starts[g]]].pid;
      double best = std::numeric_limits<double>::infinity();
      for (uint32_t e = starts[g]; e < starts[g + 1]; ++e) tree.nearest(0, by_patch[e], p, idx, best);
      enn[p - 1] = std::sqrt(best);
    }
  }
  return enn;
}

}  // namespace lsm
