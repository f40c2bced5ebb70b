#include "printable_text.h"

namespace lsm {

std::string printable_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80) {
      out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
      ++i;
      continue;
    }
    // The length of a well-formed sequence starting here (RFC 3629), else 0.
    size_t length = 0;
    if (c >= 0xc2 && c <= 0xdf) length = 2;
    else if (c >= 0xe0 && c <= 0xef) length = 3;
    else if (c >= 0xf0 && c <= 0xf4) length = 4;
    bool ok = length > 0 && i + length <= n;
    for (size_t k = 1; ok && k < length; ++k) ok = (byte(i + k) & 0xc0) == 0x80;
    if (ok && length >= 3) {  // no overlong forms, surrogates or code points past U+10FFFF
      const unsigned char second = byte(i + 1);
      if ((c == 0xe0 && second < 0xa0) || (c == 0xed && second > 0x9f) || (c == 0xf0 && second < 0x90) ||
          (c == 0xf4 && second > 0x8f))
        ok = false;
    }
    if (!ok) {
      out += '?';
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out;
}

}  // namespace lsm
