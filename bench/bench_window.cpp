// The moving window end to end in memory: a raw Byte raster (or its mirror
// mosaic) through run_window_job into rows kept in memory, on the CPU or the
// GPUs (CUDA_VISIBLE_DEVICES picks how many):
//   lsm_bench_window --raw FILE --width W --height H [--nodata V] [--cell C]
//       [--mosaic W H] [--repeat N] --window-cells 21 --metrics SHDI,ED,...
//       [--class-metrics PLAND,...] [--backend cpu|cuda|auto] [--check | --discard | --pass-only]
// Prints one JSON line: the fastest of --repeat runs, the cells, the
// throughput per metric band. --check compares every value with the CPU's
// (bits) and says how many differ; --discard touches each row (its first value)
// instead of keeping it, for rasters whose values do not fit in memory;
// --pass-only times the GPU pass alone (copies in and out, kernels) on
// blocks of 1024 rows already converted to class indices.
// See bench/RESULTS.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "error.h"
#include "huge_page_malloc.h"
#include "raw_input.h"
#include "window_count_pass.h"
#include "window_count_program.h"
#include "window_job.h"

using namespace lsm;

namespace {

// Keeps every value, as a caller that uses the rows would.
class KeptValues final : public WindowRowSink {
 public:
  KeptValues(int64_t width, int64_t height, bool keep) : width_(width), height_(height), keep_(keep) {}
  void begin(const WindowPlan& plan) override {
    bands_ = plan.bands.size();
    if (keep_) values_.resize(static_cast<size_t>(width_) * bands_ * static_cast<size_t>(height_));
  }
  void write_row(int64_t y, const double* row) override {
    const size_t n = static_cast<size_t>(width_) * bands_;
    if (!keep_) {
      checksum_ += std::isnan(row[0]) ? 0 : row[0];  // touched, not kept
      return;
    }
    std::memcpy(&values_[static_cast<size_t>(y) * n], row, n * sizeof(double));
  }
  const std::vector<double>& values() const { return values_; }
  size_t bands() const { return bands_; }

