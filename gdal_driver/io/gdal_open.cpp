#include "gdal_open.h"

#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>

#include <cstdio>
#include <string>

#include "error.h"
#include "gdal_environment.h"
#include "gdal_errors.h"
#include "protected_inputs.h"

namespace lsm {

namespace {

// A path as an error line quotes it: its first 200 characters.
std::string quoted(const std::string& path) {
  return "'" + (path.size() <= 200 ? path : path.substr(0, 200) + "...") + "'";
}

}  // namespace

GDALDataset* open_input_raster(const std::string& path) {
  prepare_gdal_for_streaming();
  forget_gdal_failures();
  VSIStatBufL stat;
  if (VSIStatL(path.c_str(), &stat) != 0 && path.find(':') == std::string::npos)  // "NETCDF:..." etc. are not files
    throw Error(ErrorKind::BadInput, "cannot open " + quoted(path) + ": no such file");
  GDALDataset* dataset =
      GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR);
  if (!dataset) {
    std::string why = gdal_failure_reason();
    if (why == kNoGdalReason) why.clear();
    if (why.empty() || why.find("not recognized as a supported file format") != std::string::npos)
      why = "not a raster format GDAL can read";
    throw Error(ErrorKind::BadInput, "cannot open " + quoted(path) + " as a raster: " + why);
  }
  // GDAL decodes a block whole, all bands at once when they are interleaved by
  // pixel: a damaged or odd header (58 881 samples per pixel) makes one block
  // gigabytes. Refuse before any read what no block-by-block run can bound.
  if (dataset->GetRasterCount() > 0) {
    int block_width = 0, block_height = 0;
    GDALRasterBand* band = dataset->GetRasterBand(1);
    band->GetBlockSize(&block_width, &block_height);
    const char* interleave = dataset->GetMetadataItem("INTERLEAVE", "IMAGE_STRUCTURE");
    const bool by_pixel = interleave && EQUAL(interleave, "PIXEL");
    const double bytes = double(block_width) * double(block_height) * GDALGetDataTypeSizeBytes(band->GetRasterDataType()) *
                         (by_pixel ? dataset->GetRasterCount() : 1);
    if (bytes > double(int64_t(1) << 30)) {
      char text[160];
      std::snprintf(text, sizeof text, "its blocks of %d x %d cells%s take %.1f GB each, more than lsm reads at once (1 GB)",
                    block_width, block_height,
                    by_pixel ? (" x " + std::to_string(dataset->GetRasterCount()) + " bands").c_str() : "", bytes / 1e9);
      GDALClose(dataset);
      throw Error(ErrorKind::BadInput, "cannot read " + quoted(path) + ": " + text);
    }
  }
  forget_gdal_failures();  // what failed while GDAL probed its drivers is not the run's cause
  // The raster and every sidecar GDAL read with it (.aux.xml, .ovr, world file)
  // become outputs no run may write.
  protect_input_file(path);
  char** files = dataset->GetFileList();
  for (char** f = files; f && *f; ++f) protect_input_file(*f);
  CSLDestroy(files);
  return dataset;
}

}  // namespace lsm
