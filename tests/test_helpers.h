#pragma once
// Shared test helpers: grids from text, an independent brute-force labeling
// (breadth-first flood fill over the whole grid) to check the engine against,
// and scan shortcuts for every backend and tile size.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "memory_raster.h"
#include "patch_scan.h"

namespace lsm::test {

/// Grid from rows of text: a digit or letter is a class code (its char value
/// minus '0'), '.' is nodata. All rows must have the same length.
MemoryClassRaster grid(const std::vector<std::string>& rows, double cell = 1.0);

/// Brute-force reference: patches numbered in raster order of their first
/// cell, with the same counts as PatchStats (computed cell by cell).
struct Reference {
  std::vector<uint32_t> labels;  ///< 0 = nodata
  std::vector<PatchStats> patches;
};
Reference brute_force(const MemoryClassRaster& raster, NeighbourRule rule);

/// Scans `raster` with a labeler of `backend` and the given tile size (0 = auto).
PatchTable scan(MemoryClassRaster& raster, NeighbourRule rule, int64_t tile_w = 0, int64_t tile_h = 0,
                Backend backend = Backend::Cpu, bool keep_ids = false);
/// The patch-ID raster for the same options.
std::vector<uint32_t> patch_ids(MemoryClassRaster& raster, NeighbourRule rule, int64_t tile_w = 0,
                                int64_t tile_h = 0, Backend backend = Backend::Cpu);

/// A small random grid of `cw` x `ch` m cells for distance metrics: each cell
/// continues its left neighbour 40 % of the time, else is nodata 8 % of the
/// time, else a class 1..`classes` drawn from `rng`.
MemoryClassRaster random_run_grid(std::mt19937& rng, int64_t width, int64_t height, int classes, double cw, double ch);

/// A random-cluster-like landscape: fractal classes with nodata holes.
MemoryClassRaster random_landscape(int64_t width, int64_t height, int classes, uint64_t seed, double nodata_share);

/// The same raster with class codes that do not fit a byte, as for three-digit
/// CORINE codes: code c becomes 100 c + 11, and class 1 becomes -7 (codes may
/// be negative); nodata stays nodata. The CUDA tile path then uploads Int32
/// strips instead of packed bytes.
MemoryClassRaster with_wide_codes(const MemoryClassRaster& raster);

}  // namespace lsm::test

/// Skips the current test, with the reason, where no CUDA device is usable.
#define LSM_REQUIRE_CUDA()                                              \
  do {                                                                  \
    std::string lsm_why_;                                               \
    if (!::lsm::cuda_available(&lsm_why_))                              \
      GTEST_SKIP() << "CUDA backend not tested: " << lsm_why_;          \
  } while (0)