 private:
  int64_t width_, height_;
  bool keep_;
  double checksum_ = 0;
  size_t bands_ = 0;
  std::vector<double> values_;
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Seconds the count pass takes for the whole raster, in blocks of 1024 rows
// already converted to one-byte class indices (the fastest of `repeat`).
double pass_seconds(MemoryClassRaster& raster, const WindowJobOptions& o, int repeat) {
  const RasterInfo info = raster.info();
  const WindowPlan plan = plan_window_job(raster, o);
  const WindowCountProgram counts(plan, o, info.cell_width, info.cell_height, {});
  const int64_t reach = o.shape.reach(), width = info.width, height = info.height, stride = width + 2 * reach;
  const std::vector<int32_t> halves(o.shape.half_widths.begin(), o.shape.half_widths.end());  // a square: half = reach
  const WindowSpans spans{halves.data(), static_cast<int32_t>(reach), static_cast<int32_t>(reach), o.shape.cells()};
  std::vector<int32_t> cells(static_cast<size_t>(width * height));
  raster.read(Window{0, 0, width, height}, cells.data());
  std::vector<uint8_t> band(static_cast<size_t>((height + 2 * reach) * stride), kWindowOutsideIndex);
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x) {
      const int32_t v = cells[static_cast<size_t>(y * width + x)];
      band[static_cast<size_t>((y + reach) * stride + x + reach)] =
          v == kNoClass ? kWindowOutsideIndex
                        : static_cast<uint8_t>(std::lower_bound(plan.class_codes.begin(), plan.class_codes.end(), v) -
                                               plan.class_codes.begin());
    }
  const std::unique_ptr<WindowCountPass> pass = make_window_count_pass(Backend::Cuda);
  const int64_t block = 1024;
  std::vector<double> values(static_cast<size_t>(block * width) * plan.bands.size());
  double best = 1e300;
  for (int r = 0; r < std::max(1, repeat); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t y0 = 0; y0 < height; y0 += block)
      pass->run(counts.program(), spans, &band[static_cast<size_t>(y0 * stride)], width, std::min(block, height - y0),
                WindowBlockPlace{y0, height, false}, values.data());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  lsm::restart_with_huge_page_malloc(argv);  // first: glibc reads its tunables at the start
  try {
    bench::RawRasterArgs raster_args;
    int64_t window_cells = 21;
    std::string metrics, class_metrics, backend = "auto";
    bool check = false, discard = false, pass_only = false;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(ErrorKind::BadInput, a + " needs a value");
        return argv[++i];
      };
      if (raster_args.take(a, next)) continue;
      if (a == "--window-cells") window_cells = std::stoll(next());
      else if (a == "--metrics") metrics = next();
      else if (a == "--class-metrics") class_metrics = next();
      else if (a == "--backend") backend = next();
      else if (a == "--check") check = true;
      else if (a == "--discard") discard = true;
      else if (a == "--pass-only") pass_only = true;
      else throw Error(ErrorKind::BadInput, "unknown option " + a);
    }
    MemoryClassRaster raster = raster_args.load();
    const RasterInfo info = raster.info();
    WindowJobOptions o;
    o.shape = square_window(window_cells / 2);
    o.landscape_metrics = split(metrics);
    o.class_metrics = split(class_metrics);
    o.backend = backend == "cpu" ? Backend::Cpu : backend == "cuda" ? Backend::Cuda : Backend::Auto;
    o.memory_limit = uint64_t(16) << 30;
    if (pass_only) {
      const double seconds = pass_seconds(raster, o, raster_args.repeat);
      const double cells = static_cast<double>(info.width) * static_cast<double>(info.height);
      const size_t bands = plan_window_job(raster, o).bands.size();
      std::printf("{\"bench\": \"window pass\", \"width\": %lld, \"height\": %lld, \"window\": %lld, \"metrics\": \"%s\", "
                  "\"class_metrics\": \"%s\", \"bands\": %zu, \"seconds\": %.4f, \"mpx_per_s\": %.1f, \"band_mpx_per_s\": %.1f}\n",
                  static_cast<long long>(info.width), static_cast<long long>(info.height),
                  static_cast<long long>(window_cells), metrics.c_str(), class_metrics.c_str(), bands, seconds,
                  cells / seconds / 1e6, cells * static_cast<double>(bands) / seconds / 1e6);
      return 0;
    }
    KeptValues kept(info.width, info.height, !discard);
    std::vector<double> seconds;
    WindowPlan plan;
    for (int r = 0; r < std::max(1, raster_args.repeat); ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      plan = run_window_job(raster, o, kept);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double best = *std::min_element(seconds.begin(), seconds.end());
    const double cells = static_cast<double>(info.width) * static_cast<double>(info.height);
    int64_t differ = -1;
    if (check && !discard) {
      WindowJobOptions cpu = o;
      cpu.backend = Backend::Cpu;
      KeptValues reference(info.width, info.height, true);
      run_window_job(raster, cpu, reference);
      differ = 0;
      for (size_t i = 0; i < kept.values().size(); ++i) {
        const double a = kept.values()[i], b = reference.values()[i];
        if (!(std::isnan(a) && std::isnan(b)) && std::memcmp(&a, &b, sizeof a) != 0) ++differ;
      }
    }
    std::printf(
        "{\"bench\": \"window\", \"width\": %lld, \"height\": %lld, \"window\": %lld, \"metrics\": \"%s\", "
        "\"class_metrics\": \"%s\", \"bands\": %zu, \"backend\": \"%s\", \"seconds\": %.4f, \"mpx_per_s\": %.1f, "
        "\"band_mpx_per_s\": %.1f, \"differing_from_cpu\": %lld}\n",
        static_cast<long long>(info.width), static_cast<long long>(info.height), static_cast<long long>(window_cells),
        metrics.c_str(), class_metrics.c_str(), plan.bands.size(), backend.c_str(), best, cells / best / 1e6,
        cells * static_cast<double>(plan.bands.size()) / best / 1e6, static_cast<long long>(differ));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lsm_bench_window: %s\n", e.what());
    return 1;
  }
}
