#include "data_roots.h"

#include <filesystem>

#include "error.h"

namespace lsm::serve {

namespace fs = std::filesystem;

namespace {

// %2e%2e -> .., so encoded traversals are seen as what they are.
std::string percent_decoded(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

DataRoots::DataRoots(const std::vector<std::string>& roots) {
  for (const std::string& r : roots) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(r, ec);
    if (ec || !fs::is_directory(canonical)) throw Error(ErrorKind::BadInput, "--data-root '" + r + "' is not a folder");
    roots_.push_back(canonical.string());
  }
}

bool DataRoots::inside(const std::string& canonical) const {
  for (const std::string& root : roots_)
    if (canonical.size() > root.size() && canonical.compare(0, root.size(), root) == 0 &&
        (root.back() == '/' || canonical[root.size()] == '/'))
      return true;
  return false;
}

std::string DataRoots::resolve(const std::string& reference) const {
  std::string path = percent_decoded(reference);
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  else if (path.rfind("file:", 0) == 0) path = path.substr(5);
  const std::string refused = "input '" + reference + "' ";
  if (path.empty()) throw Error(ErrorKind::BadInput, refused + "names no file");
  for (const fs::path& part : fs::path(path))
    if (part == "..") throw Error(ErrorKind::BadInput, refused + "contains '..': inputs must lie under a data root");
  std::vector<fs::path> candidates;
  if (fs::path(path).is_absolute()) candidates.push_back(path);
  else
    for (const std::string& root : roots_) candidates.push_back(fs::path(root) / path);
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(candidate, ec);  // symbolic links resolved
    if (ec) continue;
    if (!inside(canonical.string()))
      throw Error(ErrorKind::BadInput, refused + "lies outside the data roots");
    if (!fs::is_regular_file(canonical)) throw Error(ErrorKind::BadInput, refused + "is not a file");
    return canonical.string();
  }
  if (fs::path(path).is_absolute() && !inside(fs::path(path).lexically_normal().string()))
    throw Error(ErrorKind::BadInput, refused + "lies outside the data roots");
  throw Error(ErrorKind::BadInput, refused + "does not exist under the data roots");
}

std::string DataRoots::without_server_paths(std::string message, const std::vector<std::string>& private_folders) const {
  const auto replace_all = [&message](const std::string& what, const std::string& with) {
    if (what.empty()) return;
    for (size_t at = message.find(what); at != std::string::npos; at = message.find(what, at + with.size()))
      message.replace(at, what.size(), with);
  };
  for (const std::string& folder : private_folders) {  // a job's folder: its outputs are known by name
    const std::string prefix = folder + "/";
    for (size_t at = message.find(prefix); at != std::string::npos; at = message.find(prefix, at)) {
      size_t end = message.find_first_of("'\" ", at + prefix.size());
      const size_t last_slash = message.rfind('/', end == std::string::npos ? std::string::npos : end - 1);
      message.erase(at, last_slash + 1 - at);
    }
    replace_all(folder, "(work folder)");
  }
  for (const std::string& root : roots_) {
    replace_all(root + "/", "");
    replace_all(root, ".");
  }
  return message;
}

}  // namespace lsm::serve
