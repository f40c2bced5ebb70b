#include "atomic_dataset.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "atomic_output.h"
#include "error.h"
#include "protected_inputs.h"

namespace lsm {

namespace fs = std::filesystem;

AtomicDatasetOutput::AtomicDatasetOutput(std::string final_path) : final_(std::move(final_path)) {
  refuse_overwriting_input(final_);
  name_ = fs::path(final_).filename().string();
  if (name_.empty() || name_ == "." || name_ == "..") throw Error(ErrorKind::BadInput, "'" + final_ + "' names no file");
  folder_ = final_ + ".lsm-tmp-" + std::to_string(::getpid()) + ".d";
  std::error_code ec;
  fs::remove_all(folder_, ec);  // left by a killed run of this same PID
  if (::mkdir(folder_.c_str(), 0777) != 0)
    throw Error(ErrorKind::Io, "cannot write '" + final_ + "': " + std::strerror(errno));
  slot_ = register_temporary_folder(folder_);
}

AtomicDatasetOutput::~AtomicDatasetOutput() {
  unregister_temporary_folder(slot_);
  if (done_) return;
  std::error_code ec;
  fs::remove_all(folder_, ec);
}

std::string AtomicDatasetOutput::temp_path() const { return (fs::path(folder_) / name_).string(); }

void AtomicDatasetOutput::commit() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder_, ec)) names.push_back(e.path().filename().string());
  if (ec) throw Error(ErrorKind::Io, "cannot create '" + final_ + "': " + ec.message());
  // Side files first, so that the named file never appears without them.
  std::stable_partition(names.begin(), names.end(), [this](const std::string& n) { return n != name_; });
  const fs::path destination = fs::path(final_).parent_path();
  for (const std::string& n : names) refuse_overwriting_input((destination / n).string());  // before any move
  for (const std::string& n : names) {
    const fs::path to = destination / n;
    fs::rename(fs::path(folder_) / n, to, ec);
    if (ec) throw Error(ErrorKind::Io, "cannot create '" + to.string() + "': " + ec.message());
  }
  unregister_temporary_folder(slot_);
  slot_ = -1;
  fs::remove_all(folder_, ec);
  done_ = true;
}

}  // namespace lsm
