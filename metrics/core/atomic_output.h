#pragma once
// Output files that appear only when complete: data is written to a temporary
// name beside the final path and renamed into place by commit(). If the
// object is destroyed without commit() (an error, an interruption) the
// temporary file is removed, so no half-written output is ever left behind.
#include <string>

namespace lsm {

class AtomicOutput {
 public:
  /// Creates the temporary file at once, so an unwritable destination fails
  /// before any work is done. Throws lsm::Error(Io) naming `final_path`, or
  /// lsm::Error(BadInput) when `final_path` is an input of this process
  /// (protected_inputs.h).
  explicit AtomicOutput(std::string final_path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  AtomicOutput(AtomicOutput&&) noexcept;

  const std::string& final_path() const { return final_; }
  const std::string& temp_path() const { return temp_; }
  /// Renames the temporary file onto the final path. Throws lsm::Error(Io).
  void commit();

 private:
  std::string final_, temp_;
  bool done_ = false;
  int slot_ = -1;  // in the registry of remove_temporary_outputs_now()
};

/// Removes the temporary file of every AtomicOutput alive now. Async-signal-
/// safe: for handlers of SIGINT/SIGTERM (a cancelled run), which then exit.
void remove_temporary_outputs_now();

/// For AtomicFolder: a temporary folder that remove_temporary_outputs_now()
/// empties and removes; the slot to unregister, -1 when none was free.
int register_temporary_folder(const std::string& path);
void unregister_temporary_folder(int slot);
/// A temporary file that remove_temporary_outputs_now() removes (the GDAL
/// driver's finished result before it is opened); the slot to unregister, -1
/// when none was free.
int register_temporary_file(const std::string& path);
void unregister_temporary_file(int slot);

}  // namespace lsm
