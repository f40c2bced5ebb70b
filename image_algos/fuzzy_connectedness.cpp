// Object statistics, parameter checks and the sequential kFOE reference.
#include "fuzzy_connectedness.h"

#include <cmath>
#include <queue>
#include <string>
#include <utility>

#include "error.h"
#include "fuzzy_math.h"

namespace lsm {

namespace {

std::string voxel_text(const Voxel& v, bool volume) {
  return std::to_string(v.x) + "," + std::to_string(v.y) + (volume ? "," + std::to_string(v.z) : "");
}

int64_t index_of(const VolumeView& v, int64_t x, int64_t y, int64_t z) { return (z * v.height + y) * v.width + x; }

}  // namespace

void check_seeds(const VolumeView& volume, const std::vector<Voxel>& seeds) {
  if (volume.width <= 0 || volume.height <= 0 || volume.depth <= 0)
    throw Error(ErrorKind::BadInput, "the image is empty");
  if (seeds.empty()) throw Error(ErrorKind::BadInput, "no seed given");
  const bool is_volume = volume.depth > 1;
  for (const Voxel& s : seeds) {
    if (s.x < 0 || s.y < 0 || s.z < 0 || s.x >= volume.width || s.y >= volume.height || s.z >= volume.depth)
      throw Error(ErrorKind::BadInput, "seed " + voxel_text(s, is_volume) + " lies outside the " +
                                           std::to_string(volume.width) + " x " + std::to_string(volume.height) +
                                           (is_volume ? " x " + std::to_string(volume.depth) : "") + " image");
    if (std::isnan(volume.values[index_of(volume, s.x, s.y, s.z)]))
      throw Error(ErrorKind::BadInput, "seed " + voxel_text(s, is_volume) + " lies on nodata");
  }
}

ObjectStatistics estimate_object_statistics(const VolumeView& volume, const std::vector<Voxel>& seeds,
                                            int64_t radius) {
  check_seeds(volume, seeds);
  if (radius < 0) throw Error(ErrorKind::BadInput, "--seed-radius must not be negative");
  // The union of the seed boxes, as a mask over their bounding box only.
  int64_t x0 = volume.width, y0 = volume.height, z0 = volume.depth, x1 = 0, y1 = 0, z1 = 0;
  const int64_t rz = volume.depth > 1 ? radius : 0;
  for (const Voxel& s : seeds) {
    x0 = std::min(x0, std::max<int64_t>(0, s.x - radius));
    y0 = std::min(y0, std::max<int64_t>(0, s.y - radius));
    z0 = std::min(z0, std::max<int64_t>(0, s.z - rz));
    x1 = std::max(x1, std::min(volume.width, s.x + radius + 1));
    y1 = std::max(y1, std::min(volume.height, s.y + radius + 1));
    z1 = std::max(z1, std::min(volume.depth, s.z + rz + 1));
  }
  const int64_t bw = x1 - x0, bh = y1 - y0, bd = z1 - z0;
  std::vector<uint8_t> inside(static_cast<size_t>(bw * bh * bd), 0);
  for (const Voxel& s : seeds)
    for (int64_t z = std::max(z0, s.z - rz); z < std::min(z1, s.z + rz + 1); ++z)
      for (int64_t y = std::max(y0, s.y - radius); y < std::min(y1, s.y + radius + 1); ++y)
        for (int64_t x = std::max(x0, s.x - radius); x < std::min(x1, s.x + radius + 1); ++x)
          inside[((z - z0) * bh + (y - y0)) * bw + (x - x0)] = 1;
  auto value_at = [&](int64_t x, int64_t y, int64_t z, double& f) {
    if (x >= x1 || y >= y1 || z >= z1 || !inside[((z - z0) * bh + (y - y0)) * bw + (x - x0)]) return false;
    f = volume.values[index_of(volume, x, y, z)];
    return !std::isnan(f);
  };
  double sum = 0, sum2 = 0, diff2 = 0;
  int64_t n = 0, pairs = 0;
  for (int64_t z = z0; z < z1; ++z)
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) {
        double f, g;
        if (!value_at(x, y, z, f)) continue;
        sum += f;
        sum2 += f * f;
        ++n;
        const int64_t next[3][3] = {{x + 1, y, z}, {x, y + 1, z}, {x, y, z + 1}};
        for (const auto& d : next)
          if (value_at(d[0], d[1], d[2], g)) {
            const double half = (f - g) / 2;
            diff2 += half * half;
            ++pairs;
          }
      }
  if (n == 0) throw Error(ErrorKind::BadInput, "the seed neighbourhood holds no data");
  ObjectStatistics s;
  s.mean = sum / n;
  s.sd = std::sqrt(std::max(0.0, sum2 / n - s.mean * s.mean));
  s.sd_diff = pairs ? std::sqrt(diff2 / pairs) : 0.0;
  if (!(s.sd > 0))
    throw Error(ErrorKind::BadInput, "the seed neighbourhood is uniform (object SD 0): give --sd, or a larger --seed-radius");
  if (!(s.sd_diff > 0))
    throw Error(ErrorKind::BadInput,
                "adjacent voxels of the seed neighbourhood do not differ (SD of differences 0): give --sd-diff");
  return s;
}

