// K-means benchmark (issue 5): lsm's CUDA and CPU backends on the carrot-weed
// photo (8 Mpx and 2x downsampled, in CIE L*a*b*) and a >= 1 Gpx synthetic
// 4-band raster, from the same initial centres and for the same iterations.
// Prints one JSON line per run; --dump writes the features, the centres and
// the iteration count for bench/kmeans_peers.py (OpenCV's cv2.kmeans).
// Run on the GPU machine through bench/run_device.sh (step "kmeans").
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "error.h"
#include "feature_raster.h"
#include "kmeans.h"
#include "kmeans_seeding.h"
#ifdef LSM_HAVE_CUDA
#include "copy_bandwidth.h"
#endif

using namespace lsm;

namespace {

struct Input {
  std::string name;
  int64_t width = 0, height = 0;
  int bands = 0;
  std::vector<float> features;
  std::vector<uint8_t> bytes;  // the raw values (for the dump)
};

// An interleaved 8-bit RGB file (gdal_translate -of ENVI -co INTERLEAVE=BIP) as L*a*b* features.
Input load_photo(const std::string& name, const std::string& path, int64_t w, int64_t h) {
  Input in{name, w, h, 3, {}, {}};
  in.bytes.resize(static_cast<size_t>(w * h * 3));
  std::ifstream f(path, std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(in.bytes.data()), std::streamsize(in.bytes.size())))
    throw Error(ErrorKind::Io, "cannot read " + std::to_string(in.bytes.size()) + " bytes from " + path);
  in.features.resize(in.bytes.size());
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < w * h; ++i)
    srgb8_to_lab(in.bytes[3 * i], in.bytes[3 * i + 1], in.bytes[3 * i + 2], in.features.data() + 3 * i);
  return in;
}

uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Six land-cover-like spectral classes in blocky regions, with per-cell noise.
Input synthetic(int64_t side, int bands) {
  Input in{"synthetic_" + std::to_string(side) + "x" + std::to_string(side) + "x" + std::to_string(bands), side, side,
           bands, {}, {}};
  const size_t n = static_cast<size_t>(side * side * bands);
  in.bytes.resize(n);
  in.features.resize(n);
  static const int base[6][4] = {{40, 60, 30, 120}, {90, 80, 70, 60}, {30, 40, 35, 20},
                                 {150, 140, 130, 160}, {60, 110, 50, 200}, {200, 170, 120, 90}};
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < side; ++y)
    for (int64_t x = 0; x < side; ++x) {
      const int c = static_cast<int>(mix(uint64_t(x >> 7) * 7919 + uint64_t(y >> 6) * 104729) % 6);
      const uint64_t noise = mix(uint64_t(y) * uint64_t(side) + uint64_t(x));
      for (int b = 0; b < bands; ++b) {
        const int v = base[c][b % 4] + int((noise >> (8 * b)) & 31) - 16;
        const size_t i = static_cast<size_t>((y * side + x) * bands + b);
        in.bytes[i] = static_cast<uint8_t>(v);
        in.features[i] = float(v);
      }
    }
  return in;
}

std::vector<float> initial_centres(const Input& in, int k) {
  const int64_t cells = in.width * in.height;
  const uint64_t threshold = sample_threshold(cells, 1 << 17);
  std::vector<float> sample;
  for (int64_t i = 0; i < cells; ++i)
    if (in_kmeans_sample(uint64_t(i), 1, threshold))
      sample.insert(sample.end(), in.features.begin() + i * in.bands, in.features.begin() + (i + 1) * in.bands);
  return kmeans_plus_plus(sample, in.bands, k, 1, 0);
}

struct Timed {
  KMeansResult result;
  std::vector<uint16_t> labels;
};

Timed fit(const Input& in, Backend backend, const std::vector<float>& init, int iters, bool labels) {
  MemoryFeatureRaster raster(in.width, in.height, in.bands, in.features);
  KMeansOptions o;
  o.k = static_cast<int>(init.size()) / in.bands;
  o.init = init;
  o.max_iter = iters;
  o.resident_bytes = int64_t(1) << 40;
  auto pass = make_kmeans_pass(backend);
  Timed t;
  if (labels) t.labels.resize(static_cast<size_t>(in.width * in.height));
  KMeansLabelFn sink;
  if (labels)
    sink = [&](const Window& w, const uint16_t* l) {
      std::copy(l, l + w.width * w.height, t.labels.begin() + w.y0 * in.width);
    };
  t.result = run_kmeans(raster, o, *pass, sink);
  return t;
}

