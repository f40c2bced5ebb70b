#pragma once
// The host-side pieces of HOG's Dalal-Triggs variant shared by every
// backend (the arithmetic is hog_dalal_triggs_math.h): the block window,
// computed once on the host so that the CPU and the GPU use the same bits.
#include <vector>

#include "hog.h"
#include "hog_dalal_triggs_math.h"

namespace lsm {

/// The Gaussian-times-bilinear block window along one axis (the same for
/// rows and columns): see dalal_triggs::WindowView. `side` = block * cell.
struct DalalTriggsWindow {
  int side = 0;
  std::vector<int> first_cell;
  std::vector<double> first_weight, next_weight;
  dalal_triggs::WindowView view() const { return {first_cell.data(), first_weight.data(), next_weight.data()}; }
};

/// The window of `o` (sigma = o.window_sigma, or block * cell / 4 when 0).
/// Throws lsm::Error(BadInput) for a negative sigma.
DalalTriggsWindow dalal_triggs_window(const HogOptions& o);

/// bins / period in radians (period pi, or 2 pi when signed).
double dalal_triggs_angle_scale(const HogOptions& o);

}  // namespace lsm
