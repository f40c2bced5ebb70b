// Pyramid, gradient and HOG benchmark (issue 6): lsm's CUDA and CPU backends
// on a grey 1920 x 1080 photo and on a >= 1 Gpx mirror mosaic of it, with
// the bandwidth floor of each step (its bytes at the device-to-device copy
// bandwidth measured in the same run). Prints one JSON line per measurement;
// bench/image_peers.py times OpenCV on the same photo and prints the table.
// Run on the GPU machine through bench/run_device.sh (step "image").
//   lsm_bench_image --photo NAME GREY.f32 WIDTH HEIGHT [--giga-side N] [--repeat R]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "copy_bandwidth.h"
#include "cuda_check.h"
#include "device_pool.h"
#include "gradient.h"
#include "gradient_pass_cuda.h"
#include "hog.h"
#include "hog_pass_cuda.h"
#include "pyramid.h"
#include "pyramid_pass_cuda.h"

using namespace lsm;

namespace {

constexpr int kLevels = 31;
constexpr double kScale = 1.05;

struct Image {
  std::string name;
  int64_t width = 0, height = 0;
  std::vector<float> grey;  // [0, 1]
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds of `work` queued on `st`, median of `repeat` runs after one warm-up.
template <class F>
double time_gpu(cudaStream_t st, int repeat, F work) {
  cudaEvent_t a, b;
  LSM_CUDA_CHECK(cudaEventCreate(&a));
  LSM_CUDA_CHECK(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int r = 0; r <= repeat; ++r) {
    LSM_CUDA_CHECK(cudaEventRecord(a, st));
    work();
    LSM_CUDA_CHECK(cudaEventRecord(b, st));
    LSM_CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    LSM_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    if (r > 0) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(ms);
}

template <class F>
double time_cpu(int repeat, F work) {
  std::vector<double> ms;
  for (int r = 0; r <= repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) ms.push_back(t);
  }
  return median(ms);
}

void report(const Image& im, const char* step, const char* backend, double ms, double floor_ms, double extra = -1,
            const char* extra_name = nullptr) {
  std::printf("{\"input\": \"%s\", \"width\": %lld, \"height\": %lld, \"step\": \"%s\", \"backend\": \"%s\", "
              "\"ms\": %.4f, \"floor_ms\": %.4f, \"x_floor\": %.2f",
              im.name.c_str(), (long long)im.width, (long long)im.height, step, backend, ms, floor_ms, ms / floor_ms);
  if (extra_name) std::printf(", \"%s\": %.3g", extra_name, extra);
  std::printf("}\n");
  std::fflush(stdout);
}

void run_benchmark(const Image& im, double bandwidth, int repeat, bool with_cpu) {
  cudaStream_t st;
  LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const int64_t W = im.width, H = im.height, N = W * H;
  const double bytes_per_ms = bandwidth * 1e-3;

  // Gradient: the paper's 7-tap kernels, the image as one strip with its halo.
  const GradientKernels k = gradient_kernels(1.0, 3);
  {
    const int64_t R = k.radius;
    DeviceBuffer padded, planes;
    const size_t in_bytes = sizeof(float) * (H + 2 * R) * W;
    padded.reserve(in_bytes, st);
    planes.reserve(sizeof(float) * kGradientPlanes * N, st);
    for (int64_t p = 0; p < H + 2 * R; ++p) {  // replicated halo rows
      const int64_t y = std::clamp(p - R, int64_t(0), H - 1);
      LSM_CUDA_CHECK(cudaMemcpyAsync(padded.as<float>() + p * W, im.grey.data() + y * W, sizeof(float) * W,
                                     cudaMemcpyHostToDevice, st));
    }
    const double ms = time_gpu(st, repeat, [&] {
      launch_gradient(k, padded.as<float>(), W, H, planes.as<float>(), st);
    });
    report(im, "gradient", "cuda", ms, (4.0 + 16.0) * N / bytes_per_ms, N / ms * 1e-6, "gpx_s");
    if (with_cpu) {
      std::vector<float> host_padded(static_cast<size_t>((H + 2 * R) * W)), out(static_cast<size_t>(kGradientPlanes * N));
      for (int64_t p = 0; p < H + 2 * R; ++p)
        std::copy_n(im.grey.data() + std::clamp(p - R, int64_t(0), H - 1) * W, W, host_padded.data() + p * W);
      auto cpu = make_cpu_gradient_pass();
      report(im, "gradient", "cpu", time_cpu(repeat, [&] { cpu->run(k, host_padded.data(), W, H, out.data()); }),
             (4.0 + 16.0) * N / bytes_per_ms);
    }
  }

  // Pyramid: 30 bilinear levels from the base (level 0 is the image).
  PyramidOptions po;
  po.levels = kLevels;
  po.scale = kScale;
  const auto sizes = pyramid_sizes(W, H, po);
  std::vector<LevelMapping> maps;
  std::vector<int64_t> offsets{0};  // of each level in the level buffer
  double level_pixels = 0;
  for (int l = 0; l < kLevels; ++l) {
    maps.push_back(level_mapping(W, H, sizes[l].first, sizes[l].second, Resampling::Bilinear));
    offsets.push_back(offsets.back() + sizes[l].first * sizes[l].second);
    if (l > 0) level_pixels += double(sizes[l].first) * sizes[l].second;
  }
  const bool keep_levels = offsets.back() * 4 < (int64_t(24) << 30);  // all levels resident when they fit in 24 GB
  DeviceBuffer base, levels;
  base.reserve(sizeof(float) * N, st);
  LSM_CUDA_CHECK(cudaMemcpyAsync(base.get(), im.grey.data(), sizeof(float) * N, cudaMemcpyHostToDevice, st));
  levels.reserve(sizeof(float) * (keep_levels ? offsets.back() : sizes[1].first * sizes[1].second), st);
  auto level_ptr = [&](int l) {
    if (l == 0) return base.as<float>();
    return levels.as<float>() + (keep_levels ? offsets[l] : 0);
  };
  const double pyramid_floor = (4.0 * N + 4.0 * level_pixels) / bytes_per_ms;
  const double per_level_ms = time_gpu(st, repeat, [&] {
    for (int l = 1; l < kLevels; ++l)
      launch_pyramid_resample(maps[l], 1, base.as<float>(), 0, 0, maps[l].height, level_ptr(l), st);
  });
  report(im, "pyramid31_launch_per_level", "cuda", per_level_ms, pyramid_floor, keep_levels ? 1 : 0, "levels_kept");
  double pyr_ms = per_level_ms;
  if (keep_levels) {  // all levels in one launch, checked against the launches per level
    std::vector<float> one(static_cast<size_t>(sizes[5].first * sizes[5].second)), other(one.size());
    LSM_CUDA_CHECK(cudaMemcpyAsync(one.data(), level_ptr(5), sizeof(float) * one.size(), cudaMemcpyDeviceToHost, st));
    LSM_CUDA_CHECK(cudaMemsetAsync(level_ptr(1), 0, sizeof(float) * (offsets.back() - offsets[1]), st));
    PyramidLevelTable table;
    table.count = kLevels - 1;
    for (int l = 1; l < kLevels; ++l) {
      table.levels[l - 1] = maps[l];
      table.out[l - 1] = level_ptr(l);
    }
    pyr_ms = time_gpu(st, repeat, [&] { launch_pyramid_levels(table, base.as<float>(), st); });
    LSM_CUDA_CHECK(cudaMemcpyAsync(other.data(), level_ptr(5), sizeof(float) * one.size(), cudaMemcpyDeviceToHost, st));
    LSM_CUDA_CHECK(cudaStreamSynchronize(st));
    report(im, "pyramid31", "cuda", pyr_ms, pyramid_floor, one == other ? 1 : 0, "same_as_per_level");
  }
  if (with_cpu) {
    auto cpu = make_cpu_pyramid_pass();
    std::vector<float> out(static_cast<size_t>(sizes[1].first * sizes[1].second));
    report(im, "pyramid31", "cpu", time_cpu(repeat, [&] {
             for (int l = 1; l < kLevels; ++l) cpu->resample(maps[l], 1, im.grey.data(), 0, H, 0, maps[l].height, out.data());
           }), pyramid_floor);
  }

  // HOG (skimage variant, 8-pixel cells, 3 x 3 blocks, 9 bins, L2-Hys) on every level.
  HogOptions ho;
  std::vector<HogGeometry> geo;
  for (int l = 0; l < kLevels; ++l) geo.push_back(hog_geometry(sizes[l].first, sizes[l].second, ho));
  DeviceBuffer hist, desc;
  const int64_t max_cells = geo[0].cells_x * geo[0].cells_y;
  hist.reserve(sizeof(float) * max_cells * ho.bins, st);
  desc.reserve(sizeof(double) * geo[0].blocks_x * geo[0].blocks_y * geo[0].descriptor_length, st);
  double hog_floor = 0, hog_ms = 0;
  // The pass reads image rows y0-1 .. y0+rows through row index + 1; the
  // first row's gradient is zero, so row -1 is never read: the level itself,
  // one row back, serves as the padded strip.
  auto hog_level = [&](int l) {
    const HogGeometry& g = geo[l];
    launch_hog_cell_histograms(ho, g, level_ptr(l) - sizes[l].first, 0, g.cells_y, hist.as<float>(), st);
    launch_hog_normalize_blocks(ho, g, hist.as<float>(), g.cells_y, desc.as<double>(), st);
  };
  for (int l = 0; l < kLevels; ++l)
    hog_floor += (4.0 * geo[l].cells_y * ho.cell * sizes[l].first +
                  8.0 * geo[l].blocks_x * geo[l].blocks_y * geo[l].descriptor_length) / bytes_per_ms;
  if (keep_levels) {
    // Two launches for all levels (launch_hog_levels), each level into its
    // own buffers; checked against the launches per level on the last level
    // (what the scratch buffers hold after the per-level timing).
    const double per_level_hog_ms = time_gpu(st, repeat, [&] { for (int l = 0; l < kLevels; ++l) hog_level(l); });
    report(im, "hog31_launches_per_level", "cuda", per_level_hog_ms, hog_floor);
    int64_t hist_values = 0, desc_values = 0;
    for (const HogGeometry& g : geo) {
      hist_values += g.cells_x * g.cells_y * ho.bins;
      desc_values += g.blocks_x * g.blocks_y * g.descriptor_length;
    }
    DeviceBuffer all_hist, all_desc;
    all_hist.reserve(sizeof(float) * hist_values, st);
    all_desc.reserve(sizeof(double) * desc_values, st);
    HogLevelTable table;
    table.count = kLevels;
    int64_t h_at = 0, d_at = 0;
    for (int l = 0; l < kLevels; ++l) {
      table.levels[l] = geo[l];
      table.grey[l] = level_ptr(l) - sizes[l].first;
      table.histograms[l] = all_hist.as<float>() + h_at;
      table.descriptors[l] = all_desc.as<double>() + d_at;
      h_at += geo[l].cells_x * geo[l].cells_y * ho.bins;
      d_at += geo[l].blocks_x * geo[l].blocks_y * geo[l].descriptor_length;
    }
    hog_ms = time_gpu(st, repeat, [&] { launch_hog_levels(ho, table, st); });
    const HogGeometry& last = geo[kLevels - 1];
    std::vector<double> per_level(static_cast<size_t>(last.blocks_x * last.blocks_y * last.descriptor_length)),
        together(per_level.size());
    LSM_CUDA_CHECK(cudaMemcpyAsync(per_level.data(), desc.get(), sizeof(double) * per_level.size(),
                                   cudaMemcpyDeviceToHost, st));
    LSM_CUDA_CHECK(cudaMemcpyAsync(together.data(), table.descriptors[kLevels - 1], sizeof(double) * together.size(),
                                   cudaMemcpyDeviceToHost, st));
    LSM_CUDA_CHECK(cudaStreamSynchronize(st));
    std::printf("{\"input\": \"%s\", \"step\": \"hog31_check\", \"two_launches_same_as_per_level\": %d}\n",
                im.name.c_str(), per_level == together ? 1 : 0);
  } else {  // one level at a time in the scratch buffer
    for (int l = 0; l < kLevels; ++l) {
      if (l > 0) launch_pyramid_resample(maps[l], 1, base.as<float>(), 0, 0, sizes[l].second, level_ptr(l), st);
      hog_ms += time_gpu(st, repeat, [&] { hog_level(l); });
    }
  }
  const double with_pyramid_ms = hog_ms;
  report(im, "hog31", "cuda", hog_ms, hog_floor);
  report(im, "pyramid31+hog31", "cuda", with_pyramid_ms + pyr_ms, hog_floor + pyramid_floor);

  // Parity of the level-0 descriptors (a strip of 64 cell rows: the CPU is slow at 1 Gpx).
  {
    const HogGeometry& g = geo[0];
    const int64_t cell_rows = std::min<int64_t>(g.cells_y, 64), rows = cell_rows * ho.cell;
    std::vector<double> grey(static_cast<size_t>((rows + 2) * W), 0.0);
    for (int64_t y = 0; y < std::min(H, rows + 1); ++y)
      for (int64_t x = 0; x < W; ++x) grey[(y + 1) * W + x] = im.grey[y * W + x];
    auto cpu = make_cpu_hog_pass();
    std::vector<float> h_cpu(static_cast<size_t>(cell_rows * g.cells_x * ho.bins));
    const int64_t blocks = (cell_rows - ho.block + 1) * g.blocks_x;
    std::vector<double> d_cpu(static_cast<size_t>(blocks * g.descriptor_length)), d_gpu(d_cpu.size());
    cpu->cell_histograms(ho, g, grey.data(), 0, cell_rows, h_cpu.data());
    cpu->normalize_blocks(ho, g, h_cpu.data(), cell_rows, d_cpu.data());
    // The device buffers hold the last level: level 0 again, on the device.
    launch_hog_cell_histograms(ho, g, base.as<float>() - W, 0, cell_rows, hist.as<float>(), st);
    launch_hog_normalize_blocks(ho, g, hist.as<float>(), cell_rows, desc.as<double>(), st);
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_gpu.data(), desc.get(), sizeof(double) * d_gpu.size(), cudaMemcpyDeviceToHost, st));
    LSM_CUDA_CHECK(cudaStreamSynchronize(st));
    double worst = 0;
    size_t differ = 0;
    for (size_t i = 0; i < d_cpu.size(); ++i) {
      worst = std::max(worst, std::fabs(d_gpu[i] - d_cpu[i]) / std::max(1e-12, std::fabs(d_cpu[i])));
      differ += d_gpu[i] != d_cpu[i];
    }
    std::printf("{\"input\": \"%s\", \"step\": \"hog_parity\", \"values\": %zu, \"differing\": %zu, \"max_rel\": %.3g}\n",
                im.name.c_str(), d_cpu.size(), differ, worst);
    if (with_cpu) {
      report(im, "hog_level0_strip64", "cpu", time_cpu(repeat, [&] {
               cpu->cell_histograms(ho, g, grey.data(), 0, cell_rows, h_cpu.data());
               cpu->normalize_blocks(ho, g, h_cpu.data(), cell_rows, d_cpu.data());
             }), (4.0 * rows * W + 8.0 * blocks * g.descriptor_length) / bytes_per_ms);
    }
  }
  // The buffers above return to the pool on `st` as they go out of scope:
  // the stream outlives them (it is not destroyed).
  LSM_CUDA_CHECK(cudaStreamSynchronize(st));
}

