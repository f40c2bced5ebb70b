#include "gdal_environment.h"

#include <cpl_conv.h>
#include <gdal.h>

#include <mutex>

namespace lsm {

void prepare_gdal_for_streaming() {
  static std::once_flag once;
  std::call_once(once, [] {
    GDALAllRegister();
    if (!CPLGetConfigOption("GDAL_NUM_THREADS", nullptr)) CPLSetConfigOption("GDAL_NUM_THREADS", "ALL_CPUS");
    if (!CPLGetConfigOption("GDAL_CACHEMAX", nullptr)) GDALSetCacheMax64(int64_t(64) << 20);
  });
}

}  // namespace lsm
