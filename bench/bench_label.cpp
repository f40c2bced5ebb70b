// Labeling-with-statistics benchmark on in-memory rasters (no GDAL needed):
// times scan_patches() for each backend and tile size on a raw Byte raster
// (--raw FILE --width W --height H [--nodata V] [--cell C]) or a synthetic
// landscape (--synth W H). Prints one line per run: backend, tile, median
// time of --repeat runs of the scan and the records-only tables (every
// metric of the patch records, as lsm metrics makes them), Mpx/s, patches;
// then the scan alone (scan_ms: labelled, seams merged, patches in PID
// order), the backend alone on tiles already read (label_only_ms), the
// scheduler alone (read_only_ms) and the time the scan spent in the backend
// (in_backend_ms). See bench/RESULTS.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "area_edge_tables.h"
#include "error.h"
#include "huge_page_malloc.h"
#include "memory_raster.h"
#include "patch_scan.h"
#include "raw_input.h"
#include "tile_scheduler.h"

using namespace lsm;

namespace {

// Forwards to a backend and adds up the time spent in it, so that a whole
// scan splits into the backend's part and the rest (reading, seam merge).
class TimedLabeler final : public TileLabeler {
 public:
  explicit TimedLabeler(TileLabeler& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  void label_tiles(const std::vector<TileInput>& tiles, NeighbourRule rule, bool want_labels,
                   std::vector<TileLabels>& out) override {
    const auto t0 = std::chrono::steady_clock::now();
    inner_.label_tiles(tiles, rule, want_labels, out);
    ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  double ms = 0;

 private:
  TileLabeler& inner_;
};

}  // namespace

int main(int argc, char** argv) {
  lsm::restart_with_huge_page_malloc(argv);  // first: glibc reads its tunables at the start
  bench::RawRasterArgs args;
  std::vector<int64_t> tiles = {0};
  std::vector<std::string> backends = {"cpu", "cuda"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() { return std::string(i + 1 < argc ? argv[++i] : ""); };
    if (args.take(a, next)) continue;
    if (a == "--tiles") {
      tiles.clear();
      std::string list = next();
      for (size_t p = 0; p < list.size();) {
        size_t q = list.find(',', p);
        tiles.push_back(std::stoll(list.substr(p, q - p)));
        p = q == std::string::npos ? list.size() : q + 1;
      }
    } else if (a == "--backends") {
      std::string b = next();
      backends.clear();
      if (b.find("cpu") != std::string::npos) backends.push_back("cpu");
      if (b.find("cuda") != std::string::npos) backends.push_back("cuda");
    } else {
      std::fprintf(stderr, "usage: lsm_bench_label --raw FILE --width W --height H [--nodata V] [--cell C] "
                           "[--tiles 0,1024,...] [--backends cpu,cuda] [--repeat N]\n");
      return 1;
    }
  }
  try {
    MemoryClassRaster raster = args.load();
    const int64_t width = raster.info().width, height = raster.info().height;
    std::printf("raster %lldx%lld (%.1f Mpx)\n", (long long)width, (long long)height, width * height / 1e6);
    std::printf("%-8s %-8s %12s %10s %10s %10s %14s %13s %14s\n", "backend", "tile", "median_ms", "Mpx/s", "patches",
                "scan_ms", "label_only_ms", "read_only_ms", "in_backend_ms");
    for (const std::string& name : backends) {
      std::string why;
      if (name == "cuda" && !cuda_available(&why)) {
        std::printf("%-8s skipped: %s\n", "cuda", why.c_str());
        continue;
      }
      auto labeler = make_labeler(parse_backend(name));
      for (int64_t tile : tiles) {
        ScanOptions o;
        o.tile_width = o.tile_height = tile;
        std::vector<double> ms, scan_ms, in_backend_ms;
        size_t patches = 0;
        scan_patches(raster, *labeler, o);  // warm-up: pools, module load
        for (int r = 0; r < args.repeat; ++r) {
          TimedLabeler timed(*labeler);
          const auto t0 = std::chrono::steady_clock::now();
          const PatchTable t = scan_patches(raster, timed, o);
          scan_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
          const FragstatsMetrics m = area_edge_tables(t);
          ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
          patches = m.patch.rows.size();
          in_backend_ms.push_back(timed.ms);
        }
        std::sort(in_backend_ms.begin(), in_backend_ms.end());
        std::sort(scan_ms.begin(), scan_ms.end());
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        // The labeling alone (tiles already cut in memory, no seam merge): what the backend costs.
        const TileGrid grid = plan_tiles(raster.info(), tile, tile);
        std::vector<std::vector<TileInput>> rows;
        stream_tile_rows(raster, grid, [&](int64_t, std::vector<TileInput>& t) { rows.push_back(std::move(t)); });
        std::vector<TileLabels> out;
        std::vector<double> label_ms;
        for (int r = 0; r < args.repeat; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          for (const auto& row : rows) labeler->label_tiles(row, NeighbourRule::Eight, false, out);
          label_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(label_ms.begin(), label_ms.end());
        // The scheduler alone (strips read and cut, nothing computed): the pipeline's input floor.
        std::vector<double> read_ms;
        rows.clear();
        for (int r = 0; r < args.repeat; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          stream_tile_rows(raster, grid, [](int64_t, std::vector<TileInput>&) {});
          read_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(read_ms.begin(), read_ms.end());
        std::printf("%-8s %-8lld %12.1f %10.1f %10zu %10.1f %14.1f %13.1f %14.1f\n", name.c_str(), (long long)tile, med,
                    width * height / 1e6 / (med / 1e3), patches, scan_ms[scan_ms.size() / 2], label_ms[label_ms.size() / 2],
                    read_ms[read_ms.size() / 2], in_backend_ms[in_backend_ms.size() / 2]);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lsm_bench_label: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
