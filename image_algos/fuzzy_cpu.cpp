// The fast CPU backend of fuzzy connectedness: the volume is cut into slabs
// of whole slices (whole rows for an image), one per thread. In a round every
// slab runs the max-min propagation inside itself with a monotone radix heap;
// then the slabs exchange their borders: each border voxel takes
// min(K(u), mu(u, v)) from its neighbours u across the border when that is
// stronger, and goes into its slab's queue for the next round. Rounds stop
// when no border improves. Every value written is the strength of a real path
// and, at the end, no adjacency can improve any voxel: the fixed point of
// fuzzy_connectedness.h, hence the reference's floats bit for bit.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "error.h"
#include "fuzzy_connectedness.h"
#include "fuzzy_math.h"
#include "monotone_queue.h"

namespace lsm {

namespace {

// Queue keys: smaller = stronger (1.0 -> 0).
constexpr uint32_t kOneBits = 0x3F800000u;
uint32_t queue_key(float k) { return kOneBits - fuzzy_math::order_key(k); }

struct Slab {
  int64_t first = 0, last = 0;  // index range [first, last) of whole slices (or rows)
  MonotoneQueue queue;
  std::vector<float> head, tail;  // snapshots of the first and last slice for the exchange
  int64_t popped = 0;
};

class CpuFuzzyEngine final : public FuzzyEngine {
 public:
  void run(const VolumeView& volume, const AffinityParameters& affinity, const std::vector<Voxel>& seeds,
           float* scene, const ProgressFn& progress) override {
    check_seeds(volume, seeds);
    volume_ = volume;
    affinity_ = affinity;
    scene_ = scene;
    offsets_ = fuzzy_math::neighbour_offsets(affinity.adjacency, volume.depth > 1);
    // Slabs along the slowest axis: slices of a volume, rows of an image.
    const bool along_z = volume.depth > 1;
    const int64_t extent = along_z ? volume.depth : volume.height;
    stride_ = along_z ? volume.width * volume.height : volume.width;
    const int64_t slab_count = std::max<int64_t>(1, std::min<int64_t>(omp_get_max_threads(), extent / 8));
    slabs_.assign(static_cast<size_t>(slab_count), Slab{});
    for (int64_t s = 0; s < slab_count; ++s) {
      slabs_[s].first = extent * s / slab_count * stride_;
      slabs_[s].last = extent * (s + 1) / slab_count * stride_;
    }
    std::fill(scene, scene + volume.voxels(), 0.0f);
    for (const Voxel& v : seeds) {
      const int64_t i = (v.z * volume.height + v.y) * volume.width + v.x;
      scene[i] = 1.0f;
      slab_of(i).queue.push(queue_key(1.0f), i);
    }
    rounds_ = 0;
    for (;;) {
      ++rounds_;
#pragma omp parallel for schedule(static, 1)
      for (int64_t s = 0; s < slab_count; ++s) propagate(slabs_[s]);
      if (slab_count == 1) break;
      int64_t done = 0;
      for (const Slab& s : slabs_) done += s.popped;
      if (progress && !progress(std::min(0.99, static_cast<double>(done) / static_cast<double>(volume.voxels()))))
        throw Error(ErrorKind::Io, "interrupted");
#pragma omp parallel for schedule(static, 1)
      for (int64_t s = 0; s < slab_count; ++s) snapshot_borders(slabs_[s]);
      std::atomic<bool> improved{false};
#pragma omp parallel for schedule(static, 1)
      for (int64_t s = 0; s < slab_count; ++s)
        if (exchange_borders(s)) improved = true;
      if (!improved) break;
    }
    if (progress && !progress(1.0)) throw Error(ErrorKind::Io, "interrupted");
  }
  const char* name() const override { return "cpu"; }
  RunStats stats() const override { return {rounds_, 0.0, 0.0}; }

 private:
  Slab& slab_of(int64_t i) {
    for (Slab& s : slabs_)
      if (i < s.last) return s;
    return slabs_.back();
  }

