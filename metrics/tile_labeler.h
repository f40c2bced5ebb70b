#pragma once
// Labeling of one tile: the operation every backend (CPU reference in
// metrics/tile_labeler_cpu.cpp, CUDA in cuda/tile_labeler_cuda.cu) implements.
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

/// One tile of class codes with a 1-cell halo on every side.
struct TileInput {
  Window window;              ///< the tile's cells (without halo) in raster coordinates
  int64_t raster_width = 0;   ///< for first_cell = row * raster_width + col
  /// (window.width+2) x (window.height+2) class codes, row-major; halo cells
  /// outside the raster hold kNoClass.
  std::vector<int32_t> cells;

  int64_t stride() const { return window.width + 2; }
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

/// A labeling backend. One object labels many tiles; it may hold device
/// memory and streams between calls. Not thread-safe: one caller at a time.
class TileLabeler {
 public:
  virtual ~TileLabeler() = default;
  /// Backend name for messages ("cpu", "cuda").
  virtual std::string name() const = 0;
  /// Labels every tile of `tiles` into `out` (resized to tiles.size()).
  /// Backends may process the tiles concurrently. Throws lsm::Error.
  virtual void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                           std::vector<TileLabels>& out) = 0;
};

/// Which backend labels the tiles.
enum class Backend { Auto, Cpu, Cuda };

/// Parses "auto", "cpu" or "cuda"; throws lsm::Error(BadInput) otherwise.
Backend parse_backend(const std::string& text);

/// The multithreaded CPU reference backend (OpenMP over the tiles of a row).
std::unique_ptr<TileLabeler> make_cpu_labeler();

/// True when this build has the CUDA backend and a CUDA device is present.
bool cuda_available(std::string* why_not = nullptr);

/// Creates the labeler for `backend`: Auto picks CUDA when cuda_available(),
/// else the CPU. Throws lsm::Error(Backend) when CUDA is asked for but unavailable.
std::unique_ptr<TileLabeler> make_labeler(Backend backend);

}  // namespace lsm
