#pragma once
// Fuzzy connectedness (`lsm fuzzy`, issue 7): the kFOE of Udupa &
// Samarasekera (1996, "Fuzzy connectedness and object definition", Graphical
// Models and Image Processing 58(3)) on 2-D images and 3-D volumes.
//
// The connectivity of voxel v is the strength of the strongest path from any
// seed to v, a path being as strong as its weakest affinity:
//   K(v) = max over paths s = p0, p1, ..., pn = v of min_i mu(p_i-1, p_i),
// with K(seed) = 1. This is a max-min (bottleneck) path problem: every K(v)
// is one of the affinities (or 1), so any algorithm that reaches the fixed
// point  K(v) = max(K(v), max_u min(K(u), mu(u, v)))  from below gives the
// same floats bit for bit. How each backend reaches it, and why it is exact:
// docs/FUZZY.md.
//
// Affinity (the paper of issue 7, Li et al., after Udupa & Samarasekera):
//   mu(c, d) = sqrt(g1 g2) for adjacent c, d, 0 otherwise, where
//   g1 = exp(-(x1 - m)^2 / 2 sigma^2),  x1 = (f(c) + f(d)) / 2,
//   g2 = exp(-x2^2 / 2 sigma_d^2),       x2 = |f(c) - f(d)| / 2,
// evaluated as exp(-(x1 - m)^2 / 4 sigma^2 - x2^2 / 4 sigma_d^2) in float
// with fuzzy_math.h's exp, identically on the CPU and the GPU.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "progress.h"
#include "tile_labeler.h"  // Backend

namespace lsm {

/// A scalar image (depth 1) or volume: width x height x depth voxels of
/// float, slice-major then row-major (index = (z * height + y) * width + x).
/// NaN marks nodata: its affinities are 0, so it is never connected.
struct VolumeView {
  const float* values = nullptr;
  int64_t width = 0, height = 0, depth = 1;
  int64_t voxels() const { return width * height * depth; }
};

/// A voxel position (0-based column, row, slice).
struct Voxel {
  int64_t x = 0, y = 0, z = 0;
};

/// Which neighbours are adjacent: Face = 4 (2-D) / 6 (3-D) neighbours;
/// Full = 8 (2-D) / 26 (3-D) neighbours.
enum class Adjacency { Face, Full };

/// Object statistics of the affinity, in the image's units.
struct ObjectStatistics {
  double mean = 0;     ///< m: object mean intensity
  double sd = 0;       ///< sigma: object intensity SD (> 0)
  double sd_diff = 0;  ///< sigma_d: SD of half-differences of adjacent voxels (> 0)
};

/// Estimates the statistics from the box of (2r+1)^2 or (2r+1)^3 voxels
/// around each seed (clipped to the image; a voxel in several boxes counts
/// once; nodata skipped): mean and population SD of the intensities, and
/// sigma_d = sqrt(mean of x2^2) over face-adjacent pairs inside the
/// neighbourhood (the ML estimate for the zero-mean g2). Throws
/// lsm::Error(BadInput) when the neighbourhood holds no data, or when sigma
/// or sigma_d come out 0 (a uniform neighbourhood: give them explicitly).
ObjectStatistics estimate_object_statistics(const VolumeView& volume, const std::vector<Voxel>& seeds,
                                            int64_t radius);

/// The float coefficients every backend evaluates the affinity with.
struct AffinityParameters {
  float mean = 0;          ///< m
  float inv_4var = 0;      ///< 1 / (4 sigma^2)
  float inv_4var_diff = 0;  ///< 1 / (4 sigma_d^2)
  Adjacency adjacency = Adjacency::Face;
};

/// Checks the statistics (finite, sigma > 0, sigma_d > 0) and rounds the
/// coefficients to float. Throws lsm::Error(BadInput) naming the bad one.
AffinityParameters affinity_parameters(const ObjectStatistics& stats, Adjacency adjacency);

/// Checks that the volume is non-empty and every seed lies inside it on a
/// voxel with data. Throws lsm::Error(BadInput) naming the first bad seed.
void check_seeds(const VolumeView& volume, const std::vector<Voxel>& seeds);

/// The sequential kFOE (Udupa & Samarasekera 1996, algorithm kFOE): a
/// Dijkstra-like propagation from the seeds with a binary max-heap. The
/// reference every other backend is tested against, bit for bit.
/// `scene` gets volume.voxels() connectivities in [0, 1] (0 on nodata).
/// Throws lsm::Error(BadInput) for bad seeds.
void fuzzy_connectedness_reference(const VolumeView& volume, const AffinityParameters& affinity,
                                   const std::vector<Voxel>& seeds, float* scene);

/// A backend that computes the connectivity scene.
class FuzzyEngine {
 public:
  virtual ~FuzzyEngine() = default;
  /// As fuzzy_connectedness_reference, with progress. Throws
  /// lsm::Error(BadInput) for bad seeds, lsm::Error(Device) on CUDA failures.
  virtual void run(const VolumeView& volume, const AffinityParameters& affinity, const std::vector<Voxel>& seeds,
                   float* scene, const ProgressFn& progress = {}) = 0;
  virtual const char* name() const = 0;
  /// What the last run did, for benchmarks.
  struct RunStats {
    int64_t rounds = 0;            ///< CPU: border exchanges; CUDA: sweep rounds (x, y, z both ways)
    double transfer_seconds = 0;   ///< CUDA: host-device copies
    double propagate_seconds = 0;  ///< the propagation itself
  };
  virtual RunStats stats() const { return {}; }
};

/// The fast CPU backend: the max-min propagation in slabs of whole slices
/// (rows of an image), one per OpenMP thread, each with a monotone radix
/// heap, exchanging slab borders until no border gains (docs/FUZZY.md).
std::unique_ptr<FuzzyEngine> make_cpu_fuzzy_engine();

/// Relative fuzzy connectedness (Udupa, Saha & Lotufo 2002, "Relative fuzzy
/// connectedness and object definition", IEEE TPAMI 24(11)): object and
/// background seeds compete under one affinity; a voxel belongs to the object
/// when its connectivity to the object seeds K_O exceeds that to the
/// background seeds K_B. `scene` gets K_O where K_O > K_B, else 0. `engine`
/// computes both scenes (nullptr: the sequential reference). Throws
/// lsm::Error(BadInput) for bad seeds of either set.
void relative_fuzzy_connectedness(FuzzyEngine* engine, const VolumeView& volume, const AffinityParameters& affinity,
                                  const std::vector<Voxel>& object_seeds, const std::vector<Voxel>& background_seeds,
                                  float* scene, const ProgressFn& progress = {});

/// The engine of `backend` (Auto: CUDA when present); defined in lsm_engine.
/// Throws lsm::Error(Backend) when CUDA is asked for and absent.
std::unique_ptr<FuzzyEngine> make_fuzzy_engine(Backend backend);

}  // namespace lsm