AffinityParameters affinity_parameters(const ObjectStatistics& stats, Adjacency adjacency) {
  if (!std::isfinite(stats.mean)) throw Error(ErrorKind::BadInput, "the object mean must be finite");
  if (!(stats.sd > 0) || !std::isfinite(stats.sd)) throw Error(ErrorKind::BadInput, "the object SD must be positive");
  if (!(stats.sd_diff > 0) || !std::isfinite(stats.sd_diff))
    throw Error(ErrorKind::BadInput, "the SD of differences must be positive");
  AffinityParameters a;
  a.mean = static_cast<float>(stats.mean);
  a.inv_4var = static_cast<float>(1.0 / (4.0 * stats.sd * stats.sd));
  a.inv_4var_diff = static_cast<float>(1.0 / (4.0 * stats.sd_diff * stats.sd_diff));
  a.adjacency = adjacency;
  return a;
}

void fuzzy_connectedness_reference(const VolumeView& volume, const AffinityParameters& affinity,
                                   const std::vector<Voxel>& seeds, float* scene) {
  check_seeds(volume, seeds);
  const fuzzy_math::Offsets offsets = fuzzy_math::neighbour_offsets(affinity.adjacency, volume.depth > 1);
  std::fill(scene, scene + volume.voxels(), 0.0f);
  // kFOE: the queue holds (connectivity, voxel); a voxel popped with the
  // connectivity it still has is final (no stronger path can appear later,
  // as paths only weaken), stale entries are skipped.
  std::priority_queue<std::pair<float, int64_t>> queue;
  for (const Voxel& s : seeds) {
    const int64_t i = index_of(volume, s.x, s.y, s.z);
    scene[i] = 1.0f;
    queue.push({1.0f, i});
  }
  const int64_t plane = volume.width * volume.height;
  while (!queue.empty()) {
    const auto [k, i] = queue.top();
    queue.pop();
    if (k != scene[i]) continue;
    const int64_t z = i / plane, y = (i % plane) / volume.width, x = i % volume.width;
    const float fc = volume.values[i];
    for (int n = 0; n < offsets.count; ++n) {
      const int64_t nx = x + offsets.dx[n], ny = y + offsets.dy[n], nz = z + offsets.dz[n];
      if (nx < 0 || ny < 0 || nz < 0 || nx >= volume.width || ny >= volume.height || nz >= volume.depth) continue;
      const int64_t j = index_of(volume, nx, ny, nz);
      const float candidate = std::min(k, fuzzy_math::affinity(fc, volume.values[j], affinity));
      if (candidate > scene[j]) {
        scene[j] = candidate;
        queue.push({candidate, j});
      }
    }
  }
}

void relative_fuzzy_connectedness(FuzzyEngine* engine, const VolumeView& volume, const AffinityParameters& affinity,
                                  const std::vector<Voxel>& object_seeds, const std::vector<Voxel>& background_seeds,
                                  float* scene, const ProgressFn& progress) {
  check_seeds(volume, object_seeds);
  check_seeds(volume, background_seeds);
  std::vector<float> background(static_cast<size_t>(volume.voxels()));
  if (engine) {
    engine->run(volume, affinity, object_seeds, scene, scaled_progress(progress, 0.0, 0.5));
    engine->run(volume, affinity, background_seeds, background.data(), scaled_progress(progress, 0.5, 1.0));
  } else {
    fuzzy_connectedness_reference(volume, affinity, object_seeds, scene);
    fuzzy_connectedness_reference(volume, affinity, background_seeds, background.data());
    if (progress && !progress(1.0)) throw Error(ErrorKind::Io, "interrupted");
  }
  for (int64_t i = 0; i < volume.voxels(); ++i)
    if (!(scene[i] > background[i])) scene[i] = 0.0f;
}

}  // namespace lsm
