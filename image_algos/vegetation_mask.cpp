#include "vegetation_mask.h"

#include "error.h"

namespace lsm {

int greenest_cluster(const KMeansResult& r) {
  if (r.bands != 3)
    throw Error(ErrorKind::BadInput, "selecting the greenest cluster needs L*a*b* features (--color-space lab)");
  int best = 0;
  for (int j = 1; j < r.k; ++j)
    if (r.centres[j * 3 + 1] < r.centres[best * 3 + 1]) best = j;
  return best;
}

std::vector<uint8_t> cluster_mask(const std::vector<uint16_t>& labels, int64_t width, int64_t height, int cluster,
                                  int open_radius, int close_radius) {
  if (labels.size() != static_cast<size_t>(width * height))
    throw Error(ErrorKind::Internal, "label raster size does not match the mask");
  BinaryMask m{width, height, std::vector<uint8_t>(labels.size())};
  for (size_t i = 0; i < labels.size(); ++i) m.cells[i] = labels[i] == cluster + 1;
  // Nodata is background while cleaning, then restored.
  if (open_radius > 0) m = open_disk(m, open_radius);
  if (close_radius > 0) m = close_disk(m, close_radius);
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] == 0) m.cells[i] = kMaskNodata;
  return m.cells;
}

}  // namespace lsm
