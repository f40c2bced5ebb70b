#pragma once
// A moving window's count-based metrics on an accelerator: the block of
// focal rows of a square window, as the CPU window job computes them
// (metrics/jobs/window_job.cpp) and with the same arithmetic
// (window_count_formulas.h), so that both give the same bits. The CUDA pass
// is cuda/window_counts_cuda.cu; make_window_count_pass() (defined in
// lsm_engine, metrics/backends) gives it where this build and the machine
// have CUDA.
#include <cstdint>
#include <memory>

#include "tile_labeler.h"
#include "window_count_formulas.h"

namespace lsm {

/// Class indices in a WindowCountPass's band of rows.
constexpr uint8_t kWindowOutsideIndex = 255;  ///< nodata, or beyond the raster
constexpr int32_t kWindowPassMaxClasses = 255;  ///< class indices 0..254
/// Cells of the largest window whose patches (NP ... SPLIT) the pass finds:
/// 45 x 45 (each cell may be a run of its own; run sizes fit 16 bits).
constexpr int kWindowPassMaxRuns = 2048;
/// Classes of the largest raster whose CONTAG the pass computes (each
/// thread keeps the k x k adjacencies of its window).
constexpr int kWindowPassMaxPairClasses = 32;

/// The window's shape as the pass takes it: row offset i - reach (i in
/// 0..2 reach) holds the cells dx in [-half_widths[i], half_widths[i]] (a
/// negative half width: none); `half` is the largest half width.
struct WindowSpans {
  const int32_t* half_widths = nullptr;  ///< 2 reach + 1 entries
  int32_t reach = 0;
  int32_t half = 0;
  int64_t cells = 0;  ///< cells in the window
};

/// Where the block of focal rows lies in the raster, for the window edge rule.
struct WindowBlockPlace {
  int64_t first_row = 0;     ///< raster row of the block's first focal row
  int64_t raster_height = 0;
  bool skip_partial = false; ///< WindowEdge::Skip: NaN where the window leaves the raster
};

class WindowCountPass {
 public:
  virtual ~WindowCountPass() = default;
  /// The values of `program`'s bands for `rows` focal rows of `width` cells,
  /// windows of the shape `spans`. `band`: (rows + 2 reach) x (width + 2 half)
  /// class indices, row-major, kWindowOutsideIndex for nodata and beyond the
  /// raster: focal cell (x, y) of the block is
  /// band[(y + reach) * (width + 2 half) + x + half]. `out`: rows x width x
  /// program.band_count values, cell-interleaved (a cell's bands at
  /// out[(y * width + x) * band_count + band.out_index]); NaN for a nodata
  /// focal cell or, under skip_partial, a window that leaves the raster.
  /// Throws lsm::Error(Device) on a device failure, lsm::Error(BadInput) for
  /// more than kWindowPassMaxClasses classes, patch bands in a window of
  /// over kWindowPassMaxRuns cells or CONTAG of over
  /// kWindowPassMaxPairClasses classes.
  virtual void run(const window_formulas::Program& program, const WindowSpans& spans, const uint8_t* band,
                   int64_t width, int64_t rows, const WindowBlockPlace& place, double* out) = 0;
  /// The devices it shares each block among (1 on one GPU).
  virtual int devices() const = 0;
  /// Whether every device has the shared memory for `program`'s counts
  /// (kChannels x classes per thread: about 180 classes on an H100 or H200,
  /// fewer on smaller GPUs); run() refuses (BadInput) a program it does not take.
  virtual bool takes(const window_formulas::Program& program) const = 0;
};

/// The CUDA pass, on every visible GPU (each takes a share of a block's
/// rows), when `backend` is Cuda or Auto and this build and the machine have
/// CUDA; null for Cpu, or Auto without a GPU. Throws lsm::Error(Backend)
/// when Cuda is asked for and absent.
std::unique_ptr<WindowCountPass> make_window_count_pass(Backend backend);

}  // namespace lsm
