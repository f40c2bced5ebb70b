#pragma once
// The one error system of lsm: every failure the user can cause or meet
// (bad input, unwritable output, missing backend, CUDA failure) is thrown as
// lsm::Error with a one-line message that names the problem. The CLI prints
// it as one line on stderr and exits non-zero.
#include <stdexcept>
#include <string>

namespace lsm {

/// What kind of failure an Error is; the CLI maps every kind to exit code 1,
/// tests use it to check that the right check fired.
enum class ErrorKind {
  BadInput,     ///< the input raster or an option value is unusable
  Io,           ///< a file could not be read, created or renamed
  Backend,      ///< the requested backend is unavailable (no CUDA build, no device)
  Device,       ///< a CUDA call failed
  Internal      ///< a broken invariant inside lsm (a bug)
};

/// The exception type of lsm. what() is a single line without a trailing
/// newline or space: control characters of the message (a file name or an
/// option value that holds a newline, echoed) become '?'.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(one_line(message)), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  static std::string one_line(std::string text) {
    for (char& c : text)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
  }
  ErrorKind kind_;
};

}  // namespace lsm
