// The tile grid and the streaming of tile rows.
#include "error.h"
#include "test_helpers.h"
#include "tile_scheduler.h"

namespace lsm::test {
namespace {

RasterInfo info(int64_t w, int64_t h, int block_w, int block_h) {
  RasterInfo r;
  r.width = w;
  r.height = h;
  r.block_width = block_w;
  r.block_height = block_h;
  return r;
}

TEST(TileScheduler, DefaultGridAlignsRowsToBlocks) {
  const TileGrid g = plan_tiles(info(5000, 3000, 5000, 12));
  EXPECT_EQ(g.tile_width, 1024);
  EXPECT_EQ(g.tile_height % 12, 0);  // strips are read in whole blocks
  EXPECT_EQ(g.tile_height, 1020);
  EXPECT_EQ(g.cols, 5);
  EXPECT_EQ(g.rows, 3);
  const Window last = g.tile(2, 4);
  EXPECT_EQ(last.x0, 4096);
  EXPECT_EQ(last.width, 5000 - 4096);
  EXPECT_EQ(last.height, 3000 - 2040);
}

TEST(TileScheduler, WideRastersGetShorterStrips) {
  // 16 Mi cells per strip at most: 200000 columns allow 83 rows, rounded down to blocks of 64.
  const TileGrid g = plan_tiles(info(200000, 10000, 256, 64));
  EXPECT_EQ(g.tile_height, 64);
  EXPECT_LE(g.tile_height * g.raster.width, int64_t(16) << 20);
}

TEST(TileScheduler, ForcedSizesAndBadSizes) {
  const TileGrid g = plan_tiles(info(100, 50, 100, 1), 17, 1);
  EXPECT_EQ(g.cols, 6);
  EXPECT_EQ(g.rows, 50);
  EXPECT_EQ(plan_tiles(info(100, 50, 100, 1), 1000, 1000).tile_width, 100);  // clipped to the raster
  EXPECT_THROW(plan_tiles(info(100, 50, 100, 1), -1, 5), Error);
  EXPECT_THROW(plan_tiles(info(0, 50, 100, 1)), Error);
}

// Every tile's halo holds the neighbouring cells, or kNoClass beyond the raster.
TEST(TileScheduler, HalosHoldTheNeighbours) {
  auto raster = random_landscape(23, 19, 9, 11, 0.1);
  const TileGrid grid = plan_tiles(raster.info(), 5, 4);
  std::vector<double> progress;
  int64_t rows_seen = 0;
  stream_tile_rows(
      raster, grid,
      [&](int64_t row, std::vector<TileInput>& tiles) {
        EXPECT_EQ(row, rows_seen++);
        ASSERT_EQ(int64_t(tiles.size()), grid.cols);
        for (const TileInput& t : tiles)
          for (int64_t hy = 0; hy < t.window.height + 2; ++hy)
            for (int64_t hx = 0; hx < t.window.width + 2; ++hx) {
              const int64_t x = t.window.x0 - 1 + hx, y = t.window.y0 - 1 + hy;
              const bool inside = x >= 0 && y >= 0 && x < 23 && y < 19;
              ASSERT_EQ(t.halo_origin()[hy * t.stride() + hx], inside ? raster.cells()[y * 23 + x] : kNoClass)
                  << "tile " << t.window.x0 << "," << t.window.y0 << " cell " << x << "," << y;
            }
      },
      [&](double f) {
        progress.push_back(f);
        return true;
      });
  EXPECT_EQ(rows_seen, grid.rows);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.front(), 0.0);
  EXPECT_EQ(progress.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
}

TEST(TileScheduler, ProgressCanInterrupt) {
  auto raster = random_landscape(40, 40, 3, 2, 0.0);
  const TileGrid grid = plan_tiles(raster.info(), 10, 10);
  int calls = 0;
  EXPECT_THROW(stream_tile_rows(raster, grid, [&](int64_t, std::vector<TileInput>&) { ++calls; },
                                [](double f) { return f < 0.5; }),
               Error);
  EXPECT_EQ(calls, 2);  // stopped after the second of four tile rows
}

}  // namespace
}  // namespace lsm::test
