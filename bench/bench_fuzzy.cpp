// Fuzzy connectedness benchmark (issue 7): one CT volume (raw little-endian
// Int16, slice-major, as bench/run_device.sh unpacks it) from one or more
// seeds, through the sequential kFOE reference, the CPU backend and, where
// present, the CUDA backend; each backend's scene is compared with the
// reference's voxel for voxel in the same run. One JSON line per backend.
//   lsm_bench_fuzzy --raw-i16 FILE W H D --seed X,Y,Z [--seed ...] [--seed-radius R]
//                   [--adjacency face|full] [--repeat N] [--no-reference]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "error.h"
#include "fuzzy_connectedness.h"

using namespace lsm;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Voxel parse_voxel(const std::string& text) {
  Voxel v;
  char c1 = 0, c2 = 0;
  std::istringstream in(text);
  if (!(in >> v.x >> c1 >> v.y >> c2 >> v.z) || c1 != ',' || c2 != ',')
    throw Error(ErrorKind::BadInput, "bad --seed '" + text + "' (expected X,Y,Z)");
  return v;
}

int64_t differing(const std::vector<float>& a, const std::vector<float>& b) {
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string raw;
  int64_t w = 0, h = 0, d = 0, radius = 2;
  int repeat = 3;
  bool reference = true;
  Adjacency adjacency = Adjacency::Face;
  std::vector<Voxel> seeds;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(ErrorKind::BadInput, a + " needs a value");
      return argv[++i];
    };
    if (a == "--raw-i16") {
      raw = next();
      w = std::stoll(next());
      h = std::stoll(next());
      d = std::stoll(next());
    } else if (a == "--seed") seeds.push_back(parse_voxel(next()));
    else if (a == "--seed-radius") radius = std::stoll(next());
    else if (a == "--repeat") repeat = std::stoi(next());
    else if (a == "--adjacency") adjacency = next() == "full" ? Adjacency::Full : Adjacency::Face;
    else if (a == "--no-reference") reference = false;
    else throw Error(ErrorKind::BadInput, "unknown option " + a);
  }
  std::vector<int16_t> voxels(static_cast<size_t>(w * h * d));
  std::ifstream in(raw, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(voxels.data()), std::streamsize(voxels.size() * 2)))
    throw Error(ErrorKind::Io, "cannot read " + std::to_string(voxels.size() * 2) + " bytes from " + raw);
  std::vector<float> values(voxels.begin(), voxels.end());
  const VolumeView volume{values.data(), w, h, d};
  const ObjectStatistics stats = estimate_object_statistics(volume, seeds, radius);
  const AffinityParameters affinity = affinity_parameters(stats, adjacency);
  std::fprintf(stderr, "object: mean %.3f sd %.3f sd_diff %.3f\n", stats.mean, stats.sd, stats.sd_diff);

  std::vector<float> expected(values.size());
  double reference_s = 0;
  if (reference) {
    const auto t0 = std::chrono::steady_clock::now();
    fuzzy_connectedness_reference(volume, affinity, seeds, expected.data());
    reference_s = seconds_since(t0);
    int64_t connected = 0;
    for (float k : expected) connected += k > 0.5f;
    std::printf("{\"backend\":\"reference\",\"voxels\":%lld,\"seconds\":%.4f,\"above_half\":%lld}\n",
                static_cast<long long>(values.size()), reference_s, static_cast<long long>(connected));
    std::fflush(stdout);
  }
  for (Backend backend : {Backend::Cpu, Backend::Cuda}) {
    if (backend == Backend::Cuda && !cuda_available()) {
      std::printf("{\"backend\":\"cuda\",\"skipped\":\"no CUDA device\"}\n");
      continue;
    }
    auto engine = make_fuzzy_engine(backend);
    std::vector<float> scene(values.size());
    double best = 1e300;
    for (int r = 0; r < (backend == Backend::Cpu ? 1 : repeat); ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      engine->run(volume, affinity, seeds, scene.data());
      best = std::min(best, seconds_since(t0));
    }
    const FuzzyEngine::RunStats run_stats = engine->stats();
    std::printf("{\"backend\":\"%s\",\"voxels\":%lld,\"seconds\":%.4f,\"rounds\":%lld,\"transfer_s\":%.4f,"
                "\"propagate_s\":%.4f,\"differing_voxels\":%s}\n",
                engine->name(), static_cast<long long>(values.size()), best, static_cast<long long>(run_stats.rounds),
                run_stats.transfer_seconds, run_stats.propagate_seconds,
                reference ? std::to_string(differing(scene, expected)).c_str() : "null");
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "lsm_bench_fuzzy: " << e.what() << "\n";
  return 1;
}
