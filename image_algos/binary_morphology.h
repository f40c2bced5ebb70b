#pragma once
// Binary morphology with a disk structuring element (the cells within
// Euclidean distance R of the centre), on a mask held in memory. Used to clean
// the K-means vegetation mask (Huo et al. 2014: erosion and dilation remove
// specks). Cells beyond the raster's edge neither erode nor dilate anything.
#include <cstdint>
#include <vector>

namespace lsm {

/// A width x height mask, row-major: 1 = foreground, 0 = background.
struct BinaryMask {
  int64_t width = 0, height = 0;
  std::vector<uint8_t> cells;
};

/// Erosion: a cell stays 1 when every cell of the disk of radius R around it
/// (inside the raster) is 1. R = 0 copies. Throws lsm::Error(BadInput) for R < 0.
BinaryMask erode_disk(const BinaryMask& mask, int radius);
/// Dilation: a cell becomes 1 when any cell of the disk around it is 1.
BinaryMask dilate_disk(const BinaryMask& mask, int radius);
/// Opening (erosion, then dilation): removes foreground specks smaller than the disk.
BinaryMask open_disk(const BinaryMask& mask, int radius);
/// Closing (dilation, then erosion): fills background holes smaller than the disk.
BinaryMask close_disk(const BinaryMask& mask, int radius);

}  // namespace lsm