void dump(const Input& in, const std::vector<float>& init, int iters, const std::string& dir, std::ofstream& manifest) {
  const std::string file = dir + "/" + in.name + ".u8";
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(in.bytes.data()),
                                              std::streamsize(in.bytes.size()));
  const bool lab = in.name.rfind("carrotweed", 0) == 0;
  manifest << "{\"name\": \"" << in.name << "\", \"file\": \"" << file << "\", \"width\": " << in.width
           << ", \"height\": " << in.height << ", \"bands\": " << in.bands << ", \"lab\": " << (lab ? "true" : "false")
           << ", \"iterations\": " << iters << ", \"init\": [";
  for (size_t i = 0; i < init.size(); ++i) manifest << (i ? ", " : "") << init[i];
  manifest << "]}\n";
  // The L*a*b* features as lsm computed them, so the peer clusters the very same values.
  if (lab)
    std::ofstream(dir + "/" + in.name + ".f32", std::ios::binary)
        .write(reinterpret_cast<const char*>(in.features.data()), std::streamsize(in.features.size() * 4));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Input> inputs;
  int k = 4, iters = 20;
  int64_t side = 0;
  std::string dump_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) throw Error(ErrorKind::BadInput, a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--photo") {
      const std::string name = next(), path = next();
      const int64_t w = std::stoll(next()), h = std::stoll(next());
      inputs.push_back(load_photo(name, path, w, h));
    } else if (a == "--synthetic-side") side = std::stoll(next());
    else if (a == "--k") k = std::stoi(next());
    else if (a == "--iters") iters = std::stoi(next());
    else if (a == "--dump") dump_dir = next();
    else {
      std::fprintf(stderr,
                   "usage: lsm_bench_kmeans [--photo NAME RGB.raw W H]... [--synthetic-side N] [--k 4] [--iters 20] "
                   "[--dump DIR]\n");
      return 2;
    }
  }
  if (side > 0) inputs.push_back(synthetic(side, 4));
  std::string why;
  const bool gpu = cuda_available(&why);
  double bandwidth = 0;
#ifdef LSM_HAVE_CUDA
  if (gpu) {
    cudaStream_t st;
    LSM_CUDA_CHECK(cudaStreamCreate(&st));
    bandwidth = bench::copy_bandwidth(st);
    LSM_CUDA_CHECK(cudaStreamDestroy(st));
  }
#endif
  std::ofstream manifest;
  if (!dump_dir.empty()) manifest.open(dump_dir + "/manifest.jsonl");
  std::printf("{\"copy_bandwidth_GBps\": %.1f, \"threads\": %d, \"gpu\": %s}\n", bandwidth * 1e-9,
              omp_get_max_threads(), gpu ? "true" : "false");
  for (const Input& in : inputs) {
    const std::vector<float> init = initial_centres(in, k);
    const bool small = in.width * in.height <= (int64_t(1) << 26);
    const double bytes = double(in.width * in.height) * in.bands * sizeof(float);
    std::vector<Timed> runs;
    for (Backend b : {Backend::Cuda, Backend::Cpu}) {
      if (b == Backend::Cuda && !gpu) continue;
      // A warm-up run first (pool, module load), then the timed one.
      if (b == Backend::Cuda) fit(in, b, init, 2, false);
      runs.push_back(fit(in, b, init, iters, small));
      const KMeansResult& r = runs.back().result;
      const int passes = r.iterations + (r.converged ? 0 : 1);
      const double per_pass_ms = r.lloyd_seconds * 1e3 / passes;
      std::printf(
          "{\"input\": \"%s\", \"cells\": %lld, \"bands\": %d, \"k\": %d, \"backend\": \"%s\", \"iterations\": %d, "
          "\"converged\": %s, \"lloyd_ms\": %.3f, \"per_pass_ms\": %.4f, \"floor_ms\": %.4f, \"survey_ms\": %.1f, "
          "\"inertia\": %.6g}\n",
          in.name.c_str(), static_cast<long long>(in.width * in.height), in.bands, k,
          b == Backend::Cuda ? "cuda" : "cpu", r.iterations, r.converged ? "true" : "false", r.lloyd_seconds * 1e3,
          per_pass_ms, bandwidth > 0 ? bytes / bandwidth * 1e3 : 0.0, r.survey_seconds * 1e3, r.inertia);
      std::fflush(stdout);
    }
    if (runs.size() == 2) {
      const bool same = runs[0].result.centres == runs[1].result.centres &&
                        runs[0].result.counts == runs[1].result.counts && runs[0].labels == runs[1].labels;
      std::printf("{\"input\": \"%s\", \"cpu_cuda_identical\": %s}\n", in.name.c_str(), same ? "true" : "false");
      if (!same) return 1;
    }
    if (!dump_dir.empty()) dump(in, init, runs.front().result.iterations, dump_dir, manifest);
  }
  return 0;
}
