// The first pass across MPI ranks (row_ranges.h, docs/SCALING.md) on an
// in-memory raw Byte raster or its mirror mosaic (bench/raw_input.h), for
// the machine that has no GDAL:
//   mpirun -n N lsm_bench_row_ranges --raw FILE --width W --height H [--nodata V] [--mosaic W H]
//          [--backend cpu|cuda] [--check]
// With --backend cuda the ranks of a host share its GPUs as lsm's do (one
// rank per GPU when there are as many ranks as GPUs).
// Each rank builds the raster, scans its range of tile rows and sends its
// summary to rank 0, which merges them. Prints, for the fastest of
// --repeat runs: the slowest rank's scan, the gather (bytes), the merge and
// the whole; with one rank also scan_patches() in one process. --check
// compares the merged records with scan_patches()'s on rank 0.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "huge_page_malloc.h"
#include "mpi_world.h"
#include "raw_input.h"
#include "row_ranges.h"
#include "tile_scheduler.h"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  lsm::restart_with_huge_page_malloc(argv);  // first: glibc reads its tunables at the start
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  lsm::bench::RawRasterArgs args;
  bool check = false;
  lsm::Backend backend = lsm::Backend::Cpu;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() { return std::string(i + 1 < argc ? argv[++i] : ""); };
    if (a == "--check") check = true;
    else if (a == "--backend") backend = lsm::parse_backend(next());
    else if (!args.take(a, next)) {
      if (rank == 0) std::fprintf(stderr, "usage: lsm_bench_row_ranges --raw FILE --width W --height H [--nodata V] [--mosaic W H] [--backend cpu|cuda] [--check]\n");
      MPI_Finalize();
      return 1;
    }
  }
  try {
    lsm::MemoryClassRaster raster = args.load();
    const lsm::mpi::HostRank host = lsm::mpi::host_rank_in_world();
    lsm::use_gpu_share_of_host_rank(host.rank, host.ranks);
    auto labeler = lsm::make_labeler(backend);
    if (rank == 0) std::printf("labeler of rank 0: %s\n", labeler->name().c_str());
    lsm::ScanOptions options;
    const lsm::RasterInfo info = raster.info();
    const lsm::TileGrid grid = lsm::plan_tiles(info, labeler->preferred_tile_width(info.width), 0, 0);
    const auto range = lsm::tile_row_ranges(grid, size)[static_cast<size_t>(rank)];
    double best = 1e30, best_scan = 0, best_gather = 0, best_merge = 0;
    uint64_t bytes = 0, patches = 0;
    for (int run = 0; run < args.repeat; ++run) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = now();
      const std::vector<uint8_t> mine =
          lsm::serialize_summary(lsm::scan_row_range(raster, *labeler, options, grid, range.first, range.second));
      double scan = now() - t0, slowest = 0;
      MPI_Reduce(&scan, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      const double t1 = now();
      const auto all = lsm::mpi::gather_on_rank0(mine);
      const double t2 = now();
      if (rank == 0) {
        std::vector<lsm::RowRangeSummary> summaries;
        bytes = 0;
        for (const auto& b : all) {
          bytes += b.size();
          summaries.push_back(lsm::deserialize_summary(b));
        }
        const lsm::PatchTable merged = lsm::merge_row_ranges(info, options.rule, grid, std::move(summaries));
        const double t3 = now();
        patches = merged.patches.size();
        if (t3 - t0 < best) {
          best = t3 - t0;
          best_scan = slowest;
          best_gather = t2 - t1;
          best_merge = t3 - t2;
        }
        if (check && run == 0) {
          lsm::ScanOptions one = options;
          one.tile_width = grid.tile_width;
          one.tile_height = grid.tile_height;
          const lsm::PatchTable alone = lsm::scan_patches(raster, *labeler, one);
          std::printf("check: %s\n", alone.patches == merged.patches ? "the merged records are scan_patches()'s" : "DIFFERENT");
        }
      }
    }
    if (rank == 0) {
      std::printf("ranks %d, %lld x %lld cells, %llu patches: whole %.3f s = slowest rank's scan %.3f s + gather %.3f s "
                  "(%.1f MB) + merge %.3f s\n",
                  size, static_cast<long long>(info.width), static_cast<long long>(info.height),
                  static_cast<unsigned long long>(patches), best, best_scan, best_gather, double(bytes) / 1e6, best_merge);
      if (size == 1) {
        double alone = 1e30;
        for (int run = 0; run < args.repeat; ++run) {
          const double t0 = now();
          lsm::scan_patches(raster, *labeler, options);
          alone = std::min(alone, now() - t0);
        }
        std::printf("one process, scan_patches(): %.3f s\n", alone);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
