#include "protected_inputs.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "error.h"

namespace lsm {

namespace {

struct ProtectedFile {
  dev_t device;
  ino_t inode;
  std::string spelled;    // as the user gave it, for the message
  std::string canonical;  // realpath, for the sidecar names
};

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::vector<ProtectedFile>& registry() {
  static std::vector<ProtectedFile> files;
  return files;
}

std::string canonical_path(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) ? std::string(resolved) : std::string();
}

// The canonical name of a file that may not exist yet: its folder resolved,
// its own name kept.
std::string canonical_destination(const std::string& path) {
  const std::string::size_type slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string resolved_folder = canonical_path(folder);
  if (resolved_folder.empty()) return std::string();
  return (resolved_folder == "/" ? "" : resolved_folder) + "/" + name;
}

}  // namespace

void protect_input_file(const std::string& path) {
  struct stat st;
  if (path.rfind("/vsi", 0) == 0 || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (const ProtectedFile& f : registry())
    if (f.device == st.st_dev && f.inode == st.st_ino) return;
  registry().push_back({st.st_dev, st.st_ino, path, canonical_path(path)});
}

void refuse_overwriting_input(const std::string& output_path) {
  struct stat st;
  const bool exists = ::stat(output_path.c_str(), &st) == 0;
  const std::string destination = canonical_destination(output_path);
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (const ProtectedFile& f : registry()) {
    if (exists && f.device == st.st_dev && f.inode == st.st_ino)
      throw Error(ErrorKind::BadInput, "output '" + output_path + "' is the input '" + f.spelled +
                                           "': lsm never overwrites an input; choose another output name");
    if (destination.empty() || f.canonical.empty()) continue;
    for (const char* sidecar : {".ovr", ".aux.xml", ".msk"})
      if (destination == f.canonical + sidecar)
        throw Error(ErrorKind::BadInput, "output '" + output_path + "' is the " + sidecar + " file GDAL reads with the input '" +
                                             f.spelled + "': lsm never overwrites an input; choose another output name");
  }
}

}  // namespace lsm
