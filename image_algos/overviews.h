#pragma once
// Power-of-two overviews (`lsm pyramid --overviews`, issue 6): GDAL's
// overview levels (factors 2, 4, 8 ..., each ceil(size / factor) cells), each
// computed from the previous one with GDAL's source windows
// (overview_math.h):
//   average: the mean of the window's cells with data, its edge cells
//            weighted by their covered part (gdaladdo -r average);
//   mode:    the most frequent value with data, for categorical rasters
//            (gdaladdo -r mode, ties as GDAL breaks them).
// NaN is nodata: an overview cell with no data under it is NaN. The CPU pass
// is the reference; the CUDA pass (cuda/overview_pass_cuda.cu) gives the same floats.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tile_labeler.h"  // Backend

namespace lsm {

enum class OverviewMethod { Average, Mode };

/// "average" or "mode". Throws lsm::Error(BadInput) otherwise.
OverviewMethod parse_overview_method(const std::string& name);

/// The overview factors 2, 4, 8, ... down to the first level whose larger
/// side is at most `smallest` cells (gdaladdo's default stops at one block of
/// 256); none when the raster already fits.
std::vector<int> overview_factors(int64_t width, int64_t height, int64_t smallest = 256);

/// The size of a level: ceil(size / factor), as GDAL sizes overviews.
inline int64_t overview_size(int64_t size, int factor) { return (size + factor - 1) / factor; }

/// One level made from the level before it (or the raster).
struct OverviewGeometry {
  int64_t source_width = 0, source_height = 0, width = 0, height = 0;
  double ratio_x = 2, ratio_y = 2;  ///< source size / level size, as GDAL computes them
};
OverviewGeometry overview_geometry(int64_t source_width, int64_t source_height);

/// The source rows [first, last) that level rows [y0, y1) read.
void overview_source_rows(const OverviewGeometry& g, int64_t y0, int64_t y1, int64_t* first, int64_t* last);

/// A backend's reduction of rows of one band.
class OverviewPass {
 public:
  virtual ~OverviewPass() = default;
  /// Level rows [y0, y0 + rows) (full width) into `out`, from `source`:
  /// source rows [source_row0, source_row0 + source_rows), full width, as
  /// overview_source_rows gives them (NaN = nodata). Throws lsm::Error(Device).
  virtual void reduce(const OverviewGeometry& g, OverviewMethod method, const float* source, int64_t source_row0,
                      int64_t source_rows, int64_t y0, int64_t rows, float* out) = 0;
  virtual const char* name() const = 0;
};

/// The CPU reference, multithreaded with OpenMP.
std::unique_ptr<OverviewPass> make_cpu_overview_pass();

/// The pass of `backend` (Auto: CUDA when present); defined in lsm_engine.
/// Throws lsm::Error(Backend) when CUDA is asked for and absent.
std::unique_ptr<OverviewPass> make_overview_pass(Backend backend);

}  // namespace lsm
