// The full FRAGSTATS metric set against area/perimeter alone, on an in-memory
// raw Byte raster (--raw FILE --width W --height H [--nodata V] [--cell C]):
//   first pass   labeling with the area/edge counts and the area/edge tables;
//   no ENN       + the second pass (GYRATE, CONTIG, CIRCLE, core, adjacency) and every table but ENN;
//   full         + ENN;
//   ENN alone    ENN on the kept patch IDs, the scan outside the timing: on
//                cpu the sweep (enn_sweep.h), on cuda the search on patch IDs
//                already on the device (nearest_patch_cuda.h), its result
//                copied back;
//   rows alone   cuda only: GYRATE (FRAGSTATS' rule) and CIRCLE's row extents
//                on patch IDs already on the device (patch_rows_cuda.h),
//                the results copied back;
//   PROX 500m, PROX 2km, CONNECT 500m, CONNECT 2km, SIMI 500m, SIMI 2km
//                full + PROX with that search radius (proximity_sweep.h),
//                + CONNECT with that threshold distance (connectance_sweep.h),
//                or + PROX and SIMI with similarity 1 within a class and
//                0.5 between any two (every class pair: SIMI's worst case).
// Prints the median of --repeat runs per stage and backend (--stages picks some,
// comma-separated, e.g. "first pass"). See bench/RESULTS.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "area_edge_tables.h"
#include "cell_neighbourhood.h"
#include "enn_sweep.h"
#include "huge_page_malloc.h"
#include "error.h"
#include "fragstats_metrics.h"
#include "patch_row_metrics.h"
#include "raw_input.h"
#ifdef LSM_BENCH_CUDA
#include "cuda_check.h"
#include "fragstats_gyrate.h"
#include "patch_rows_cuda.h"
#include "nearest_patch_cuda.h"
#endif

using namespace lsm;

namespace {

// Similarity weights for every Byte class: 1 within a class, 0.5 between two.
std::shared_ptr<const ClassPairTable> every_class_similar() {
  auto t = std::make_shared<ClassPairTable>();
  for (int32_t c = 0; c < 256; ++c) t->codes.push_back(c);
  for (int32_t a = 0; a < 256; ++a)
    for (int32_t b = 0; b < 256; ++b) t->d.push_back(a == b ? 1 : 0.5);
  t->path = "every class similar";
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The "ENN alone" and "rows alone" stages (`what` "ENN" or "rows"):
// median ms of `repeat` runs on the scan's patch IDs.
double alone_ms(MemoryClassRaster& raster, TileLabeler& labeler, NeighbourhoodCounter* counter, int repeat,
                const std::string& what) {
  ScanOptions o;
  o.keep_patch_ids = true;
  o.keep_labels_max_bytes = int64_t(1) << 40;
  const PatchTable t = scan_patches(raster, labeler, o);
  const std::vector<uint32_t> pids = assemble_patch_ids(t);
  std::vector<int32_t> codes;
  for (const PatchStats& p : t.patches) codes.push_back(p.class_code);
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  std::vector<uint32_t> class_of(t.patches.size() + 1, 0);
  std::vector<uint64_t> patches_in_class(codes.size(), 0);
  for (size_t i = 0; i < t.patches.size(); ++i) {
    class_of[i + 1] = static_cast<uint32_t>(std::lower_bound(codes.begin(), codes.end(), t.patches[i].class_code) - codes.begin());
    ++patches_in_class[class_of[i + 1]];
  }
  const int64_t w = raster.info().width, h = raster.info().height;
  auto since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> with;
  for (int r = 0; r < repeat; ++r) {
    if (!counter && what != "ENN") break;  // rows: the device's alone
    if (!counter) {  // the CPU sweep, row by row as the row visitor feeds it
      const auto t0 = std::chrono::steady_clock::now();
      EnnSweep sweep(class_of.data(), t.patches.size(), patches_in_class, t.rule, w, raster.info().cell_width,
                     raster.info().cell_height, "");
      for (int64_t y = 0; y < h; ++y)
        sweep.add_row(y, y > 0 ? pids.data() + (y - 1) * w : nullptr, pids.data() + y * w,
                      y + 1 < h ? pids.data() + (y + 1) * w : nullptr);
      sweep.distances([](size_t, double) {});
      with.push_back(since(t0));
      continue;
    }
#ifdef LSM_BENCH_CUDA
    DeviceStream stream(0);
    DeviceBuffer d_pids, d_class;
    d_pids.reserve(pids.size() * sizeof(uint32_t), stream);
    d_class.reserve(class_of.size() * sizeof(uint32_t), stream);
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_pids.get(), pids.data(), pids.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_class.get(), class_of.data(), class_of.size() * sizeof(uint32_t),
                                   cudaMemcpyHostToDevice, stream));
    LSM_CUDA_CHECK(cudaStreamSynchronize(stream));
    DeviceNearestPatch search;
    DevicePatchRows rows;
    const auto t0 = std::chrono::steady_clock::now();
    if (what == "ENN") {
      search.search(d_pids.as<uint32_t>(), d_class.as<uint32_t>(), class_of, codes.size(), w, h,
                    raster.info().cell_width, raster.info().cell_height, stream);
    } else {
      rows.compute(d_pids.as<uint32_t>(), w, h, t.patches.size(), raster.info().cell_width,
                   raster.info().cell_height,
                   gyrate_fixed_exponent(w, h, raster.info().cell_width, raster.info().cell_height), true,
                   true, stream);
    }
    with.push_back(since(t0));
    search.release();
    rows.release();
    d_pids.release();
    d_class.release();
#endif
  }
  return with.empty() ? std::nan("") : median(with);
}

}  // namespace

