#pragma once
// Who a request comes from: the users of --token-file, each known by a
// bearer token. A line is `USER:TOKEN` or `USER:TOKEN:admin` (an admin sees
// and dismisses every user's jobs); a bare `TOKEN` (the file's older form)
// belongs to the user `default`. Users see and dismiss only their own jobs.
#include <optional>
#include <string>
#include <vector>

namespace lsm::serve {

struct User {
  std::string name;  ///< "" when the service has no tokens (loopback, one user: every job is theirs)
  bool admin = false;
};

class Users {
 public:
  /// No tokens: every request is the one anonymous user, who sees every job.
  Users() = default;
  /// Reads --token-file `path`: a regular file of at most 1 MiB, `#`
  /// comments, blank lines ignored. Throws lsm::Error(BadInput) naming the
  /// line for a malformed one (a user name is 1-64 of A-Z a-z 0-9 . _ -; a
  /// token 1-4096 printable characters without spaces or ':'), a token given
  /// twice, or a file without tokens.
  explicit Users(const std::string& path);

  bool enabled() const { return !entries_.empty(); }
  /// The user whose token `authorization` ("Bearer TOKEN") carries, compared
  /// in constant time; nullopt for none. Without tokens, the anonymous user.
  std::optional<User> authenticate(const std::string& authorization) const;
  /// Whether `user` may see and dismiss a job `owner` submitted.
  static bool may_see(const User& user, const std::string& owner) { return user.admin || user.name == owner; }

 private:
  struct Entry {
    std::string token;
    User user;
  };
  std::vector<Entry> entries_;
};

}  // namespace lsm::serve
