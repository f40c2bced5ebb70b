#include "hog_dalal_triggs.h"

#include <cmath>

#include "error.h"

namespace lsm {

DalalTriggsWindow dalal_triggs_window(const HogOptions& o) {
  if (!(o.window_sigma >= 0)) throw Error(ErrorKind::BadInput, "--window-sigma must be 0 (the default) or positive");
  DalalTriggsWindow w;
  w.side = o.block * o.cell;
  const double sigma = o.window_sigma > 0 ? o.window_sigma : w.side / 4.0;
  for (int t = 0; t < w.side; ++t) {
    // OpenCV's window is centred on pixel side / 2, not between pixels.
    const double d = t - w.side / 2.0;
    const double gauss = std::exp(-(d * d) / (2 * sigma * sigma));
    const double centre = (t + 0.5) / o.cell - 0.5;  // in cell units, cell k's centre at k
    const double first = std::floor(centre), frac = centre - first;
    const int k = static_cast<int>(first);
    w.first_cell.push_back(k);
    w.first_weight.push_back(k >= 0 && k < o.block ? gauss * (1 - frac) : 0.0);
    w.next_weight.push_back(k + 1 >= 0 && k + 1 < o.block ? gauss * frac : 0.0);
  }
  return w;
}

double dalal_triggs_angle_scale(const HogOptions& o) {
  const double pi = 3.14159265358979323846;
  return o.bins / (o.signed_orientation ? 2 * pi : pi);
}

}  // namespace lsm
