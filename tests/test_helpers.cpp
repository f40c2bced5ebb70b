#include "test_helpers.h"

#include <deque>

#include "neutral_landscape.h"

namespace lsm::test {

MemoryClassRaster grid(const std::vector<std::string>& rows, double cell) {
  const int64_t h = static_cast<int64_t>(rows.size()), w = static_cast<int64_t>(rows.at(0).size());
  std::vector<int32_t> cells;
  for (const std::string& r : rows) {
    EXPECT_EQ(static_cast<int64_t>(r.size()), w) << "ragged test grid";
    for (char c : r) cells.push_back(c == '.' ? kNoClass : int32_t(c - '0'));
  }
  return MemoryClassRaster(w, h, std::move(cells), cell, cell);
}

Reference brute_force(const MemoryClassRaster& raster, NeighbourRule rule) {
  const RasterInfo info = raster.info();
  const int64_t w = info.width, h = info.height;
  const auto& c = raster.cells();
  auto at = [&](int64_t x, int64_t y) { return (x < 0 || y < 0 || x >= w || y >= h) ? kNoClass : c[y * w + x]; };
  Reference ref;
  ref.labels.assign(static_cast<size_t>(w * h), 0);
  for (int64_t start = 0; start < w * h; ++start) {
    if (c[start] == kNoClass || ref.labels[start]) continue;
    const uint32_t id = static_cast<uint32_t>(ref.patches.size() + 1);
    PatchStats p;
    p.class_code = c[start];
    p.first_cell = static_cast<uint64_t>(start);
    std::deque<int64_t> queue{start};
    ref.labels[start] = id;
    while (!queue.empty()) {
      const int64_t i = queue.front();
      queue.pop_front();
      const int64_t x = i % w, y = i / w;
      ++p.cells;
      p.add_cell_position(static_cast<uint64_t>(x), static_cast<uint64_t>(y));
      for (auto [dx, dy, horizontal] : {std::tuple{0, -1, true}, {0, 1, true}, {-1, 0, false}, {1, 0, false}}) {
        const int32_t n = at(x + dx, y + dy);
        if (n == p.class_code) continue;
        (horizontal ? p.perim_edges_h : p.perim_edges_v)++;
        if (n != kNoClass) (horizontal ? p.class_edges_h : p.class_edges_v)++;
      }
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if ((dx == 0 && dy == 0) || (rule == NeighbourRule::Four && dx != 0 && dy != 0)) continue;
          const int64_t nx = x + dx, ny = y + dy;
          if (at(nx, ny) != p.class_code || ref.labels[ny * w + nx]) continue;
          ref.labels[ny * w + nx] = id;
          queue.push_back(ny * w + nx);
        }
    }
    ref.patches.push_back(p);
  }
  return ref;
}

PatchTable scan(MemoryClassRaster& raster, NeighbourRule rule, int64_t tile_w, int64_t tile_h, Backend backend,
                bool keep_ids) {
  auto labeler = make_labeler(backend);
  ScanOptions o;
  o.rule = rule;
  o.tile_width = tile_w;
  o.tile_height = tile_h;
  o.keep_patch_ids = keep_ids;
  return scan_patches(raster, *labeler, o);
}

std::vector<uint32_t> patch_ids(MemoryClassRaster& raster, NeighbourRule rule, int64_t tile_w, int64_t tile_h,
                                Backend backend) {
  auto labeler = make_labeler(backend);
  ScanOptions o;
  o.rule = rule;
  o.tile_width = tile_w;
  o.tile_height = tile_h;
  o.keep_patch_ids = true;
  const PatchTable table = scan_patches(raster, *labeler, o);
  MemoryLabelRaster sink(raster.info().width, raster.info().height);
  write_patch_ids(raster, *labeler, table, sink);
  return sink.labels();
}

MemoryClassRaster random_run_grid(std::mt19937& rng, int64_t width, int64_t height, int classes, double cw, double ch) {
  std::uniform_int_distribution<int> pick(1, classes), percent(0, 99);
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  for (int64_t i = 0; i < width * height; ++i)
    cells[static_cast<size_t>(i)] = percent(rng) < 40 && i % width > 0 ? cells[static_cast<size_t>(i - 1)]
                                    : percent(rng) < 8                 ? kNoClass
                                                                       : pick(rng);
  return MemoryClassRaster(width, height, std::move(cells), cw, ch);
}

MemoryClassRaster random_landscape(int64_t width, int64_t height, int classes, uint64_t seed, double nodata_share) {
  NeutralLandscapeOptions o;
  o.width = width;
  o.height = height;
  o.classes = classes;
  o.seed = seed;
  o.scale = 12;
  o.roughness = 0.65;
  const NeutralLandscape nlm(o);
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  nlm.classify(Window{0, 0, width, height}, cells.data());
  if (nodata_share > 0) {
    o.seed = seed * 7 + 3;
    o.classes = 1000;
    const NeutralLandscape mask(o);
    std::vector<int32_t> m(cells.size());
    mask.classify(Window{0, 0, width, height}, m.data());
    for (size_t i = 0; i < cells.size(); ++i)
      if (m[i] <= int32_t(nodata_share * 1000)) cells[i] = kNoClass;
  }
  return MemoryClassRaster(width, height, std::move(cells), 30.0, 30.0);
}

MemoryClassRaster with_wide_codes(const MemoryClassRaster& raster) {
  std::vector<int32_t> cells = raster.cells();
  for (int32_t& c : cells)
    if (c != kNoClass) c = c == 1 ? -7 : 100 * c + 11;
  const RasterInfo info = raster.info();
  return MemoryClassRaster(info.width, info.height, std::move(cells), info.cell_width, info.cell_height);
}

}  // namespace lsm::test
