#pragma once
// Values written as raw bytes and read back, for the messages that travel
// between processes of one run (MPI ranks: row_ranges.h's summaries, the
// operation layer's scan requests). Both ends are the same lsm build on
// hosts of one byte order; each message begins with what checks that.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "error.h"

namespace lsm {

/// Appends trivially copyable values, arrays of them (their count first, as
/// uint64_t) and texts (the same) to `bytes`.
struct ByteWriter {
  std::vector<uint8_t> bytes;

  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "raw bytes only");
    const auto* b = reinterpret_cast<const uint8_t*>(&v);
    bytes.insert(bytes.end(), b, b + sizeof v);
  }
  template <class T>
  void array(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>, "raw bytes only");
    value(static_cast<uint64_t>(v.size()));
    if (v.empty()) return;  // data() may be null
    const auto* b = reinterpret_cast<const uint8_t*>(v.data());
    bytes.insert(bytes.end(), b, b + v.size() * sizeof(T));
  }
  void text(const std::string& s) {
    value(static_cast<uint64_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
};

/// Reads back what a ByteWriter wrote, in the same order. Throws
/// lsm::Error(Internal) "<what> ends early" where the bytes run out (`what`
/// names the message: "a row range summary").
struct ByteReader {
  const std::vector<uint8_t>& bytes;
  const char* what;
  size_t at = 0;

  template <class T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>, "raw bytes only");
    need(sizeof(T));
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  template <class T>
  std::vector<T> array() {
    const uint64_t n = value<uint64_t>();
    if (n > (bytes.size() - at) / sizeof(T)) ends_early();
    std::vector<T> v(static_cast<size_t>(n));
    if (n) std::memcpy(v.data(), bytes.data() + at, static_cast<size_t>(n) * sizeof(T));
    at += static_cast<size_t>(n) * sizeof(T);
    return v;
  }
  std::string text() {
    const uint64_t n = value<uint64_t>();
    if (n > bytes.size() - at) ends_early();
    std::string s(reinterpret_cast<const char*>(bytes.data() + at), static_cast<size_t>(n));
    at += static_cast<size_t>(n);
    return s;
  }

 private:
  void need(size_t n) const {
    if (n > bytes.size() - at) ends_early();
  }
  [[noreturn]] void ends_early() const { throw Error(ErrorKind::Internal, std::string(what) + " ends early"); }
};

}  // namespace lsm
