#include "fragstats_core_parallel.h"

#include <vector>

#include "error.h"
#include "serial_thresholds.h"

namespace lsm {

void fragstats_core_areas_in_parallel(const uint32_t* pids, const uint8_t* core, int64_t width, int64_t height,
                                      const PagedArray<uint32_t>& last_row_of_pid, const CellGeometry* geometry,
                                      const std::function<void(uint32_t, const CountedCoreArea&)>& found) {
  const size_t patches = last_row_of_pid.size() - 1;
  // The runs of core cells of one patch in row y (as the core visitor cuts them).
  auto for_each_core_run = [&](int64_t y, auto&& f) {
    const uint32_t* row = pids + y * width;
    const uint8_t* mask = core + y * width;
    for (int64_t x0 = 0; x0 < width;) {
      if (!mask[x0]) {
        ++x0;
        continue;
      }
      int64_t x1 = x0;
      while (x1 + 1 < width && mask[x1 + 1] && row[x1 + 1] == row[x0]) ++x1;
      f(row[x0], x0, x1);
      x0 = x1 + 1;
    }
  };
  // 1. Core runs per patch, and the order in which the patches close: by
  //    their last row, then by their first cell in it.
  std::vector<uint64_t> first_run(patches + 2, 0);
  std::vector<uint32_t> closing;
  closing.reserve(patches);
  for (int64_t y = 0; y < height; ++y) {
    for_each_core_run(y, [&](uint32_t p, int64_t, int64_t) { ++first_run[p + 1]; });
    const uint32_t* row = pids + y * width;
    for (int64_t x = 0; x < width; ++x) {
      const uint32_t p = row[x];
      if (p && (x == 0 || row[x - 1] != p) && last_row_of_pid[p] == static_cast<uint64_t>(y) &&
          (closing.empty() || closing.back() != p))
        closing.push_back(p);
    }
  }
  // A patch with several runs in its last row entered it more than once above, not always in a row.
  {
    std::vector<uint8_t> seen(patches + 1, 0);
    size_t kept = 0;
    for (const uint32_t p : closing)
      if (!seen[p]) seen[p] = 1, closing[kept++] = p;
    closing.resize(kept);
  }
  for (size_t p = 1; p <= patches + 1; ++p) first_run[p] += first_run[p - 1];
  std::vector<CellRun> runs(first_run[patches + 1]);
  {
    std::vector<uint64_t> next(first_run.begin(), first_run.end() - 1);
    for (int64_t y = 0; y < height; ++y)
      for_each_core_run(y, [&](uint32_t p, int64_t x0, int64_t x1) {
        runs[next[p]++] = CellRun{static_cast<int32_t>(y), static_cast<int32_t>(x0), static_cast<int32_t>(x1)};
      });
  }
  // 2. FRAGSTATS' scan, patch by patch in parallel (large patches first
  //    would balance better; dynamic scheduling of small blocks does well enough).
  std::vector<std::vector<CountedCoreArea>> areas(patches + 1);
  std::exception_ptr failure;
#pragma omp parallel if (runs.size() > kSerialRuns)
  {
    std::vector<CellRun> mine;
#pragma omp for schedule(dynamic, 256)
    for (int64_t p = 1; p <= static_cast<int64_t>(patches); ++p) {
      const uint64_t b = first_run[static_cast<size_t>(p)], e = first_run[static_cast<size_t>(p) + 1];
      if (b == e) continue;
      try {
        mine.assign(runs.begin() + static_cast<int64_t>(b), runs.begin() + static_cast<int64_t>(e));
        areas[static_cast<size_t>(p)] = fragstats_core_areas(mine, geometry);
      } catch (...) {
#pragma omp critical(lsm_core_parallel_failure)
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
  // 3. In the streamed path's order.
  for (const uint32_t p : closing)
    for (const CountedCoreArea& a : areas[p]) found(p, a);
}

}  // namespace lsm
