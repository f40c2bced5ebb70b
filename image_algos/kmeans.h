#pragma once
// K-means clustering of the cells of a multiband raster (Lloyd's algorithm
// with k-means++ seeding, Arthur & Vassilvitskii 2007, in the greedy variant
// of scikit-learn), on the tile scheduler: every iteration is one streaming
// pass over the raster, or over a resident copy when the features fit in
// `resident_bytes` (then the CUDA backend keeps them in GPU memory).
//
// Huo et al. (2014), "CUDA-based parallel K-means clustering image
// segmentation", Trans. CSAM 45(11), is the seed paper: pixels in CIE
// L*a*b*, k = 4, the greenest cluster kept (vegetation_mask.h).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "feature_raster.h"
#include "kmeans_pass.h"
#include "progress.h"

namespace lsm {

struct KMeansOptions {
  int k = 0;                 ///< clusters, 1..65534
  int max_iter = 300;        ///< Lloyd iterations per run, >= 1
  double tol = 0;            ///< stop when no centre moves more than this (feature units, Euclidean); 0 = until no assignment changes
  int n_init = 1;            ///< k-means++ runs (restarts); the lowest inertia wins
  uint64_t seed = 0;         ///< seeds the sample and k-means++; same seed, same result
  std::vector<float> init;   ///< [k][bands] initial centres; empty = k-means++ (then n_init runs)
  int64_t strip_rows = 0;    ///< rows per streamed strip; 0 = 256 (the tile size of the scheduler)
  int64_t resident_bytes = int64_t(4) << 30;  ///< keep the features in memory when they take at most this
  int64_t sample_size = 1 << 17;              ///< cells sampled (seeded, tile-independent) for k-means++
};

/// The fitted model and how it was reached.
struct KMeansResult {
  int k = 0, bands = 0;
  std::vector<double> centres;       ///< [k][bands], feature units
  std::vector<int64_t> counts;       ///< [k]: cells assigned to each centre by the final assignment
  double inertia = 0;                ///< sum of squared distances of cells to their centre
  int iterations = 0;                ///< Lloyd iterations of the winning run
  bool converged = false;            ///< true: no assignment changed (or shift <= tol) before max_iter
  int best_run = 0;                  ///< which of the n_init runs won (0-based)
  std::vector<double> run_inertia;   ///< [n_init]: the final inertia of every run
  int64_t valid_cells = 0;           ///< cells that are not nodata
  int64_t sample_cells = 0;          ///< cells in the k-means++ sample
  bool resident = false;             ///< the features were held in memory across iterations
  double survey_seconds = 0;         ///< wall time of the first pass (ranges, sample, resident copy)
  double lloyd_seconds = 0;          ///< wall time of seeding and Lloyd's iterations of all runs
  double labels_seconds = 0;         ///< wall time of the final pass that delivers the labels
  int total_iterations = 0;          ///< Lloyd iterations of all runs (the passes timed in lloyd_seconds, plus one per run for the final counts when not converged)
};

/// Receives the class raster strip by strip: cluster index + 1, 0 for nodata.
using KMeansLabelFn = std::function<void(const Window& strip, const uint16_t* labels)>;

/// Fits K-means to the cells of `source` and, when `labels` is set, delivers
/// the final assignment. Empty clusters keep their previous centre (and count
/// 0). Throws lsm::Error(BadInput) for k < 1 or > 65534, a wrong-sized init,
/// max_iter < 1, n_init < 1, tol < 0, a raster without valid cells, more than
/// 2^39 valid cells, or k-means++ needing more centres than the sample has
/// distinct feature vectors.
KMeansResult run_kmeans(FeatureRasterSource& source, const KMeansOptions& options, KMeansPass& backend,
                        const KMeansLabelFn& labels = {}, const ProgressFn& progress = {});

/// Reads initial centres from a text file: k lines of `bands` numbers
/// (separated by spaces, tabs or commas; '#' starts a comment). Throws
/// lsm::Error(BadInput) naming the line when the file is unreadable, a line
/// has the wrong count, or there are not exactly k centres.
std::vector<float> read_centres_file(const std::string& path, int k, int bands);


}  // namespace lsm
