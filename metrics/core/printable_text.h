#pragma once
// Text from files (class names of a descriptor file or a raster attribute
// table) made safe for lsm's tables and terminal output: control characters
// (terminal escape sequences, NUL, newlines) and bytes that are not UTF-8
// each become '?', so that a CSV stays one row a line and --print cannot
// drive the terminal.
#include <string>

namespace lsm {

/// `text` with every control character (U+0000..U+001F, U+007F) and every
/// byte that does not belong to a well-formed UTF-8 sequence replaced by '?'.
std::string printable_text(const std::string& text);

}  // namespace lsm
