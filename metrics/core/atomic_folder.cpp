#include "atomic_folder.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "atomic_output.h"
#include "error.h"
#include "protected_inputs.h"

namespace lsm {

AtomicFolder::AtomicFolder(std::string final_folder) : final_(std::move(final_folder)) {
  while (final_.size() > 1 && final_.back() == '/') final_.pop_back();
  temp_ = final_ + ".lsm-tmp-" + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::remove_all(temp_, ec);  // left by a killed run of this same PID
  // Registered before it exists, so that a signal while it is made removes it too.
  slot_ = register_temporary_folder(temp_);
  if (!std::filesystem::create_directories(temp_, ec) || ec) {
    unregister_temporary_folder(slot_);
    throw Error(ErrorKind::Io, "cannot create folder '" + final_ + "': " + (ec ? ec.message() : "it exists"));
  }
}

AtomicFolder::~AtomicFolder() {
  unregister_temporary_folder(slot_);
  if (done_) return;
  std::error_code ec;
  std::filesystem::remove_all(temp_, ec);
}

std::string AtomicFolder::path_for(const std::string& name) {
  const std::string final_path = (std::filesystem::path(final_) / name).string();
  refuse_overwriting_input(final_path);
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
  return (std::filesystem::path(temp_) / name).string();
}

void AtomicFolder::commit() {
  std::error_code ec;
  std::filesystem::create_directories(final_, ec);
  if (!std::filesystem::is_directory(final_)) throw Error(ErrorKind::Io, "cannot create folder '" + final_ + "'");
  for (const std::string& name : names_) {
    const std::filesystem::path from = std::filesystem::path(temp_) / name, to = std::filesystem::path(final_) / name;
    std::filesystem::rename(from, to, ec);
    if (ec) throw Error(ErrorKind::Io, "cannot create '" + to.string() + "': " + ec.message());
  }
  std::filesystem::remove_all(temp_, ec);
  done_ = true;
}

}  // namespace lsm
