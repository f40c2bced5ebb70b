#include "tile_scheduler.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <new>
#include <string>

#include "error.h"

namespace lsm {

namespace {

std::string gigabytes(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", double(bytes) / 1e9);
  return text;
}

}  // namespace

Window TileGrid::tile(int64_t row, int64_t col) const {
  Window w;
  w.x0 = col * tile_width;
  w.y0 = row * tile_height;
  w.width = std::min(tile_width, raster.width - w.x0);
  w.height = std::min(tile_height, raster.height - w.y0);
  return w;
}

TileGrid plan_tiles(const RasterInfo& raster, int64_t tile_width, int64_t tile_height, int64_t max_strip_cells) {
  if (raster.width <= 0 || raster.height <= 0) throw Error(ErrorKind::BadInput, "the raster has no cells");
  if (tile_width < 0 || tile_height < 0) throw Error(ErrorKind::BadInput, "tile size must be positive");
  // 16 Mi cells a strip at most: the scheduler holds three strips of int32
  // codes, and the second pass a strip of labels and one of patch IDs as
  // well (about 300 MB at this size).
  constexpr int64_t kStripCells = int64_t(16) << 20;
  TileGrid g;
  g.raster = raster;
  g.tile_width = tile_width ? tile_width : std::min<int64_t>(1024, raster.width);
  if (tile_height) {
    g.tile_height = tile_height;
  } else {
    const int64_t block = std::max(1, raster.block_height);
    int64_t rows = std::max<int64_t>(block, (1024 / block) * block);
    const int64_t strip_cells = max_strip_cells > 0 ? std::min(max_strip_cells, kStripCells) : kStripCells;
    const int64_t max_rows = std::max<int64_t>(1, strip_cells / raster.width);
    if (rows > max_rows) rows = std::max<int64_t>(std::min(block, max_rows), (max_rows / block) * block);
    g.tile_height = rows;
  }
  g.tile_width = std::min(g.tile_width, raster.width);
  g.tile_height = std::min(g.tile_height, raster.height);
  // The scheduler reads whole rows: refuse before any work a raster whose
  // strips (three of them, with halo rows and columns) exceed the memory.
  const double strip_bytes = double(g.tile_height + 2) * double(raster.width + 2) * 4;
  static const double memory = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));  // asked once
  if (memory > 0 && 3 * strip_bytes > memory)
    throw Error(ErrorKind::BadInput, "a row of " + std::to_string(raster.width) + " cells needs " +
                                         gigabytes(static_cast<size_t>(3 * strip_bytes)) + " GB in three strips of " +
                                         std::to_string(g.tile_height + 2) + " rows, more than this machine's " +
                                         gigabytes(static_cast<size_t>(memory)) +
                                         " GB: the raster is too wide (lsm reads whole rows; split it into columns)");
  g.cols = (raster.width + g.tile_width - 1) / g.tile_width;
  g.rows = (raster.height + g.tile_height - 1) / g.tile_height;
  return g;
}

namespace {

// Strips whose tiles are all gone are read into again: a fresh strip of tens
// of MB costs more in page faults and clearing than reading it does.
class StripPool {
 public:
  std::shared_ptr<TileStrip> take(size_t cells) {
    for (const auto& s : strips_)
      if (s.use_count() == 1 && s->cells.size() == cells) {  // only the pool holds it
        // Pairs with the release in the last tile's reference drop, so the
        // compute thread's reads of the strip happen before our writes.
        std::atomic_thread_fence(std::memory_order_acquire);
        return s;
      }
    auto fresh = std::make_shared<TileStrip>();
    try {
      fresh->cells.assign(cells, kNoClass);
    } catch (const std::bad_alloc&) {
      throw Error(ErrorKind::BadInput, "a strip of " + std::to_string(cells) + " cells (" + gigabytes(cells * 4) +
                                           " GB) does not fit in memory: the raster is too wide for this machine");
    }
    if (strips_.size() < kKept) strips_.push_back(fresh);
    return fresh;
  }

 private:
  static constexpr size_t kKept = 3;  // the strip computed on, the one read, one spare
  std::vector<std::shared_ptr<TileStrip>> strips_;
};

// Reads the strip of tile row `row` (with one halo row above and below, and
// a column of nodata on either side) in one large window, so that GDAL
// decodes its blocks in parallel; the row's tiles are views of it.
std::vector<TileInput> read_tile_row(ClassRasterSource& source, const TileGrid& grid, int64_t row, StripPool& pool) {
  const RasterInfo& r = grid.raster;
  const Window first = grid.tile(row, 0);
  const int64_t rows = first.height + 2, stride = r.width + 2;
  std::shared_ptr<TileStrip> strip = pool.take(static_cast<size_t>(rows * stride));
  strip->top = first.y0 - 1;
  strip->rows = rows;
  strip->stride = stride;
  const int64_t y_begin = std::max<int64_t>(0, first.y0 - 1);
  const int64_t y_end = std::min<int64_t>(r.height, first.y0 + first.height + 1);
  // The side columns are never written, so they stay nodata; halo rows
  // outside the raster are cleared, as a reused strip may hold cells there.
  int32_t* cells = strip->cells.data();
  std::fill(cells, cells + (y_begin - strip->top) * stride, kNoClass);
  std::fill(cells + (y_end - strip->top) * stride, cells + rows * stride, kNoClass);
  source.read(Window{0, y_begin, r.width, y_end - y_begin}, cells + (y_begin - strip->top) * stride + 1, stride);

  std::vector<TileInput> tiles(static_cast<size_t>(grid.cols));
  for (int64_t col = 0; col < grid.cols; ++col) {
    TileInput& t = tiles[col];
    t.window = grid.tile(row, col);
    t.raster_width = r.width;
    t.strip = strip;
  }
  return tiles;
}

}  // namespace

void stream_tile_rows(ClassRasterSource& source, const TileGrid& grid, const TileRowFn& compute,
                      const ProgressFn& progress) {
  StripPool pool;  // used by one read at a time: each starts after the previous one is done
  stream_rows<std::vector<TileInput>>(
      grid.rows, [&](int64_t row) { return read_tile_row(source, grid, row, pool); }, compute, progress);
}

}  // namespace lsm
