// The CPU reference of a K-means pass: OpenMP threads over blocks of cells,
// each with its own integer sums, added at the end (exact, so the result does
// not depend on the number of threads).
#include <omp.h>

#include <algorithm>

#include "kmeans_math.h"
#include "kmeans_pass.h"

namespace lsm {

void ClusterSums::reset(int k, int bands) {
  feature_sums.assign(static_cast<size_t>(k) * bands, 0);
  counts.assign(static_cast<size_t>(k), 0);
  inertia = 0;
}

void ClusterSums::add(const ClusterSums& o) {
  for (size_t i = 0; i < feature_sums.size(); ++i) feature_sums[i] += o.feature_sums[i];
  for (size_t i = 0; i < counts.size(); ++i) counts[i] += o.counts[i];
  inertia += o.inertia;
}

namespace {

class CpuKMeansPass final : public KMeansPass {
 public:
  // kBands > 0: the band count at compile time; 0: m.bands at run time.
  template <int kBands>
  void run_bands(const KMeansModel& m, ClusterSums& sums, uint16_t* labels) {
    const int k = m.k, bands = kBands > 0 ? kBands : m.bands;
    const float* centres = m.centres.data();
    const float* scale = m.feature_scale.data();
#pragma omp parallel
    {
      ClusterSums local;
      local.reset(k, bands);
      int64_t* feature_sums = local.feature_sums.data();
      int64_t* counts = local.counts.data();
      int64_t inertia = 0;
#pragma omp for schedule(static, 4096) nowait
      for (int64_t i = 0; i < cells_; ++i) {
        const float* f = features_ + i * bands;
        if (f[0] != f[0]) {  // nodata
          if (labels) labels[i] = 0;
          continue;
        }
        float d2;
        const int j = kmeans_math::nearest_centre(f, centres, k, bands, &d2);
        if (labels) labels[i] = static_cast<uint16_t>(j + 1);
        int64_t* s = feature_sums + static_cast<size_t>(j) * bands;
        for (int b = 0; b < bands; ++b) s[b] += kmeans_math::to_fixed(kmeans_math::mul(f[b], scale[b]));
        ++counts[j];
        inertia += kmeans_math::to_fixed(kmeans_math::mul(d2, m.inertia_scale));
      }
      local.inertia = inertia;
#pragma omp critical(lsm_kmeans_sums)
      sums.add(local);
    }
  }

  void set_data(const float* features, int64_t cells, int bands) override {
    features_ = features;
    cells_ = cells;
    bands_ = bands;
  }

  void run(const KMeansModel& m, ClusterSums& sums, uint16_t* labels) override {
    switch (m.bands) {  // common band counts get unrolled loops
      case 1: return run_bands<1>(m, sums, labels);
      case 2: return run_bands<2>(m, sums, labels);
      case 3: return run_bands<3>(m, sums, labels);
      case 4: return run_bands<4>(m, sums, labels);
      default: return run_bands<0>(m, sums, labels);
    }
  }

  const char* name() const override { return "cpu"; }

 private:
  const float* features_ = nullptr;
  int64_t cells_ = 0;
  int bands_ = 0;
};

}  // namespace

std::unique_ptr<KMeansPass> make_cpu_kmeans_pass() { return std::make_unique<CpuKMeansPass>(); }

}  // namespace lsm
