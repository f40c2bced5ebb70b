#pragma once
// CSV fields as lsm's tables write and read them (RFC 4180): a field holding
// a comma, a double quote or a line break is quoted, a quote inside doubled.
// Class names are the only such fields ("Grass, dry").
#include <string>
#include <vector>

namespace lsm {

/// `text` as one CSV field: unchanged, or in double quotes with '"' doubled.
std::string quote_csv_field(const std::string& text);

/// The fields of one CSV line, quotes removed ("a,\"b, c\",," gives a | b, c
/// | | ""). A line without quotes splits at every comma.
std::vector<std::string> split_csv_line(const std::string& line);

/// `text` without the spaces around it and without one pair of double quotes
/// around what is left (a field of a hand-written file: ' "a b" ' gives a b).
std::string trimmed_field(const std::string& text);

}  // namespace lsm
