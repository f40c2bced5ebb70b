#pragma once
// One Lloyd pass of K-means over a block of cells: assign every cell to its
// nearest centre and sum, per cluster, the cell count and the features. The
// CPU implementation (kmeans_pass_cpu.cpp) is the reference; the CUDA one
// (cuda/kmeans_pass_cuda.cu) gives bit-identical sums and assignments.
//
// Why the sums are integers: each feature is rounded to a fixed-point integer
// (feature x scale, the scale a power of two chosen from the band's range) and
// summed in int64. Integer sums do not depend on the order of addition, so
// centres are identical whatever the backend, the number of threads or the
// tile size. Distances are float, computed in one fixed order without fused
// multiply-adds (kmeans_math.h), so assignments are identical too.
#include <cstdint>
#include <memory>
#include <vector>

#include "progress.h"
#include "tile_labeler.h"  // Backend

namespace lsm {

/// What a pass assigns against: k centres of `bands` features and the
/// fixed-point scales of the sums.
struct KMeansModel {
  int k = 0, bands = 0;
  std::vector<float> centres;        ///< [k][bands], row-major
  std::vector<float> feature_scale;  ///< [bands]: power of two; |feature| x scale <= 2^23
  float inertia_scale = 1;           ///< power of two; squared distance x scale <= 2^23
};

/// Per-cluster sums of a pass (fixed point, see above).
struct ClusterSums {
  std::vector<int64_t> feature_sums;  ///< [k][bands]: sum of round(feature x feature_scale)
  std::vector<int64_t> counts;        ///< [k]: cells assigned
  int64_t inertia = 0;                ///< sum of round(squared distance x inertia_scale)

  void reset(int k, int bands);
  void add(const ClusterSums& other);
};

/// Where a backend's own Lloyd loop (KMeansPass::iterate) ended.
struct LloydOutcome {
  std::vector<float> centres;  ///< [k][bands]: the centres after the last update
  ClusterSums sums;            ///< the sums of the last pass
  bool sums_final = false;     ///< that pass was against `centres` (else against the centres before the last update)
  int iterations = 0;          ///< passes run
  int step = 0;                ///< kmeans_update::LloydStep of the last update
};

/// A backend's pass. set_data() names the cells the next run() calls work on;
/// a backend may keep a copy (the CUDA one keeps them in GPU memory), so the
/// data of a raster that fits stays resident across iterations.
class KMeansPass {
 public:
  virtual ~KMeansPass() = default;
  /// `cells` feature vectors of `bands` floats, cell-interleaved; a cell whose
  /// first feature is NaN is nodata. The pointer must stay valid until the next
  /// set_data(). Throws lsm::Error(Device) on CUDA failures.
  virtual void set_data(const float* features, int64_t cells, int bands) = 0;
  /// Assigns each cell to the nearest centre of `model` (ties to the lower
  /// index) and adds to `sums` (which must be reset for model.k, model.bands).
  /// `labels` (nullable, host, one per cell): cluster index + 1, 0 for nodata.
  virtual void run(const KMeansModel& model, ClusterSums& sums, uint16_t* labels) = 0;
  /// Lloyd's iterations on the data of the last set_data(), from `start`,
  /// without returning to the caller between passes: each pass is followed by
  /// the update of kmeans_update.h (new centres, convergence test against
  /// `tol`, the next inertia scale from the data's band ranges lo/hi), up to
  /// `max_iter` passes. Gives the same steps as the caller's own loop would.
  /// `progress` gets the share of max_iter done, now and then. Returns false,
  /// doing nothing, when the backend has no loop of its own (the CPU, whose
  /// passes need no round trip). Throws lsm::Error(Device) on CUDA failures,
  /// lsm::Error(Io) when progress asks to stop.
  virtual bool iterate(const KMeansModel& start, const std::vector<double>& lo, const std::vector<double>& hi,
                       int max_iter, double tol, LloydOutcome& outcome, const ProgressFn& progress) {
    (void)start, (void)lo, (void)hi, (void)max_iter, (void)tol, (void)outcome, (void)progress;
    return false;
  }
  /// "cpu" or "cuda".
  virtual const char* name() const = 0;
};

/// The CPU reference, multithreaded with OpenMP.
std::unique_ptr<KMeansPass> make_cpu_kmeans_pass();

/// The pass of `backend` (Auto: CUDA when a device is present, else CPU);
/// defined in lsm_engine. Throws lsm::Error(Backend) when CUDA is asked for
/// and unavailable.
std::unique_ptr<KMeansPass> make_kmeans_pass(Backend backend);

}  // namespace lsm
