#pragma once
// Connection strings of the LSM GDAL driver:
//   LSM:<operation>[:<option>=<value>...]:<path>
// e.g. LSM:label:neighbors=8:landcover.tif. Open options (-oo NAME=VALUE)
// give the same options; the connection string wins where both give one.
#include <map>
#include <string>
#include <vector>

namespace lsm::gdal_plugin {

constexpr const char* kPrefix = "LSM:";

struct Connection {
  std::string operation;                      ///< label, gradient, fuzzy
  std::map<std::string, std::string> options;  ///< lower-case names
  std::string path;                            ///< the source raster

  /// The option's value, or `fallback` when absent.
  std::string get(const std::string& name, const std::string& fallback = "") const;
  /// Integer / real options; throw lsm::Error(BadInput) naming the option when malformed.
  long long get_integer(const std::string& name, long long fallback) const;
  double get_real(const std::string& name, double fallback) const;
  bool get_flag(const std::string& name) const;  ///< YES/TRUE/ON/1 or NO/FALSE/OFF/0
  bool has(const std::string& name) const { return options.count(name) != 0; }
};

/// Parses `text` (with the LSM: prefix) and the NAME=VALUE `open_options`
/// (may be null). Throws lsm::Error(BadInput) naming the problem: no
/// operation, no path, an option without '=', an unknown operation.
Connection parse_connection(const std::string& text, const char* const* open_options);

/// The operations and the options each takes, for the driver's metadata and
/// to refuse unknown options.
const std::map<std::string, std::vector<std::string>>& operation_options();

}  // namespace lsm::gdal_plugin