Image load(const std::string& name, const std::string& path, int64_t w, int64_t h) {
  Image im{name, w, h, std::vector<float>(static_cast<size_t>(w * h))};
  std::ifstream f(path, std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(im.grey.data()), std::streamsize(im.grey.size() * sizeof(float)))) {
    std::fprintf(stderr, "cannot read %lld x %lld floats from %s\n", (long long)w, (long long)h, path.c_str());
    std::exit(1);
  }
  return im;
}

// A side x side mirror mosaic of the photo (reflected copies, no seams).
Image mosaic(const Image& photo, int64_t side) {
  Image m{"mosaic_" + std::to_string(side), side, side, std::vector<float>(static_cast<size_t>(side * side))};
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < side; ++y) {
    const int64_t ty = y / photo.height, sy = ty % 2 ? photo.height - 1 - y % photo.height : y % photo.height;
    for (int64_t x = 0; x < side; ++x) {
      const int64_t tx = x / photo.width, sx = tx % 2 ? photo.width - 1 - x % photo.width : x % photo.width;
      m.grey[y * side + x] = photo.grey[sy * photo.width + sx];
    }
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Image> inputs;
  int64_t giga_side = 0;
  int repeat = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--photo" && i + 4 < argc) {
      inputs.push_back(load(argv[i + 1], argv[i + 2], std::stoll(argv[i + 3]), std::stoll(argv[i + 4])));
      i += 4;
    } else if (a == "--giga-side" && i + 1 < argc) {
      giga_side = std::stoll(argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::stoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: lsm_bench_image --photo NAME GREY.f32 W H [--giga-side N] [--repeat R]\n");
      return 2;
    }
  }
  if (inputs.empty()) return 2;
  cudaStream_t st;
  LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  prepare_device_pool(0);
  const double bandwidth = bench::copy_bandwidth(st);
  std::printf("{\"copy_bandwidth_gb_s\": %.1f, \"cpu_threads\": %d}\n", bandwidth * 1e-9, omp_get_max_threads());
  for (const Image& im : inputs) run_benchmark(im, bandwidth, repeat, true);
  if (giga_side > 0) run_benchmark(mosaic(inputs.front(), giga_side), bandwidth, 2, true);
  return 0;
}
