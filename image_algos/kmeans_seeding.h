#pragma once
// The k-means++ seeding of lsm's K-means: a seeded sample of cells chosen by
// a hash of their raster index (so it does not depend on tiles or strips),
// and greedy k-means++ on it (Arthur & Vassilvitskii 2007; the greedy variant
// with 2 + ln k candidates per centre, as scikit-learn's KMeans uses).
#include <cstdint>
#include <vector>

namespace lsm {

/// True when the cell with raster index `cell` (row * width + col) belongs to
/// the sample; `threshold` = probability x 2^64 (see sample_threshold).
bool in_kmeans_sample(uint64_t cell, uint64_t seed, uint64_t threshold);
/// The threshold that samples about `target` of `cells` cells (all when target >= cells).
uint64_t sample_threshold(int64_t cells, int64_t target);

/// Greedy k-means++ on `points` (n x bands, cell-interleaved, no nodata).
/// Returns k centres [k][bands]. `run` selects an independent random stream
/// for each restart. Throws lsm::Error(BadInput) when fewer than k distinct
/// points exist (all remaining points coincide with chosen centres).
std::vector<float> kmeans_plus_plus(const std::vector<float>& points, int bands, int k, uint64_t seed, int run);

}  // namespace lsm
