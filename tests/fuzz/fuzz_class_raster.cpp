// Fuzz target: reading a (mutated) GeoTIFF of class codes through GDAL's
// /vsimem/ and labeling its patches, as `lsm label` does. Rasters above a
// million cells are skipped (a fuzz input is a few kB; GDAL's own fuzzers
// bound sizes the same way). Every input either labels or throws
// lsm::Error whose line names a cause.
#include <cpl_vsi.h>
#include <gdal_priv.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "error.h"
#include "gdal_class_raster.h"
#include "gdal_environment.h"
#include "gdal_errors.h"
#include "patch_scan.h"
#include "tile_labeler.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  lsm::prepare_gdal_for_streaming();
  CPLSetErrorHandler(lsm::remember_gdal_failure);
  CPLSetConfigOption("GDAL_NUM_THREADS", "1");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* path = "/vsimem/lsm_fuzz.tif";
  VSIFCloseL(VSIFileFromMemBuffer(path, const_cast<GByte*>(data), size, FALSE));
  try {
    lsm::GdalClassRaster source(path, 1);
    const lsm::RasterInfo info = source.info();
    if (info.width * info.height <= 1000000) {
      auto labeler = lsm::make_labeler(lsm::Backend::Cpu);
      lsm::ScanOptions options;
      options.tile_width = 64;
      options.tile_height = 64;
      lsm::scan_patches(source, *labeler, options);
    }
  } catch (const lsm::Error& e) {
    const std::string message = e.what();
    if (message.empty() || message.back() == ' ' || message.find('\n') != std::string::npos) std::abort();
  }
  VSIUnlink(path);
  return 0;
}
