#include "binary_morphology.h"

#include <cmath>

#include "error.h"

namespace lsm {

namespace {

// Erosion of the cells equal to `fg`: a cell keeps fg when no cell of the
// disk holds the other value. Row y+dy contributes the run [x-w, x+w] with
// w = floor(sqrt(R^2 - dy^2)); prefix counts of the other value per row make
// each run an O(1) test.
BinaryMask erode_value(const BinaryMask& m, int radius, uint8_t fg) {
  if (radius < 0) throw Error(ErrorKind::BadInput, "a morphology radius must be zero or positive");
  BinaryMask out = m;
  if (radius == 0 || m.cells.empty()) return out;
  const int64_t W = m.width, H = m.height;
  std::vector<int32_t> others(static_cast<size_t>((W + 1) * H));  // others[y][x] = count in row y before x
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < H; ++y) {
    int32_t* p = others.data() + y * (W + 1);
    p[0] = 0;
    for (int64_t x = 0; x < W; ++x) p[x + 1] = p[x] + (m.cells[y * W + x] != fg);
  }
  std::vector<int64_t> half(static_cast<size_t>(2 * radius + 1));
  for (int dy = -radius; dy <= radius; ++dy)
    half[dy + radius] = static_cast<int64_t>(std::floor(std::sqrt(double(radius) * radius - double(dy) * dy)));
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < H; ++y) {
    for (int64_t x = 0; x < W; ++x) {
      if (m.cells[y * W + x] != fg) continue;
      bool keep = true;
      for (int dy = -radius; dy <= radius && keep; ++dy) {
        const int64_t yy = y + dy;
        if (yy < 0 || yy >= H) continue;
        const int64_t x0 = std::max<int64_t>(0, x - half[dy + radius]);
        const int64_t x1 = std::min<int64_t>(W, x + half[dy + radius] + 1);
        const int32_t* p = others.data() + yy * (W + 1);
        keep = p[x1] == p[x0];
      }
      if (!keep) out.cells[y * W + x] = fg ? 0 : 1;
    }
  }
  return out;
}

}  // namespace

BinaryMask erode_disk(const BinaryMask& mask, int radius) { return erode_value(mask, radius, 1); }
// Dilating the 1s is eroding the 0s.
BinaryMask dilate_disk(const BinaryMask& mask, int radius) { return erode_value(mask, radius, 0); }
BinaryMask open_disk(const BinaryMask& mask, int radius) { return dilate_disk(erode_disk(mask, radius), radius); }
BinaryMask close_disk(const BinaryMask& mask, int radius) { return erode_disk(dilate_disk(mask, radius), radius); }

}  // namespace lsm
