#pragma once
// A set of output files that appear together or not at all (the levels of
// `lsm pyramid`): they are written into a temporary folder beside the final
// one and moved into it by commit(). Destroyed without commit() (an error, a
// cancelled run), the temporary folder and everything in it are removed, so a
// signal never leaves half a pyramid behind.
#include <string>
#include <vector>

namespace lsm {

class AtomicFolder {
 public:
  /// Creates FINAL.lsm-tmp-PID at once, so an unwritable destination fails
  /// before any work is done. Throws lsm::Error(Io) naming `final_folder`.
  explicit AtomicFolder(std::string final_folder);
  ~AtomicFolder();
  AtomicFolder(const AtomicFolder&) = delete;
  AtomicFolder& operator=(const AtomicFolder&) = delete;

  /// Where the file `name` is written until commit().
  std::string path_for(const std::string& name);
  /// Moves every file of path_for() into the final folder (created when
  /// missing; files of the same names there are replaced) and removes the
  /// temporary folder. Throws lsm::Error(Io).
  void commit();

 private:
  std::string final_, temp_;
  std::vector<std::string> names_;
  bool done_ = false;
  int slot_ = -1;  // in the registry of remove_temporary_outputs_now()
};

}  // namespace lsm
