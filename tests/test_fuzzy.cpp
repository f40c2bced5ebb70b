// Fuzzy connectedness (issue 7): the affinity and its exp, hand-made images
// and volumes with known max-min paths (serpentine corridors across many
// slabs and thread blocks, plateaus, several seeds), object statistics, bad
// seeds, and every backend against the sequential kFOE reference bit for bit.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "error.h"
#include "fuzzy_connectedness.h"
#include "fuzzy_math.h"

namespace lsm {
namespace {

// m = 100, sigma = 10, sigma_d = 5.
AffinityParameters test_affinity(Adjacency adjacency = Adjacency::Face) {
  return affinity_parameters({100.0, 10.0, 5.0}, adjacency);
}

struct Image {
  int64_t w, h, d;
  std::vector<float> values;
  VolumeView view() const { return {values.data(), w, h, d}; }
  float& at(int64_t x, int64_t y, int64_t z = 0) { return values[(z * h + y) * w + x]; }
};

std::vector<float> reference(const Image& im, const AffinityParameters& a, const std::vector<Voxel>& seeds) {
  std::vector<float> scene(im.values.size());
  fuzzy_connectedness_reference(im.view(), a, seeds, scene.data());
  return scene;
}

// The scene of every available backend, labelled by name.
std::vector<std::pair<std::string, std::vector<float>>> all_backends(const Image& im, const AffinityParameters& a,
                                                                     const std::vector<Voxel>& seeds) {
  std::vector<std::pair<std::string, std::vector<float>>> out;
  std::vector<Backend> backends{Backend::Cpu};
  if (cuda_available()) backends.push_back(Backend::Cuda);
  for (Backend b : backends)
    for (int threads : {1, 3, 8}) {
      if (b == Backend::Cuda && threads > 1) break;
      omp_set_num_threads(threads);
      auto engine = make_fuzzy_engine(b);
      std::vector<float> scene(im.values.size(), -1.0f);
      engine->run(im.view(), a, seeds, scene.data());
      out.push_back({std::string(engine->name()) + " (" + std::to_string(threads) + " threads)", scene});
    }
  omp_set_num_threads(omp_get_num_procs());
  return out;
}

int64_t differing(const std::vector<float>& a, const std::vector<float>& b) {
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

void expect_all_backends_equal(const Image& im, const AffinityParameters& a, const std::vector<Voxel>& seeds,
                               const std::vector<float>& expected) {
  for (const auto& [name, scene] : all_backends(im, a, seeds)) {
    EXPECT_EQ(differing(scene, expected), 0) << name;
    for (size_t i = 0, shown = 0; i < scene.size() && shown < 4; ++i)
      if (scene[i] != expected[i]) {
        ADD_FAILURE() << name << ": voxel " << i << " = " << scene[i] << ", reference " << expected[i];
        ++shown;
      }
  }
}

TEST(FuzzyMath, ExpMatchesTheLibraryToTwoUlp) {
  for (int i = 0; i < 860000; ++i) {
    const float t = -static_cast<float>(i) * 1e-4f;
    const double exact = std::exp(static_cast<double>(t));
    ASSERT_NEAR(fuzzy_math::exp_nonpositive(t), exact, 2.5e-7 * exact) << "t = " << t;
  }
  EXPECT_EQ(fuzzy_math::exp_nonpositive(0.0f), 1.0f);
  EXPECT_EQ(fuzzy_math::exp_nonpositive(-86.5f), 0.0f);
  EXPECT_EQ(fuzzy_math::exp_nonpositive(NAN), 0.0f);
}

TEST(FuzzyMath, AffinityIsThePapersFormula) {
  const AffinityParameters a = test_affinity();
  for (float fc : {60.0f, 95.0f, 100.0f, 131.5f})
    for (float fd : {70.0f, 100.0f, 104.0f}) {
      const double x1 = (fc + fd) / 2.0, x2 = std::fabs(fc - fd) / 2.0;
      const double g1 = std::exp(-(x1 - 100) * (x1 - 100) / (2 * 10.0 * 10.0));
      const double g2 = std::exp(-x2 * x2 / (2 * 5.0 * 5.0));
      const double mu = std::sqrt(g1 * g2);
      EXPECT_NEAR(fuzzy_math::affinity(fc, fd, a), mu, 1e-6 * mu + 1e-30) << fc << " " << fd;
      EXPECT_EQ(fuzzy_math::affinity(fc, fd, a), fuzzy_math::affinity(fd, fc, a));
    }
  EXPECT_EQ(fuzzy_math::affinity(100.0f, 100.0f, a), 1.0f);
  EXPECT_EQ(fuzzy_math::affinity(NAN, 100.0f, a), 0.0f);
  EXPECT_EQ(fuzzy_math::affinity(100.0f, 900.0f, a), 0.0f);  // far below e^-86
}

TEST(FuzzyMath, OffsetsMirror) {
  for (bool volume : {false, true})
    for (Adjacency adj : {Adjacency::Face, Adjacency::Full}) {
      const auto o = fuzzy_math::neighbour_offsets(adj, volume);
      EXPECT_EQ(o.count, volume ? (adj == Adjacency::Face ? 6 : 26) : (adj == Adjacency::Face ? 4 : 8));
      for (int i = 0; i < o.count; ++i) {
        EXPECT_EQ(o.dx[i], -o.dx[o.count - 1 - i]);
        EXPECT_EQ(o.dy[i], -o.dy[o.count - 1 - i]);
        EXPECT_EQ(o.dz[i], -o.dz[o.count - 1 - i]);
      }
    }
}

// Two routes from the seed to the far corner of a 3 x 3 image with a wall
// in the middle: along the top row (one weak step) or down the left column
// and along the bottom (strong steps). The connectivity is the better bottleneck.
TEST(FuzzyHandMade, BestOfTwoRoutes) {
  Image im{3, 3, 1, {100, 100, 60,  //
                     100, 500, 100,  //
                     100, 100, 100}};
  const AffinityParameters a = test_affinity();
  const auto scene = reference(im, a, {{0, 0, 0}});
  const float strong = fuzzy_math::affinity(100, 100, a), weak = fuzzy_math::affinity(100, 60, a);
  EXPECT_EQ(strong, 1.0f);
  EXPECT_EQ(scene[0], 1.0f);
  EXPECT_EQ(scene[2], std::max(weak, std::min(strong, fuzzy_math::affinity(60, 100, a))));
  EXPECT_EQ(scene[8], 1.0f);  // around the wall
  EXPECT_EQ(scene[4], 0.0f);  // the wall: affinity underflows
  expect_all_backends_equal(im, a, {{0, 0, 0}}, scene);
}

// A corridor that winds back and forth across the whole image (every other
// row, linked at alternating ends) with intensities drifting along it, walls
// (1000, whose affinities underflow to 0) between the lanes. In a volume the
// even slices hold such serpentines and the odd slices only the voxel that
// links one serpentine's end to the next one's start. With the face
// adjacency the corridor is the only path: every cell's connectivity is the
// running minimum of the affinities along it.
Image serpentine(int64_t w, int64_t h, int64_t d, std::vector<int64_t>& path) {
  Image im{w, h, d, std::vector<float>(static_cast<size_t>(w * h * d), 1000.0f)};
  path.clear();
  int64_t lane = 0;
  const int64_t lanes = (h + 1) / 2;
  for (int64_t z = 0; z < d; ++z) {
    if (z % 2 == 1) {  // the link: above the previous serpentine's last cell
      path.push_back(path.back() + w * h);
      continue;
    }
    const bool down = (z / 2) % 2 == 0;
    for (int64_t k = 0; k < lanes; ++k) {
      const int64_t y = down ? 2 * k : 2 * (lanes - 1 - k);
      const bool right = lane % 2 == 0;
      for (int64_t i = 0; i < w; ++i) path.push_back((z * h + y) * w + (right ? i : w - 1 - i));
      if (k + 1 < lanes) path.push_back((z * h + (down ? y + 1 : y - 1)) * w + (right ? w - 1 : 0));
      ++lane;
    }
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> step(-3.0f, 3.0f);
  float f = 100.0f;
  for (int64_t i : path) {
    im.values[static_cast<size_t>(i)] = f;
    f = std::min(130.0f, std::max(70.0f, f + step(rng)));
  }
  return im;
}

std::vector<float> running_minimum(const Image& im, const std::vector<int64_t>& path, const AffinityParameters& a) {
  std::vector<float> expected(im.values.size(), 0.0f);
  float k = 1.0f;
  expected[static_cast<size_t>(path[0])] = k;
  for (size_t i = 1; i < path.size(); ++i) {
    k = std::min(k, fuzzy_math::affinity(im.values[path[i - 1]], im.values[path[i]], a));
    expected[static_cast<size_t>(path[i])] = k;
  }
  return expected;
}

TEST(FuzzyHandMade, SerpentineCorridorInAnImage) {
  std::vector<int64_t> path;
  const Image im = serpentine(300, 61, 1, path);  // 31 lanes of 300 cells
  const AffinityParameters a = test_affinity();
  const Voxel seed{0, 0, 0};
  ASSERT_EQ(path[0], 0);
  const auto expected = running_minimum(im, path, a);
  EXPECT_EQ(differing(reference(im, a, {seed}), expected), 0);
  expect_all_backends_equal(im, a, {seed}, expected);
  EXPECT_GT(expected[static_cast<size_t>(path.back())], 0.0f);  // the far end is still connected
}

TEST(FuzzyHandMade, SerpentineCorridorThroughSlices) {
  std::vector<int64_t> path;
  const Image im = serpentine(40, 9, 25, path);  // 13 serpentines of 5 lanes, 12 links
  const AffinityParameters a = test_affinity();
  const auto expected = running_minimum(im, path, a);
  EXPECT_EQ(differing(reference(im, a, {{0, 0, 0}}), expected), 0);
  expect_all_backends_equal(im, a, {{0, 0, 0}}, expected);
  EXPECT_GT(expected[static_cast<size_t>(path.back())], 0.0f);
  // The full adjacency cuts the corners: no closed form, the reference decides.
  const AffinityParameters full = test_affinity(Adjacency::Full);
  expect_all_backends_equal(im, full, {{0, 0, 0}}, reference(im, full, {{0, 0, 0}}));
}

TEST(FuzzyHandMade, PlateauIsFullyConnectedUpToNodata) {
  Image im{50, 20, 1, std::vector<float>(1000, 100.0f)};
  for (int64_t y = 0; y < 20; ++y) im.at(25, y) = NAN;  // a nodata wall
  const AffinityParameters a = test_affinity(Adjacency::Full);
  const auto scene = reference(im, a, {{3, 4, 0}});
  for (int64_t y = 0; y < 20; ++y)
    for (int64_t x = 0; x < 50; ++x) EXPECT_EQ(scene[y * 50 + x], x < 25 ? 1.0f : 0.0f) << x << "," << y;
  expect_all_backends_equal(im, a, {{3, 4, 0}}, scene);
}

TEST(FuzzyHandMade, SeveralSeedsGiveTheMaximum) {
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(100.0f, 12.0f);
  Image im{64, 48, 5, {}};
  for (int64_t i = 0; i < 64 * 48 * 5; ++i) im.values.push_back(noise(rng));
  const AffinityParameters a = test_affinity();
  const std::vector<Voxel> seeds{{1, 2, 0}, {60, 40, 4}, {30, 20, 2}};
  std::vector<float> expected(im.values.size(), 0.0f);
  for (const Voxel& s : seeds) {
    const auto one = reference(im, a, {s});
    for (size_t i = 0; i < one.size(); ++i) expected[i] = std::max(expected[i], one[i]);
  }
  EXPECT_EQ(differing(reference(im, a, seeds), expected), 0);
  expect_all_backends_equal(im, a, seeds, expected);
}

// Random textures with structure at several scales, 2-D and 3-D, both
// adjacencies: every backend equals the reference voxel for voxel.
TEST(FuzzyParity, RandomImagesAndVolumes) {
  std::mt19937 rng(11);
  for (const auto& [w, h, d] : std::vector<std::array<int64_t, 3>>{{1, 1, 1}, {1, 97, 1}, {97, 1, 1}, {257, 131, 1},
                                                                   {33, 17, 9}, {70, 45, 31}}) {
    Image im{w, h, d, {}};
    std::normal_distribution<float> noise(0.0f, 8.0f);
    for (int64_t z = 0; z < d; ++z)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          im.values.push_back(100.0f + 25.0f * std::sin(0.11f * x + 0.07f * y) * std::cos(0.2f * z) + noise(rng));
    im.values[im.values.size() / 3] = NAN;
    for (Adjacency adj : {Adjacency::Face, Adjacency::Full}) {
      const AffinityParameters a = test_affinity(adj);
      const std::vector<Voxel> seeds{{w / 2, h / 2, d / 2}};
      if (std::isnan(im.values[static_cast<size_t>((seeds[0].z * h + seeds[0].y) * w + seeds[0].x)])) continue;
      const auto expected = reference(im, a, seeds);
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d));
      expect_all_backends_equal(im, a, seeds, expected);
    }
  }
}

TEST(FuzzyRelative, TheBarrierSplitsObjectAndBackground) {
  Image im{40, 6, 3, std::vector<float>(40 * 6 * 3, 100.0f)};
  for (int64_t z = 0; z < 3; ++z)
    for (int64_t y = 0; y < 6; ++y) im.at(20, y, z) = 80.0f;
  const AffinityParameters a = affinity_parameters({100.0, 30.0, 5.0}, Adjacency::Face);
  const std::vector<Voxel> object{{2, 2, 1}}, background{{37, 3, 1}};
  std::vector<float> expected(im.values.size());
  relative_fuzzy_connectedness(nullptr, im.view(), a, object, background, expected.data());
  for (int64_t i = 0; i < static_cast<int64_t>(expected.size()); ++i)
    EXPECT_EQ(expected[static_cast<size_t>(i)], i % 40 < 20 ? 1.0f : 0.0f) << i;  // the barrier is a tie
  std::vector<Backend> backends{Backend::Cpu};
  if (cuda_available()) backends.push_back(Backend::Cuda);
  for (Backend b : backends) {
    auto engine = make_fuzzy_engine(b);
    std::vector<float> scene(im.values.size());
    relative_fuzzy_connectedness(engine.get(), im.view(), a, object, background, scene.data());
    EXPECT_EQ(differing(scene, expected), 0) << engine->name();
  }
  std::vector<float> scene(im.values.size());
  EXPECT_THROW(relative_fuzzy_connectedness(nullptr, im.view(), a, object, {{40, 0, 0}}, scene.data()), Error);
}

TEST(FuzzyStatistics, FromTheSeedNeighbourhood) {
  // 3 x 3 around the seed: values 1..9 row by row.
  Image im{5, 5, 1, std::vector<float>(25, 1000.0f)};
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) im.at(x + 1, y + 1) = static_cast<float>(1 + x + 3 * y);
  const ObjectStatistics s = estimate_object_statistics(im.view(), {{2, 2, 0}}, 1);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.sd, std::sqrt(60.0 / 9.0), 1e-12);
  // 6 horizontal pairs with half-difference 0.5, 6 vertical with 1.5.
  EXPECT_NEAR(s.sd_diff, std::sqrt((6 * 0.25 + 6 * 2.25) / 12.0), 1e-12);
}

