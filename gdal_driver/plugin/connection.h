#pragma once
// Connection strings of the LSM GDAL driver:
//   LSM:<operation>[:<option>=<value>...]:<path>
// e.g. LSM:label:neighbors=8:landcover.tif. Open options (-oo NAME=VALUE)
// give the same options; the connection string wins where both give one.
// The operations and their options are those of the operation layer
// (gdal_driver/operations/operations.h) that the driver shows, checked by
// the same validators as the command line's.
#include <string>

#include "operation_spec.h"

namespace lsm::gdal_plugin {

constexpr const char* kPrefix = "LSM:";

struct Connection {
  const ops::Operation& operation;
  std::string path;            ///< the source raster
  ops::ParameterValues values;  ///< checked; "input" is `path`
};

/// Parses `text` (with the LSM: prefix) and the NAME=VALUE `open_options`
/// (may be null); option names in any case, repeatable values separated by
/// ';'. Throws lsm::Error(BadInput) naming the problem: no operation, no
/// path, an option without '=', an unknown operation or option, a bad value,
/// a missing required option.
Connection parse_connection(const std::string& text, const char* const* open_options);

/// GDAL_DMD_OPENOPTIONLIST: every option of every operation the driver shows.
std::string open_option_list();

}  // namespace lsm::gdal_plugin
