#include "gdal_open.h"

#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>

#include "error.h"
#include "gdal_environment.h"

namespace lsm {

GDALDataset* open_input_raster(const std::string& path) {
  prepare_gdal_for_streaming();
  CPLErrorReset();
  VSIStatBufL stat;
  if (VSIStatL(path.c_str(), &stat) != 0 && path.find(':') == std::string::npos)  // "NETCDF:..." etc. are not files
    throw Error(ErrorKind::BadInput, "cannot open '" + path + "': no such file");
  GDALDataset* dataset =
      GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR);
  if (!dataset) {
    std::string why = CPLGetLastErrorMsg();
    if (why.empty() || why.find("not recognized as a supported file format") != std::string::npos)
      why = "not a raster format GDAL can read";
    throw Error(ErrorKind::BadInput, "cannot open '" + path + "' as a raster: " + why);
  }
  return dataset;
}

}  // namespace lsm
