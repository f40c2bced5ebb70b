#pragma once
// Where the datasets of an execute request come from (OGC API - Processes
// 1.0, /req/core/job-creation-inputs: by reference or inline):
// - a reference to a file under a data root ({"href": "file:landcover/x.tif"},
//   data_roots.h);
// - an http(s) reference ({"href": "https://..."}) that starts with one of the
//   operator's `--allow-remote-inputs` prefixes, read through GDAL's /vsicurl/;
// - an inline value (qualifiedInputValue): base64 bytes ({"value": "SUkq...",
//   "encoding": "base64", "mediaType": "image/tiff"}; mediaType and encoding
//   also inside "format", as later drafts put them) or a GeoJSON object
//   ({"value": {"type": "FeatureCollection", ...}}). It is written under the
//   job's folder (.inputs/, bounded by --max-body) when the job is accepted,
//   and the stored request names it by a job: reference, so that whichever
//   node runs the job opens the same file.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data_roots.h"
#include "operation_spec.h"

namespace lsm::serve {

class InputSources {
 public:
  /// `remote_prefixes`: the URL prefixes remote references may start with
  /// (each http:// or https://; the scheme alone allows every URL of it);
  /// none = remote references refused.
  InputSources(const DataRoots& roots, std::vector<std::string> remote_prefixes);

  /// Writes each inline dataset value of `body`'s inputs (for the dataset
  /// inputs of `spec`) to `job_folder`/.inputs/NAME-N.EXT and replaces it in
  /// `body` by {"href": "job:.inputs/NAME-N.EXT"}. Throws lsm::Error(BadInput)
  /// naming the input for a value that is neither base64 nor GeoJSON, and
  /// lsm::Error(Io) when the folder cannot be written.
  void write_inline_values(const ops::OperationSpec& spec, nlohmann::json& body, const std::string& job_folder) const;

  /// What a run opens for `reference` (a job: reference relative to
  /// `job_folder`, a remote URL as /vsicurl/URL, else a canonical path under
  /// a data root). Throws lsm::Error(BadInput) naming the reference when it
  /// is refused: a remote URL no prefix allows, a job: reference that leaves
  /// the job's .inputs folder or names no file.
  std::string resolve(const std::string& reference, const std::string& job_folder) const;

  const DataRoots& roots() const { return roots_; }

 private:
  const DataRoots& roots_;
  std::vector<std::string> remote_prefixes_;
};

/// Checks `--allow-remote-inputs` prefixes: each http:// or https://,
/// without spaces, quotes or '@'. Throws lsm::Error(BadInput).
void check_remote_prefixes(const std::vector<std::string>& prefixes);

}  // namespace lsm::serve
