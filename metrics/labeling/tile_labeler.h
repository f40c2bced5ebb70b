#pragma once
// Labeling of one tile: the operation every backend (CPU reference in
// metrics/labeling/tile_labeler_cpu.cpp, CUDA in cuda/tile_labeler_cuda.cu) implements.
//
// Contract shared by all backends, so that their results are identical:
// - local patch labels are 1..count, numbered in raster order of each
//   fragment's first cell (row-major within the tile); 0 marks nodata;
// - PatchStats are exact integer counts; edges are looked up in the 1-cell
//   halo, so cells on the tile's border see their true neighbours.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "patch_stats.h"
#include "raster.h"

namespace lsm {

/// The class codes of one row of tiles, read once and shared by its tiles:
/// raster rows top .. top + rows - 1 (the tiles' rows with one halo row above
/// and below) and columns -1 .. raster width, so every tile's halo lies inside
/// it. Cells outside the raster hold kNoClass.
struct TileStrip {
  int64_t top = 0;     ///< raster row of the strip's first row (may be -1)
  int64_t rows = 0;    ///< rows held
  int64_t stride = 0;  ///< elements from one row to the next: raster width + 2
  std::vector<int32_t> cells;  ///< rows * stride class codes, row-major; cell (x, y) at (y - top) * stride + x + 1
};

/// One tile of class codes with a 1-cell halo on every side: a window of a
/// shared TileStrip.
struct TileInput {
  Window window;              ///< the tile's cells (without halo) in raster coordinates
  int64_t raster_width = 0;   ///< for first_cell = row * raster_width + col
  std::shared_ptr<const TileStrip> strip;  ///< holds the window and its halo

  /// Elements from one row of the tile to the next.
  int64_t stride() const { return strip->stride; }
  /// The halo cell (window.x0 - 1, window.y0 - 1); cell (x, y) of the tile
  /// (0-based, without halo) is at halo_origin()[(y + 1) * stride() + x + 1].
  const int32_t* halo_origin() const {
    return strip->cells.data() + (window.y0 - 1 - strip->top) * strip->stride + window.x0;
  }
};

/// The labeling of one tile.
struct TileLabels {
  uint32_t count = 0;                 ///< number of fragments (local labels 1..count)
  std::vector<PatchStats> fragments;  ///< fragments[label-1]
  /// Local labels along the tile's border, for the seam merge:
  /// top/bottom rows (window.width each), left/right columns (window.height each).
  std::vector<uint32_t> top, bottom, left, right;
  /// All local labels, row-major window.width x window.height; filled only
  /// when the labeling was asked for full labels (the patch-ID raster pass).
  std::vector<uint32_t> labels;
};

/// Which backend labels the tiles (Auto: the GPU when there is one).
enum class Backend { Auto, Cpu, Cuda };

/// A labeling backend. One object labels many tiles; it may hold device
/// memory and streams between calls. Not thread-safe: one caller at a time.
class TileLabeler {
 public:
  virtual ~TileLabeler() = default;
  /// Backend name for messages ("cpu", "cuda").
  virtual std::string name() const = 0;
  /// Where the labels are computed (never Auto): the identity callers test,
  /// instead of the name ("cuda x2" is CUDA too).
  virtual Backend backend() const { return Backend::Cpu; }
  /// Labels every tile of `tiles` into `out` (resized to tiles.size()).
  /// Backends may process the tiles concurrently. Throws lsm::Error.
  virtual void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                           std::vector<TileLabels>& out) = 0;
  /// The tile width, in cells, this backend labels best on a raster
  /// `raster_width` cells wide, used when the caller names none. The CPU
  /// backend runs a thread per tile and wants many narrow tiles; a GPU pays
  /// a fixed cost per tile (launches, a wait for its records) and wants the
  /// whole strip. Results never depend on it.
  virtual int64_t preferred_tile_width(int64_t raster_width) const {
    return raster_width < 1024 ? raster_width : 1024;
  }
};


/// Parses "auto", "cpu" or "cuda"; throws lsm::Error(BadInput) otherwise.
Backend parse_backend(const std::string& text);

/// The multithreaded CPU reference backend (OpenMP over the tiles of a row).
std::unique_ptr<TileLabeler> make_cpu_labeler();

/// True when this build has the CUDA backend and a CUDA device is present.
bool cuda_available(std::string* why_not = nullptr);

/// Creates the labeler for `backend`: Auto picks CUDA when cuda_available(),
/// else the CPU. Throws lsm::Error(Backend) when CUDA is asked for but unavailable.
/// CUDA uses this process's GPUs (gpus_of_this_process()): one labeler per
/// GPU, split among them (split_tile_labeler.h) when there are several.
std::unique_ptr<TileLabeler> make_labeler(Backend backend);

/// The GPUs (CUDA device ordinals, ascending) of process `local_rank` of the
/// `local_ranks` processes that share a host with `gpu_count` GPUs: every GPU
/// when it is alone; a contiguous, near-equal share of them when there are
/// no more processes than GPUs (4 GPUs, 2 processes: {0, 1} and {2, 3});
/// GPU local_rank mod gpu_count when there are more (processes then share a
/// GPU). Empty when gpu_count is 0. Throws lsm::Error(Internal) unless
/// 0 <= local_rank < local_ranks.
std::vector<int> gpus_of_host_rank(int gpu_count, int local_rank, int local_ranks);

/// Makes every CUDA backend of this process (labelers, second pass, window
/// counts, image passes) use only its share of the host's GPUs,
/// gpus_of_host_rank(), from now on: one MPI rank per GPU
/// (docs/SCALING.md). Called once, before any CUDA work, by the MPI start.
void use_gpu_share_of_host_rank(int local_rank, int local_ranks);

/// The CUDA devices this process uses: its share of the host's visible GPUs
/// (every visible one unless use_gpu_share_of_host_rank() was called).
/// Empty when the build or the machine has no CUDA.
std::vector<int> gpus_of_this_process();

}  // namespace lsm
