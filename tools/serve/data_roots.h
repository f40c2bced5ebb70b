#pragma once
// Where a job's input rasters may come from: only files under the data roots
// (`lsm serve --data-root DIR`). A reference is {"href": "file:///abs/path"}
// or "file:..." or a path relative to a root; it is percent-decoded, and
// refused when it names '..', lies outside every root once symbolic links
// are resolved, or does not exist.
#include <string>
#include <vector>

namespace lsm::serve {

class DataRoots {
 public:
  /// Canonical forms of `roots`; throws lsm::Error(BadInput) for a root
  /// that is not an existing folder.
  explicit DataRoots(const std::vector<std::string>& roots);
  /// The canonical path of the file `reference` names. Throws
  /// lsm::Error(BadInput) naming the reference when it is refused.
  std::string resolve(const std::string& reference) const;
  const std::vector<std::string>& roots() const { return roots_; }
  /// `message` with every data root's path taken out ("/srv/data/landcover/
  /// x.tif" becomes "landcover/x.tif", as clients name it) and every path
  /// under `private_folders` (the work folder) cut to its file name: a
  /// client learns nothing of the server's file system from an error.
  std::string without_server_paths(std::string message, const std::vector<std::string>& private_folders = {}) const;

 private:
  bool inside(const std::string& canonical) const;
  std::vector<std::string> roots_;
};

}  // namespace lsm::serve