int main(int argc, char** argv) {
  lsm::restart_with_huge_page_malloc(argv);  // first: glibc reads its tunables at the start
  std::string backends = "cpu,cuda";
  std::string stages = ",first pass,no ENN,full,no ENN relabel,full relabel,";  // comma-delimited
  bench::RawRasterArgs args;
  args.repeat = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() { return std::string(i + 1 < argc ? argv[++i] : ""); };
    if (args.take(a, next)) continue;
    if (a == "--backends") backends = next();
    else if (a == "--stages") stages = "," + next() + ",";
    else {
      std::fprintf(stderr, "usage: lsm_bench_metrics --raw FILE --width W --height H [--nodata V] [--cell C] "
                           "[--backends cpu,cuda] [--stages S1,S2] [--repeat N]\n");
      return 1;
    }
  }
  try {
    MemoryClassRaster raster = args.load();
    std::printf("raster %lldx%lld (%.2f Mpx), median of %d runs\n", (long long)raster.info().width,
                (long long)raster.info().height, raster.info().width * raster.info().height / 1e6, args.repeat);
    std::printf("%-8s %-16s %10s %10s\n", "backend", "stage", "ms", "patches");
    for (const std::string name : {"cpu", "cuda"}) {
      if (backends.find(name) == std::string::npos) continue;
      std::string why;
      if (name == "cuda" && !cuda_available(&why)) {
        std::printf("%-8s skipped: %s\n", "cuda", why.c_str());
        continue;
      }
      auto labeler = make_labeler(parse_backend(name));
      const std::unique_ptr<NeighbourhoodCounter> counter = second_pass_counter(*labeler);  // as lsm metrics
      // "relabel": the second pass labels the raster again (rasters above the
      // in-memory limit of lsm metrics); the other stages keep the scan's labels.
      for (const char* stage : {"first pass", "no ENN", "full", "no ENN relabel", "full relabel", "ENN alone",
                                "rows alone", "PROX 500m", "PROX 2km", "CONNECT 500m", "CONNECT 2km", "SIMI 500m",
                                "SIMI 2km"}) {
        const std::string s = stage;
        if (stages.find("," + s + ",") == std::string::npos) continue;
        if (s == "ENN alone" || s == "rows alone") {
          const double ms = alone_ms(raster, *labeler, counter.get(), args.repeat, s.substr(0, s.find(' ')));
          std::printf("%-8s %-16s %10.1f\n", name.c_str(), stage, ms);
          continue;
        }
        std::vector<double> ms;
        size_t patches = 0;
        for (int r = 0; r < args.repeat; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          ScanOptions o;
          o.keep_patch_ids = s != "first pass";
          if (s.find("relabel") == std::string::npos) o.keep_labels_max_bytes = int64_t(1) << 40;
          const PatchTable t = scan_patches(raster, *labeler, o);
          if (s == "first pass") {
            patches = area_edge_tables(t).patch.rows.size();
          } else {
            RowMetricOptions ro;
            const bool simi = s.rfind("SIMI", 0) == 0;
            const bool distance = s.rfind("PROX", 0) == 0 || s.rfind("CONNECT", 0) == 0 || simi;
            ro.want_enn = s.rfind("full", 0) == 0 || distance;
            ro.counter = counter.get();
            const double metres = s.find("2km") != std::string::npos ? 2000 : 500;
            if (s.rfind("PROX", 0) == 0 || simi) ro.search_radius_m = metres;
            if (simi) ro.similarity = every_class_similar();
            if (s.rfind("CONNECT", 0) == 0) ro.threshold_m = metres;
            const PatchRowResults rows = compute_patch_row_metrics(raster, *labeler, t, ro);
            const FragstatsMetrics m = compute_fragstats_metrics(t, rows, MetricOptions{});
            patches = m.patch.rows.size();
          }
          ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(ms.begin(), ms.end());
        std::printf("%-8s %-16s %10.1f %10zu\n", name.c_str(), stage, ms[ms.size() / 2], patches);
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "lsm_bench_metrics: %s\n", e.what());
    return 1;
  }
  return 0;
}