  // Dijkstra-like max-min propagation inside the slab, from its queue.
  void propagate(Slab& slab) {
    const VolumeView& v = volume_;
    const int64_t plane = v.width * v.height;
    uint32_t key;
    int64_t i;
    while (slab.queue.pop(key, i)) {
      const float k = scene_[i];
      if (queue_key(k) != key) continue;  // stale: improved after this entry was queued
      ++slab.popped;
      const int64_t z = i / plane, y = (i % plane) / v.width, x = i % v.width;
      const float fc = v.values[i];
      for (int n = 0; n < offsets_.count; ++n) {
        const int64_t nx = x + offsets_.dx[n], ny = y + offsets_.dy[n], nz = z + offsets_.dz[n];
        if (nx < 0 || ny < 0 || nz < 0 || nx >= v.width || ny >= v.height || nz >= v.depth) continue;
        const int64_t j = (nz * v.height + ny) * v.width + nx;
        if (j < slab.first || j >= slab.last) continue;  // across the border: the exchange's job
        const float candidate = std::min(k, fuzzy_math::affinity(fc, v.values[j], affinity_));
        if (candidate > scene_[j]) {
          scene_[j] = candidate;
          slab.queue.push(queue_key(candidate), j);
        }
      }
    }
    slab.queue.clear();  // the next round may push stronger keys than this one popped
  }

  void snapshot_borders(Slab& slab) {
    slab.head.assign(scene_ + slab.first, scene_ + slab.first + stride_);
    slab.tail.assign(scene_ + slab.last - stride_, scene_ + slab.last);
  }

  // Border voxels of slab s take what their neighbours across the border
  // offer (from the snapshots, as those neighbours may change meanwhile).
  bool exchange_borders(int64_t s) {
    Slab& slab = slabs_[s];
    bool improved = false;
    if (s > 0) improved |= pull_across(slab, slab.first, slabs_[s - 1].tail, slabs_[s - 1].last - stride_, -1);
    if (s + 1 < static_cast<int64_t>(slabs_.size()))
      improved |= pull_across(slab, slab.last - stride_, slabs_[s + 1].head, slabs_[s + 1].first, +1);
    return improved;
  }

  // The slice (or row) starting at `border` takes from the neighbouring slab's
  // snapshot `other` (starting at index `other_first`), which lies in
  // direction `side` (-1 before, +1 after) along the slab axis.
  bool pull_across(Slab& slab, int64_t border, const std::vector<float>& other, int64_t other_first, int side) {
    const VolumeView& v = volume_;
    const bool along_z = v.depth > 1;
    bool improved = false;
    for (int64_t o = 0; o < stride_; ++o) {
      const int64_t i = border + o;
      const int64_t x = o % v.width, y = along_z ? o / v.width : 0;
      const float fc = v.values[i];
      float best = scene_[i];
      for (int n = 0; n < offsets_.count; ++n) {
        if ((along_z ? offsets_.dz[n] : offsets_.dy[n]) != side) continue;
        const int64_t nx = x + offsets_.dx[n], ny = y + (along_z ? offsets_.dy[n] : 0);
        if (nx < 0 || nx >= v.width || ny < 0 || ny >= (along_z ? v.height : 1)) continue;
        const int64_t u = ny * v.width + nx;  // offset inside the other slab's slice
        const float candidate = std::min(other[u], fuzzy_math::affinity(v.values[other_first + u], fc, affinity_));
        best = std::max(best, candidate);
      }
      if (best > scene_[i]) {
        scene_[i] = best;
        slab.queue.push(queue_key(best), i);
        improved = true;
      }
    }
    return improved;
  }

  VolumeView volume_;
  AffinityParameters affinity_;
  float* scene_ = nullptr;
  fuzzy_math::Offsets offsets_;
  int64_t stride_ = 1;
  std::vector<Slab> slabs_;
  int64_t rounds_ = 0;
};

}  // namespace

std::unique_ptr<FuzzyEngine> make_cpu_fuzzy_engine() { return std::make_unique<CpuFuzzyEngine>(); }

}  // namespace lsm