TEST(FuzzyBadInput, ClearErrors) {
  Image im{4, 4, 1, std::vector<float>(16, 100.0f)};
  im.at(1, 1) = NAN;
  const AffinityParameters a = test_affinity();
  std::vector<float> scene(16);
  auto message = [&](const std::vector<Voxel>& seeds) {
    try {
      fuzzy_connectedness_reference(im.view(), a, seeds, scene.data());
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::BadInput);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{1, 1, 0}}).find("seed 1,1 lies on nodata"), std::string::npos);
  EXPECT_NE(message({{4, 0, 0}}).find("outside the 4 x 4 image"), std::string::npos);
  EXPECT_NE(message({}).find("no seed"), std::string::npos);
  EXPECT_THROW(make_cpu_fuzzy_engine()->run(im.view(), a, {{1, 1, 0}}, scene.data()), Error);
  // A uniform neighbourhood cannot give sigma.
  EXPECT_THROW(estimate_object_statistics(im.view(), {{3, 3, 0}}, 0), Error);
  EXPECT_THROW(affinity_parameters({100, 0, 1}, Adjacency::Face), Error);
  EXPECT_THROW(affinity_parameters({100, 1, -1}, Adjacency::Face), Error);
}

}  // namespace
}  // namespace lsm

// Crops of the real head-phantom CT (raw Int16, 512 x 512 x 140, as
// bench/run_device.sh unpacks it; GDAL is not needed): every backend equals
// the sequential kFOE voxel for voxel. Skips unless LSM_FUZZY_CT_RAW names the file.
namespace lsm {
namespace {

TEST(FuzzyRealCt, CropsMatchTheReference) {
  const char* raw = std::getenv("LSM_FUZZY_CT_RAW");
  if (!raw) GTEST_SKIP() << "set LSM_FUZZY_CT_RAW to the raw head-phantom CT (bench/run_device.sh does)";
  std::ifstream in(raw, std::ios::binary);
  std::vector<int16_t> ct(512 * 512 * 140);
  ASSERT_TRUE(in.read(reinterpret_cast<char*>(ct.data()), std::streamsize(ct.size() * 2))) << raw;
  struct Crop {
    int64_t x0, y0, z0, w, h, d;
    Voxel seed;  // inside the crop
  };
  // The large insert (~90 HU) around its centre, and the skull's rim with a seed in bone.
  for (const Crop& c : {Crop{190, 200, 30, 140, 130, 45, {64, 67, 22}}, Crop{0, 100, 60, 120, 160, 20, {0, 0, 0}}}) {
    Image im{c.w, c.h, c.d, {}};
    for (int64_t z = 0; z < c.d; ++z)
      for (int64_t y = 0; y < c.h; ++y)
        for (int64_t x = 0; x < c.w; ++x)
          im.values.push_back(ct[static_cast<size_t>(((c.z0 + z) * 512 + c.y0 + y) * 512 + c.x0 + x)]);
    Voxel seed = c.seed;
    if (c.seed.x == 0 && c.seed.y == 0) {  // the brightest voxel of the crop: bone
      size_t best = 0;
      for (size_t i = 0; i < im.values.size(); ++i) best = im.values[i] > im.values[best] ? i : best;
      seed = {static_cast<int64_t>(best) % c.w, (static_cast<int64_t>(best) / c.w) % c.h,
              static_cast<int64_t>(best) / (c.w * c.h)};
    }
    const ObjectStatistics stats = estimate_object_statistics(im.view(), {seed}, 2);
    for (Adjacency adj : {Adjacency::Face, Adjacency::Full}) {
      const AffinityParameters a = affinity_parameters(stats, adj);
      const auto expected = reference(im, a, {seed});
      int64_t connected = 0;
      for (float k : expected) connected += k > 0.1f;
      EXPECT_GT(connected, 100);  // a real object, not just the seed
      SCOPED_TRACE("crop at " + std::to_string(c.x0) + "," + std::to_string(c.y0) + "," + std::to_string(c.z0));
      expect_all_backends_equal(im, a, {seed}, expected);
    }
  }
}

}  // namespace
}  // namespace lsm
