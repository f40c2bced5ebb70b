#include "class_descriptors.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <vector>

#include "error.h"
#include "printable_text.h"
#include "small_text_file.h"

namespace lsm {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

ClassDescriptors read_class_descriptors(const std::string& path) {
  ClassDescriptors d;
  for_each_csv_record(path, "the class descriptor file", 1 << 20, false, [&](const std::vector<std::string>& fields, int,
                                                                             const std::string& where) {
    if (fields.size() != 4)
      throw Error(ErrorKind::BadInput, where + std::to_string(fields.size()) +
                                           " fields, expected 4: ID, Name, Enabled, IsBackground");
    if (lower(fields[0]) == "id") return;  // the header line
    char* end = nullptr;
    errno = 0;
    const long long id = std::strtoll(fields[0].c_str(), &end, 10);
    if (fields[0].empty() || *end || errno == ERANGE || id < INT32_MIN || id > INT32_MAX)
      throw Error(ErrorKind::BadInput, where + "'" + fields[0].substr(0, 40) + "' is not a class code (an int32 integer)");
    auto flag = [&](const std::string& value, const char* what) {
      const std::string v = lower(value);
      if (v == "true" || v == "1" || v == "yes") return true;
      if (v == "false" || v == "0" || v == "no") return false;
      throw Error(ErrorKind::BadInput, where + std::string(what) + " must be true or false, not '" + value.substr(0, 40) + "'");
    };
    const int32_t code = static_cast<int32_t>(id);
    if (d.names.count(code)) throw Error(ErrorKind::BadInput, where + "class " + fields[0] + " is described twice");
    d.names[code] = printable_text(fields[1]);
    if (!flag(fields[2], "Enabled")) d.disabled.insert(code);
    if (flag(fields[3], "IsBackground")) d.background.insert(code);
  });
  return d;
}

}  // namespace lsm
