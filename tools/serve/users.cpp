#include "users.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "error.h"

namespace lsm::serve {

namespace fs = std::filesystem;

namespace {

// Equal strings, in a time that depends on their lengths only: a client
// timing its guesses learns nothing of a token's characters.
bool same(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % std::max<size_t>(1, b.size())]);
  return diff == 0;
}

bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

bool valid_token(const std::string& token) {
  return !token.empty() && token.size() <= 4096 &&
         std::all_of(token.begin(), token.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f && c != ':'; });
}

}  // namespace

Users::Users(const std::string& path) {
  // A file of tokens, not a device or a pipe (/dev/zero would be read forever).
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) > (1 << 20))
    throw Error(ErrorKind::BadInput, "--token-file '" + path + "' must be a regular file of at most 1 MiB");
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::BadInput, "--token-file '" + path + "' cannot be read");
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line.erase(line.find_last_not_of(" \t\r") + 1);
    line.erase(0, line.find_first_not_of(" \t"));
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "--token-file '" + path + "' line " + std::to_string(number);
    Entry e;
    const size_t first = line.find(':');
    if (first == std::string::npos) {
      e.user.name = "default";
      e.token = line;
    } else {
      e.user.name = line.substr(0, first);
      const size_t second = line.find(':', first + 1);
      e.token = line.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
      if (second != std::string::npos) {
        if (line.substr(second + 1) != "admin")
          throw Error(ErrorKind::BadInput, where + ": after USER:TOKEN only ':admin' may follow");
        e.user.admin = true;
      }
    }
    if (!valid_name(e.user.name))
      throw Error(ErrorKind::BadInput, where + ": a user name is 1 to 64 of A-Z a-z 0-9 . _ -");
    if (!valid_token(e.token))
      throw Error(ErrorKind::BadInput,
                  where + ": a token is 1 to 4096 printable characters without spaces or ':' (the line is not shown)");
    for (const Entry& other : entries_)
      if (other.token == e.token) throw Error(ErrorKind::BadInput, where + ": this token is already given to a user");
    entries_.push_back(std::move(e));
  }
  if (entries_.empty()) throw Error(ErrorKind::BadInput, "--token-file '" + path + "' holds no token");
}

std::optional<User> Users::authenticate(const std::string& authorization) const {
  if (entries_.empty()) return User{};
  const std::string scheme = "Bearer ";
  if (authorization.size() <= scheme.size() || authorization.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
  const std::string token = authorization.substr(scheme.size());
  std::optional<User> found;
  for (const Entry& e : entries_)  // every entry compared: the time does not say which one matched
    if (same(token, e.token)) found = e.user;
  return found;
}

}  // namespace lsm::serve
