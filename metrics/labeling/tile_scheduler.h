#pragma once
// The tile scheduler shared by every raster operation of lsm: it cuts the
// raster into a grid of tiles and streams it tile row by tile row, reading the
// next row of tiles on a background thread while the caller computes on the
// current one. Host memory is bounded by two strips of tiles (the one being
// computed and the one being read), never by the raster's size.
#include <cstdint>
#include <functional>
#include <future>
#include <vector>

#include "error.h"
#include "progress.h"
#include "raster.h"
#include "tile_labeler.h"

namespace lsm {

/// The grid of tiles over a raster. Tiles are tile_width x tile_height cells,
/// the last column and row of tiles may be smaller.
struct TileGrid {
  RasterInfo raster;
  int64_t tile_width = 0, tile_height = 0;
  int64_t cols = 0, rows = 0;  ///< number of tiles across and down

  /// The window of tile (row, col), in raster coordinates.
  Window tile(int64_t row, int64_t col) const;
};

/// Plans the tile grid. tile_width/tile_height = 0 picks them: 1024 cells
/// across, and a multiple of the source's block height near 1024 down (so
/// strips are read in whole blocks), shrunk so that a strip of tiles holds at
/// most `max_strip_cells` (0: 16 Mi) cells. Throws lsm::Error(BadInput) for
/// negative sizes or an empty raster.
TileGrid plan_tiles(const RasterInfo& raster, int64_t tile_width = 0, int64_t tile_height = 0,
                    int64_t max_strip_cells = 0);

/// The streaming core every operation shares: calls `read(row)` for rows
/// 1..rows-1 on a background thread, one row ahead (row 0 on the caller's), and `compute(row, item)`
/// on the calling thread in row order, so reading row r+1 overlaps computing
/// row r. `progress` gets (rows done / rows); returning false stops with
/// lsm::Error(Io, "interrupted"). Exceptions from `read` or `compute`
/// propagate after the reader thread has finished.
template <class Item, class ReadFn, class ComputeFn>
void stream_rows(int64_t rows, ReadFn read, ComputeFn compute, const ProgressFn& progress = {}) {
  if (progress && !progress(0.0)) throw Error(ErrorKind::Io, "interrupted");
  // The first row is read here: nothing would overlap its read. (Small
  // landscapes, a zone's say, are one row: then no thread starts at all.)
  std::future<Item> next;
  for (int64_t row = 0; row < rows; ++row) {
    Item item = row == 0 ? read(int64_t(0)) : next.get();
    if (row + 1 < rows) next = std::async(std::launch::async, read, row + 1);
    try {
      compute(row, item);
    } catch (...) {
      if (next.valid()) next.wait();  // never leave the reader running on a source we are abandoning
      throw;
    }
    if (progress && !progress(double(row + 1) / double(rows))) {
      if (next.valid()) next.wait();
      throw Error(ErrorKind::Io, "interrupted");
    }
  }
}

/// Called once per tile row, in order, with that row's tiles (each with its
/// 1-cell halo filled from the neighbouring rows and columns).
using TileRowFn = std::function<void(int64_t tile_row, std::vector<TileInput>& tiles)>;

/// Streams every tile row of `grid` from `source` through `compute`. Reading
/// row r+1 overlaps computing row r. `progress` gets (rows done / rows).
/// Exceptions from the source or from `compute` propagate after the reader
/// thread has finished.
void stream_tile_rows(ClassRasterSource& source, const TileGrid& grid, const TileRowFn& compute,
                      const ProgressFn& progress = {});

}  // namespace lsm
