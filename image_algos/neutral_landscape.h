#pragma once
// Neutral landscape model for test and sample rasters (lsm synth): a fractal
// (fBm) surface of value noise, classified into classes of equal expected
// proportion, as NLMR's nlm_fbm/util_classify and NLMpy do (With 1997;
// Etherington, Holland & O'Sullivan 2015). Every cell is computed from its
// coordinates and the seed alone, so any window can be generated on its own
// and rasters of any size stream out tile by tile.
#include <cstdint>
#include <vector>

#include "raster.h"

namespace lsm {

struct NeutralLandscapeOptions {
  int64_t width = 0, height = 0;  ///< raster size (cells), > 0
  int classes = 5;                ///< class codes 1..classes, 1..65535
  uint64_t seed = 1;              ///< same seed, same landscape
  double scale = 32;              ///< size of the largest features (cells), > 0
  double roughness = 0.5;         ///< amplitude ratio between octaves, in (0, 1); higher = more fragmented
  int octaves = 6;                ///< number of noise octaves, 1..16
};

class NeutralLandscape {
 public:
  /// Validates the options and estimates the class thresholds from a fixed
  /// sample of the surface. Throws lsm::Error(BadInput) naming a bad option.
  explicit NeutralLandscape(const NeutralLandscapeOptions& options);
  /// Fills `out` (row-major, window.width x window.height) with class codes.
  void classify(const Window& window, int32_t* out) const;
  /// The continuous surface value at a cell (about 0..1).
  double surface(int64_t col, int64_t row) const;

 private:
  NeutralLandscapeOptions o_;
  std::vector<double> thresholds_;  // classes - 1 ascending quantiles
};

}  // namespace lsm
