#pragma once
// The HOG tests' one way of running a pass over an in-memory image: the
// descriptors collected in order, with the sink's row order checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "feature_raster.h"
#include "hog.h"

namespace lsm {

struct HogResult {
  HogGeometry g;
  std::vector<double> d;  // blocks_y x blocks_x x descriptor_length
  double at(int64_t by, int64_t bx, int e) const { return d[(by * g.blocks_x + bx) * g.descriptor_length + e]; }
};

/// run_hog on a w x h image of `bands` interleaved values per pixel.
inline HogResult run_hog_on(const std::vector<float>& image, int64_t w, int64_t h, int bands, const HogOptions& o,
                            Backend backend = Backend::Cpu) {
  MemoryFeatureRaster r(w, h, bands, image);
  auto pass = make_hog_pass(backend);
  HogResult out{hog_geometry(w, h, o), {}};
  int64_t next = 0;
  run_hog(r, o, *pass, [&](int64_t first, int64_t rows, const double* d) {
    EXPECT_EQ(first, next);
    next += rows;
    out.d.insert(out.d.end(), d, d + rows * out.g.blocks_x * out.g.descriptor_length);
  });
  EXPECT_EQ(next, out.g.blocks_y);
  return out;
}

/// Expects `gpu` within 1e-5 (relative) of `cpu`, NaN where it is NaN, and
/// prints how many values differ in their last bits (`what` names the case).
inline void expect_gpu_matches_cpu(const HogResult& cpu, const HogResult& gpu, const std::string& what) {
  ASSERT_EQ(cpu.d.size(), gpu.d.size()) << what;
  size_t differing = 0;
  for (size_t i = 0; i < cpu.d.size(); ++i) {
    if (std::isnan(cpu.d[i])) {
      EXPECT_TRUE(std::isnan(gpu.d[i])) << what << " at " << i;
      continue;
    }
    EXPECT_NEAR(gpu.d[i], cpu.d[i], 1e-5 * std::max(1e-3, std::fabs(cpu.d[i]))) << what << " at " << i;
    differing += gpu.d[i] != cpu.d[i];
  }
  std::printf("%s: %zu of %zu values differ in the last bits\n", what.c_str(), differing, cpu.d.size());
}

}  // namespace lsm
