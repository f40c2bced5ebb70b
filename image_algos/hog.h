#pragma once
// Histograms of oriented gradients (`lsm hog`, issue 6): Dalal & Triggs
// (2005) descriptors over rasters of any size, in two variants:
//   * skimage (the default): as scikit-image's skimage.feature.hog computes
//     them (0.19; the operations are listed in hog_math.h);
//   * dalal-triggs: with the paper's Gaussian block window and trilinear
//     (orientation and cell) vote interpolation, as OpenCV's
//     cv::HOGDescriptor (hog_dalal_triggs_math.h).
//
// The skimage variant:
// The image is cut into cells of `cell` x `cell` pixels from its top-left
// corner (rows and columns beyond the last whole cell are ignored, except as
// the neighbours of central differences). Each cell gets a histogram of
// `bins` orientation bins over [0, 180) degrees (unsigned; [0, 360) with
// `signed_orientation`), each pixel voting its gradient magnitude into its
// bin, divided by the cell's pixel count. Blocks of `block` x `block` cells,
// one per cell position where the whole block fits, are normalised (L1,
// L1-sqrt, L2 or L2-Hys). A block's descriptor is its cells' histograms in
// row-major cell order, bins innermost: block x block x bins values, the
// layout of skimage's `feature_vector=False` output [block_row][block_col]
// [cell_row][cell_col][bin]. The dalal-triggs variant has the same blocks,
// layout and normalisations, but a pixel votes into the (up to four) cells of
// a block whose centres surround it, weighted by its distance to them and by
// a Gaussian centred on the block, so a block is not a sum of fixed cell
// histograms. (OpenCV orders a block's cells column-major and its blocks
// column-major; lsm keeps skimage's row-major order for both.)
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "feature_raster.h"
#include "progress.h"
#include "tile_labeler.h"  // Backend

