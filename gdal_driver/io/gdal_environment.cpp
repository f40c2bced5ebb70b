#include "gdal_environment.h"

#include <cpl_conv.h>
#include <gdal.h>

#include <mutex>

namespace lsm {

namespace {
std::once_flag settings_once;
}  // namespace

void leave_gdal_settings_to_host() {
  std::call_once(settings_once, [] {});
}

void prepare_gdal_for_streaming() {
  std::call_once(settings_once, [] {
    GDALAllRegister();
    if (!CPLGetConfigOption("GDAL_NUM_THREADS", nullptr)) CPLSetConfigOption("GDAL_NUM_THREADS", "ALL_CPUS");
    if (!CPLGetConfigOption("GDAL_CACHEMAX", nullptr)) GDALSetCacheMax64(int64_t(64) << 20);
  });
}

}  // namespace lsm
