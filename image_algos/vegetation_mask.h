#pragma once
// The segmentation step of Huo et al. (2014): after K-means on CIE L*a*b*
// pixels, the cluster with the most negative a* (green) is vegetation; its
// mask is cleaned by a morphological opening, then a closing.
#include <cstdint>
#include <vector>

#include "binary_morphology.h"
#include "kmeans.h"

namespace lsm {

/// Mask value of nodata cells in the vegetation mask (Byte raster: 0 other, 1 vegetation).
constexpr uint8_t kMaskNodata = 255;

/// Index (0-based) of the centre with the smallest a* (feature 1). Throws
/// lsm::Error(BadInput) unless the result has 3 bands (L*, a*, b*).
int greenest_cluster(const KMeansResult& result);

/// The mask of `cluster` from K-means labels (cluster + 1, 0 = nodata),
/// opened then closed with disks of the given radii (cells; 0 = skip).
/// Returns cells 1 (the cluster), 0 (other) and kMaskNodata (nodata).
std::vector<uint8_t> cluster_mask(const std::vector<uint16_t>& labels, int64_t width, int64_t height, int cluster,
                                  int open_radius, int close_radius);

}  // namespace lsm
