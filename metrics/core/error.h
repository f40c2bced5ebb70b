#pragma once
// The one error system of lsm: every failure the user can cause or meet
// (bad input, unwritable output, missing backend, CUDA failure) is thrown as
// lsm::Error with a one-line message that names the problem. The CLI prints
// it as one line on stderr and exits non-zero.
#include <cstddef>
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
/// option value that holds a newline, echoed) become '?'. A message longer
/// than kMaxErrorLength bytes (a pasted value of kilobytes, echoed) keeps its
/// start, which names the option or file, and its end, which says what was
/// expected, around " ... ": one line a terminal or a log can show.
class Error : public std::runtime_error {
 public:
  static constexpr size_t kMaxErrorLength = 480;

  Error(ErrorKind kind, const std::string& message) : std::runtime_error(one_line(message)), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  static std::string one_line(std::string text) {
    for (char& c : text)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    if (text.size() > kMaxErrorLength) {
      const std::string gap = " ... ";
      const size_t keep = (kMaxErrorLength - gap.size()) / 2;
      const auto continuation = [&](size_t i) { return (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80; };
      size_t head = keep, tail = text.size() - keep;
      while (head > 0 && continuation(head)) --head;  // cut between UTF-8 characters, never inside one
      while (tail < text.size() && continuation(tail)) ++tail;
      text = text.substr(0, head) + gap + text.substr(tail);
    }
    return text;
  }
  ErrorKind kind_;
};

}  // namespace lsm
