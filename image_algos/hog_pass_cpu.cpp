// HOG on the CPU: the reference pass. skimage variant (hog_math.h): one
// cell per iteration, OpenMP over the cells of a strip. Dalal-Triggs
// (hog_dalal_triggs_math.h): every pixel's vote first, then one (block,
// cell of the block) per iteration.
#include <cmath>
#include <vector>

#include "hog.h"
#include "hog_dalal_triggs.h"
#include "hog_math.h"

namespace lsm {

namespace {

class CpuHogPass final : public HogPass {
 public:
  void cell_histograms(const HogOptions& o, const HogGeometry& g, const double* grey, int64_t y0, int64_t cell_rows,
                       float* histograms) override {
    const int64_t width = g.width, cells_x = g.cells_x, cells = cell_rows * cells_x;
    const double period = o.signed_orientation ? 360.0 : 180.0;
    const float bin_width = static_cast<float>(period / o.bins);
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < cells; ++c) {
      const int64_t cy = c / cells_x, cx = c % cells_x;
      float* bins = histograms + c * o.bins;
      for (int b = 0; b < o.bins; ++b) bins[b] = 0;
      for (int r = 0; r < o.cell; ++r) {
        const int64_t row = cy * o.cell + r;  // in the strip; grey row row + 1
        const int64_t y = y0 + row;
        const double* here = grey + (row + 1) * width;
        for (int q = 0; q < o.cell; ++q) {
          const int64_t x = cx * o.cell + q;
          const double g_row = (y == 0 || y == g.height - 1) ? 0.0 : here[x + width] - here[x - width];
          const double g_col = (x == 0 || x == width - 1) ? 0.0 : here[x + 1] - here[x - 1];
          const double magnitude = std::hypot(g_col, g_row);
          const double orientation = hog_math::orientation_degrees(g_row, g_col, period);
          if (std::isnan(orientation)) {  // nodata: skimage's comparisons let NaN into every bin
            for (int b = 0; b < o.bins; ++b) bins[b] = hog_math::accumulate(bins[b], magnitude);
            continue;
          }
          const int b = hog_math::orientation_bin(orientation, bin_width, o.bins);
          if (b >= 0) bins[b] = hog_math::accumulate(bins[b], magnitude);
        }
      }
      const float pixels = static_cast<float>(o.cell * o.cell);
      for (int b = 0; b < o.bins; ++b) bins[b] = bins[b] / pixels;
    }
  }

  void normalize_blocks(const HogOptions& o, const HogGeometry& g, const float* histograms, int64_t cell_rows,
                        double* descriptors) override {
    const int64_t blocks = (cell_rows - o.block + 1) * g.blocks_x, length = g.descriptor_length;
    const int64_t row_values = g.cells_x * o.bins, run = o.block * o.bins;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < blocks; ++k) {
      const int64_t by = k / g.blocks_x, bx = k % g.blocks_x;
      double* v = descriptors + k * length;
      for (int r = 0; r < o.block; ++r) {
        const float* cells = histograms + (by + r) * row_values + bx * o.bins;
        for (int64_t i = 0; i < run; ++i) v[r * run + i] = cells[i];
      }
      hog_math::normalize_block(v, static_cast<int>(length), static_cast<int>(o.norm));
    }
  }

  void dalal_triggs_blocks(const HogOptions& o, const HogGeometry& g, const double* planes, int bands,
                           int64_t first_block_row, int64_t block_rows, double* descriptors) override {
    const DalalTriggsWindow window = dalal_triggs_window(o);
    const double angle_scale = dalal_triggs_angle_scale(o);
    const int64_t width = g.width, rows = (block_rows + o.block - 1) * o.cell, plane = (rows + 2) * width;
    const int64_t y0 = first_block_row * o.cell, pixels = rows * width;
    const double* band_planes[3] = {planes + width, planes + plane + width, planes + 2 * plane + width};
    std::vector<int> bin(static_cast<size_t>(pixels));
    std::vector<double> lower(bin.size()), upper(bin.size());
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < pixels; ++p) {
      const int64_t y = y0 + p / width, x = p % width;
      const bool row_edge = y == 0 || y == g.height - 1, col_edge = x == 0 || x == width - 1;
      const dalal_triggs::Vote v = dalal_triggs::pixel_vote(band_planes, bands, p, row_edge ? 0 : width,
                                                            col_edge ? 0 : 1, o.bins, angle_scale);
      bin[p] = v.bin;
      lower[p] = v.lower;
      upper[p] = v.upper;
    }
    const int cells = o.block * o.block;
    const int64_t blocks = block_rows * g.blocks_x, length = g.descriptor_length;
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < blocks * cells; ++t) {
      const int64_t k = t / cells, by = k / g.blocks_x, bx = k % g.blocks_x;
      const int c = static_cast<int>(t % cells);
      dalal_triggs::block_cell(window.view(), window.side, o.cell, bin.data(), lower.data(), upper.data(), width,
                               by * o.cell, bx * o.cell, c / o.block, c % o.block, o.bins,
                               descriptors + k * length + c * o.bins);
    }
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < blocks; ++k)
      dalal_triggs::normalize_block(descriptors + k * length, static_cast<int>(length), static_cast<int>(o.norm));
  }

  const char* name() const override { return "cpu"; }
};

}  // namespace

std::unique_ptr<HogPass> make_cpu_hog_pass() { return std::make_unique<CpuHogPass>(); }

}  // namespace lsm
