#include "hog.h"

#include <algorithm>
#include <string>
#include <vector>

#include "error.h"
#include "grey.h"
#include "tile_scheduler.h"

namespace lsm {

HogNorm parse_hog_norm(const std::string& name) {
  if (name == "L1") return HogNorm::L1;
  if (name == "L1-sqrt") return HogNorm::L1Sqrt;
  if (name == "L2") return HogNorm::L2;
  if (name == "L2-Hys") return HogNorm::L2Hys;
  throw Error(ErrorKind::BadInput, "--norm must be L1, L1-sqrt, L2 or L2-Hys, not '" + name + "'");
}

HogVariant parse_hog_variant(const std::string& name) {
  if (name == "skimage") return HogVariant::Skimage;
  if (name == "dalal-triggs") return HogVariant::DalalTriggs;
  throw Error(ErrorKind::BadInput, "--variant must be skimage or dalal-triggs, not '" + name + "'");
}

HogGeometry hog_geometry(int64_t width, int64_t height, const HogOptions& o) {
  if (o.cell < 1 || o.cell > 64) throw Error(ErrorKind::BadInput, "--cell must be between 1 and 64 pixels");
  if (o.block < 1 || o.block > 8) throw Error(ErrorKind::BadInput, "--block must be between 1 and 8 cells");
  if (o.bins < 1 || o.bins > 180) throw Error(ErrorKind::BadInput, "--bins must be between 1 and 180");
  if (!(o.value_divisor > 0)) throw Error(ErrorKind::BadInput, "the grey-level divisor must be positive");
  if (!(o.window_sigma >= 0)) throw Error(ErrorKind::BadInput, "--window-sigma must be 0 (the default) or positive");
  if (o.strip_cells < 1) throw Error(ErrorKind::BadInput, "the strip height must be positive");
  HogGeometry g;
  g.width = width;
  g.height = height;
  g.cells_x = width / o.cell;
  g.cells_y = height / o.cell;
  g.blocks_x = g.cells_x - o.block + 1;
  g.blocks_y = g.cells_y - o.block + 1;
  g.descriptor_length = o.block * o.block * o.bins;
  if (g.blocks_x < 1 || g.blocks_y < 1) {
    const int side = o.block * o.cell;
    throw Error(ErrorKind::BadInput, "a " + std::to_string(width) + " x " + std::to_string(height) +
                                         " image is smaller than one HOG block of " + std::to_string(side) + " x " +
                                         std::to_string(side) + " pixels (" + std::to_string(o.block) + " x " +
                                         std::to_string(o.block) + " cells of " + std::to_string(o.cell) + ")");
  }
  return g;
}

namespace {

// Image rows y0 - 1 .. y0 + rows as `planes` planes of (rows + 2) x width
// values (0 where a row is outside the image): the luma of the bands
// (skimage), or each band on its own (Dalal-Triggs), each divided by the divisor.
std::vector<double> read_rows(FeatureRasterSource& source, const HogOptions& o, int64_t y0, int64_t rows) {
  const FeatureRasterInfo info = source.info();
  const int64_t width = info.width, bands = info.bands;
  const bool luma = o.variant == HogVariant::Skimage;
  const int64_t planes = luma ? 1 : bands, plane = (rows + 2) * width;
  const int64_t first = std::max<int64_t>(0, y0 - 1), last = std::min(info.height, y0 + rows + 1);
  std::vector<float> values(static_cast<size_t>((last - first) * width * bands));
  source.read(Window{0, first, width, last - first}, values.data());
  std::vector<double> out(static_cast<size_t>(planes * plane), 0.0);
  const int64_t offset = (first - (y0 - 1)) * width, n = (last - first) * width;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float* v = values.data() + i * bands;
    if (luma) {
      out[offset + i] = grey_level(v, int(bands), o.value_divisor);
    } else {
      for (int64_t b = 0; b < bands; ++b) out[b * plane + offset + i] = v[b] / o.value_divisor;
    }
  }
  return out;
}

// A strip's grey rows with their one-row halo, and which cell rows they make.
struct GreyStrip {
  int64_t first_cell_row = 0, cell_rows = 0;
  std::vector<double> grey;  // (cell_rows * cell + 2) x width
};

void run_skimage_hog(FeatureRasterSource& source, const HogOptions& o, const HogGeometry& g, HogPass& pass,
                     const HogSink& sink, const ProgressFn& progress) {
  const int64_t strips = (g.cells_y + o.strip_cells - 1) / o.strip_cells;
  auto read = [&](int64_t s) {
    GreyStrip strip;
    strip.first_cell_row = s * o.strip_cells;
    strip.cell_rows = std::min(o.strip_cells, g.cells_y - strip.first_cell_row);
    strip.grey = read_rows(source, o, strip.first_cell_row * o.cell, strip.cell_rows * o.cell);
    return strip;
  };
  // The last block - 1 cell rows wait for the next strip to complete their blocks.
  const int64_t cell_values = g.cells_x * o.bins;
  std::vector<float> histograms;  // carried rows, then the strip's
  std::vector<double> descriptors;
  int64_t carried = 0, next_block_row = 0;
  stream_rows<GreyStrip>(
      strips, read,
      [&](int64_t, GreyStrip& strip) {
        histograms.resize(static_cast<size_t>((carried + strip.cell_rows) * cell_values));
        pass.cell_histograms(o, g, strip.grey.data(), strip.first_cell_row * o.cell, strip.cell_rows,
                             histograms.data() + carried * cell_values);
        const int64_t rows = carried + strip.cell_rows, block_rows = rows - o.block + 1;
        if (block_rows > 0) {
          descriptors.resize(static_cast<size_t>(block_rows * g.blocks_x * g.descriptor_length));
          pass.normalize_blocks(o, g, histograms.data(), rows, descriptors.data());
          sink(next_block_row, block_rows, descriptors.data());
          next_block_row += block_rows;
        }
        carried = std::min<int64_t>(rows, o.block - 1);
        std::copy(histograms.end() - carried * cell_values, histograms.end(), histograms.begin());
      },
      progress);
}

// Dalal-Triggs blocks do not share cell histograms: each strip of block
// rows reads its pixels with the block - 1 cell rows below it again.
struct BlockStrip {
  int64_t first_block_row = 0, block_rows = 0;
  std::vector<double> planes;
};

void run_dalal_triggs_hog(FeatureRasterSource& source, const HogOptions& o, const HogGeometry& g, HogPass& pass,
                          const HogSink& sink, const ProgressFn& progress) {
  const int bands = source.info().bands;
  const int64_t strips = (g.blocks_y + o.strip_cells - 1) / o.strip_cells;
  auto read = [&](int64_t s) {
    BlockStrip strip;
    strip.first_block_row = s * o.strip_cells;
    strip.block_rows = std::min(o.strip_cells, g.blocks_y - strip.first_block_row);
    strip.planes = read_rows(source, o, strip.first_block_row * o.cell, (strip.block_rows + o.block - 1) * o.cell);
    return strip;
  };
  std::vector<double> descriptors;
  stream_rows<BlockStrip>(
      strips, read,
      [&](int64_t, BlockStrip& strip) {
        descriptors.resize(static_cast<size_t>(strip.block_rows * g.blocks_x * g.descriptor_length));
        pass.dalal_triggs_blocks(o, g, strip.planes.data(), bands, strip.first_block_row, strip.block_rows,
                                 descriptors.data());
        sink(strip.first_block_row, strip.block_rows, descriptors.data());
      },
      progress);
}

}  // namespace

void run_hog(FeatureRasterSource& source, const HogOptions& o, HogPass& pass, const HogSink& sink,
             const ProgressFn& progress) {
  const FeatureRasterInfo info = source.info();
  if (info.bands != 1 && info.bands != 3)
    throw Error(ErrorKind::BadInput, "HOG takes 1 band or 3 (R, G, B); the input has " + std::to_string(info.bands));
  const HogGeometry g = hog_geometry(info.width, info.height, o);
  if (o.variant == HogVariant::DalalTriggs)
    run_dalal_triggs_hog(source, o, g, pass, sink, progress);
  else
    run_skimage_hog(source, o, g, pass, sink, progress);
}

}  // namespace lsm
