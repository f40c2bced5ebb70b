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

 private:
  bool inside(const std::string& canonical) const;
  std::vector<std::string> roots_;
};

}  // namespace lsm::serve
