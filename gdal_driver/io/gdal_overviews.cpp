#include "gdal_overviews.h"

#include <cpl_vsi.h>
#include <gdal_priv.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "error.h"
#include "gdal_errors.h"
#include "gdal_open.h"

namespace lsm {

namespace {

constexpr int64_t kStripRows = 256;  // overview rows per strip

// Level `to` of `band` from `from` (the band or a finer level), in strips.
void fill_level(GDALRasterBand* from, GDALRasterBand* to, OverviewMethod method, OverviewPass& pass,
                const ProgressFn& progress) {
  const OverviewGeometry g = overview_geometry(from->GetXSize(), from->GetYSize());
  if (to->GetXSize() != g.width || to->GetYSize() != g.height)
    throw Error(ErrorKind::Internal, "GDAL made an overview of unexpected size");
  int has_nodata = 0;
  const double nodata = from->GetNoDataValue(&has_nodata);
  const float nodata_float = static_cast<float>(nodata);
  std::vector<float> in, out;
  for (int64_t y0 = 0; y0 < g.height; y0 += kStripRows) {
    const int64_t rows = std::min(kStripRows, g.height - y0);
    int64_t first = 0, last = 0;
    overview_source_rows(g, y0, y0 + rows, &first, &last);
    in.resize(static_cast<size_t>(g.source_width * (last - first)));
    out.resize(static_cast<size_t>(g.width * rows));
    CPLErrorReset();
    if (from->RasterIO(GF_Read, 0, static_cast<int>(first), static_cast<int>(g.source_width),
                       static_cast<int>(last - first), in.data(), static_cast<int>(g.source_width),
                       static_cast<int>(last - first), GDT_Float32, 0, 0) != CE_None)
      throw Error(ErrorKind::Io, std::string("reading for the overviews failed: ") + gdal_failure_reason());
    if (has_nodata)
      for (float& v : in)
        if (v == nodata_float) v = std::numeric_limits<float>::quiet_NaN();
    pass.reduce(g, method, in.data(), first, last - first, y0, rows, out.data());
    if (has_nodata)
      for (float& v : out)
        if (std::isnan(v)) v = nodata_float;
    if (to->RasterIO(GF_Write, 0, static_cast<int>(y0), static_cast<int>(g.width), static_cast<int>(rows), out.data(),
                     static_cast<int>(g.width), static_cast<int>(rows), GDT_Float32, 0, 0) != CE_None)
      throw Error(ErrorKind::Io, std::string("writing the overviews failed: ") + gdal_failure_reason());
    if (progress && !progress(static_cast<double>(y0 + rows) / static_cast<double>(g.height)))
      throw Error(ErrorKind::Io, "interrupted");
  }
}

}  // namespace

std::vector<int> build_overviews(const std::string& path, OverviewMethod method, OverviewPass& pass,
                                 const ProgressFn& progress) {
  GDALDatasetUniquePtr dataset(open_input_raster(path));
  const int64_t width = dataset->GetRasterXSize(), height = dataset->GetRasterYSize();
  const int bands = dataset->GetRasterCount();
  const std::string ovr = path + ".ovr";
  VSIStatBufL stat;
  if (VSIStatL(ovr.c_str(), &stat) == 0 || (bands > 0 && dataset->GetRasterBand(1)->GetOverviewCount() > 0))
    throw Error(ErrorKind::BadInput, "'" + path + "' already has overviews (remove them first, e.g. gdaladdo -clean)");
  const std::vector<int> factors = overview_factors(width, height);
  if (factors.empty() || bands == 0) return factors;
  CPLErrorReset();
  if (GDALBuildOverviews(dataset.get(), "NONE", static_cast<int>(factors.size()), factors.data(), 0, nullptr, nullptr,
                         nullptr) != CE_None)
    throw Error(ErrorKind::Io, "cannot create the overviews of '" + path + "': " + gdal_failure_reason());
  try {
    // Progress by cells written: level k has a quarter of level k-1's cells.
    double total = 0, done = 0;
    for (size_t k = 0; k < factors.size(); ++k) total += bands / std::pow(4.0, double(k + 1));
    for (int b = 1; b <= bands; ++b) {
      GDALRasterBand* band = dataset->GetRasterBand(b);
      if (band->GetOverviewCount() != static_cast<int>(factors.size()))
        throw Error(ErrorKind::Io, "GDAL made " + std::to_string(band->GetOverviewCount()) + " overview levels, not " +
                                       std::to_string(factors.size()));
      for (size_t k = 0; k < factors.size(); ++k) {
        const double share = 1.0 / std::pow(4.0, double(k + 1)) / total;
        fill_level(k == 0 ? band : band->GetOverview(static_cast<int>(k) - 1), band->GetOverview(static_cast<int>(k)),
                   method, pass, scaled_progress(progress, done, done + share));
        done += share;
      }
    }
    CPLErrorReset();
    dataset->FlushCache(false);
    dataset.reset();
    if (CPLGetLastErrorType() >= CE_Failure)
      throw Error(ErrorKind::Io, "writing '" + ovr + "' failed: " + gdal_failure_reason());
  } catch (...) {
    dataset.reset();
    VSIUnlink(ovr.c_str());
    throw;
  }
  return factors;
}

}  // namespace lsm