namespace lsm {

/// Block normalisations of skimage's _hog_normalize_block (eps = 1e-5).
enum class HogNorm : int { L1 = 0, L1Sqrt = 1, L2 = 2, L2Hys = 3 };

/// "L1", "L1-sqrt", "L2" or "L2-Hys"; throws lsm::Error(BadInput) otherwise.
HogNorm parse_hog_norm(const std::string& name);

/// How votes are made (see the top of this file).
enum class HogVariant : int { Skimage = 0, DalalTriggs = 1 };

/// "skimage" or "dalal-triggs"; throws lsm::Error(BadInput) otherwise.
HogVariant parse_hog_variant(const std::string& name);

struct HogOptions {
  int cell = 8;    ///< pixels per cell side (1..64)
  int block = 3;   ///< cells per block side (1..8)
  int bins = 9;    ///< orientation bins (1..180)
  bool signed_orientation = false;  ///< bins over [0, 360) instead of [0, 180)
  HogNorm norm = HogNorm::L2Hys;
  HogVariant variant = HogVariant::Skimage;
  /// Dalal-Triggs: sigma of the Gaussian block window in pixels; 0 means
  /// OpenCV's default, block * cell / 4 (Dalal & Triggs quote 0.5 * block
  /// width). Ignored by the skimage variant.
  double window_sigma = 0;
  /// Each band is divided by this first. skimage: the grey levels are a
  /// 1-band source's value, or the BT.709 luma of a 3-band one (grey.h);
  /// use 255 for 8-bit photos, as skimage's img_as_float. Dalal-Triggs: each
  /// band's own gradient (the largest wins); use 1, as OpenCV, whose L2-Hys
  /// constants assume 0..255 values.
  double value_divisor = 1.0;
  int64_t strip_cells = 64;  ///< cell (skimage) or block (Dalal-Triggs) rows per strip (> 0)
};

/// The sizes derived from an image's size and the options.
struct HogGeometry {
  int64_t width = 0, height = 0;    ///< pixels
  int64_t cells_x = 0, cells_y = 0;   ///< whole cells: width / cell, height / cell
  int64_t blocks_x = 0, blocks_y = 0;  ///< block positions: cells - block + 1
  int descriptor_length = 0;          ///< block * block * bins values per block
};

/// Throws lsm::Error(BadInput) for options out of range, or when the image
/// is smaller than one block ("smaller than one HOG block of ...").
HogGeometry hog_geometry(int64_t width, int64_t height, const HogOptions& options);

/// A backend's two steps. The CPU implementation is the reference; the CUDA
/// one (cuda/hog_pass_cuda.cu) uses the same arithmetic (hog_math.h); its
/// double-precision atan2 and hypot may differ from the C library's by an
/// ulp, which moves a histogram total by at most one float ulp or, for an
/// orientation within an ulp of a bin edge, moves that pixel's vote.
class HogPass {
 public:
  virtual ~HogPass() = default;
  /// Cell histograms of `cell_rows` rows of cells starting at image row y0.
  /// `grey`: (cell_rows * cell + 2) x width grey levels, row-major: image
  /// rows y0 - 1 .. y0 + cell_rows * cell, any value where a row is outside
  /// the image (its gradient is zero there, as at the image's edges).
  /// `histograms`: cell_rows x cells_x x bins floats. Throws lsm::Error(Device).
  virtual void cell_histograms(const HogOptions& o, const HogGeometry& g, const double* grey, int64_t y0,
                               int64_t cell_rows, float* histograms) = 0;
  /// Normalised blocks of `cell_rows` (>= block) consecutive cell rows of
  /// histograms: (cell_rows - block + 1) x blocks_x x descriptor_length doubles.
  virtual void normalize_blocks(const HogOptions& o, const HogGeometry& g, const float* histograms,
                                int64_t cell_rows, double* descriptors) = 0;
  /// The Dalal-Triggs variant in one step: the normalised descriptors of
  /// `block_rows` rows of block positions from block row `first_block_row`.
  /// `planes`: `bands` (1 or 3, in R, G, B order) planes one after the
  /// other, each (rows + 2) x width values, rows = (block_rows + block - 1)
  /// * cell: image rows first_block_row * cell - 1 .. first_block_row * cell
  /// + rows, any value where a row is outside the image. `descriptors`:
  /// block_rows x blocks_x x descriptor_length doubles. Throws lsm::Error(Device).
  virtual void dalal_triggs_blocks(const HogOptions& o, const HogGeometry& g, const double* planes, int bands,
                                   int64_t first_block_row, int64_t block_rows, double* descriptors) = 0;
  virtual const char* name() const = 0;
};

/// The CPU reference, multithreaded with OpenMP.
std::unique_ptr<HogPass> make_cpu_hog_pass();

/// The pass of `backend` (Auto: CUDA when a device is present); defined in
/// lsm_engine. Throws lsm::Error(Backend) when CUDA is asked for and absent.
std::unique_ptr<HogPass> make_hog_pass(Backend backend);

/// Receives rows of blocks in order: `block_rows` x blocks_x x
/// descriptor_length doubles starting at block row `first_block_row`.
using HogSink = std::function<void(int64_t first_block_row, int64_t block_rows, const double* descriptors)>;

/// Streams a 1- or 3-band `source` strip by strip through `pass` and hands the block
/// rows to `sink`. Results do not depend on strip_cells. Throws
/// lsm::Error(BadInput) for bad options, another band count or an image
/// smaller than a block, and whatever the source, pass or sink throw.
/// Nodata (NaN) spreads as in skimage: a pixel whose gradient touches one
/// votes NaN into every bin of its cell (Dalal-Triggs: of every cell it
/// weighs into), so the blocks holding that cell are NaN.
void run_hog(FeatureRasterSource& source, const HogOptions& options, HogPass& pass, const HogSink& sink,
             const ProgressFn& progress = {});

}  // namespace lsm
