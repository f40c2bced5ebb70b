#include "small_text_file.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "csv_fields.h"
#include "error.h"
#include "protected_inputs.h"

namespace lsm {

std::string read_small_text_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(ErrorKind::BadInput, what + " '" + path + "' is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::BadInput, "cannot read " + what + " '" + path + "'");
  protect_input_file(path);
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)  // read no further: the file may be endless
      throw Error(ErrorKind::BadInput, what + " '" + path + "' is larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  if (in.bad()) throw Error(ErrorKind::BadInput, "cannot read " + what + " '" + path + "'");
  return text;
}

void for_each_csv_record(const std::string& path, const std::string& what, uint64_t max_bytes, bool comments,
                         const std::function<void(const std::vector<std::string>& fields, int line,
                                                  const std::string& where)>& record) {
  std::string text = read_small_text_file(path, what, max_bytes);
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string whole = trimmed_field(line);
    if (whole.empty() || (comments && whole[0] == '#')) continue;
    std::vector<std::string> fields = split_csv_line(line);
    for (std::string& f : fields) f = trimmed_field(f);
    record(fields, number, path + ":" + std::to_string(number) + ": ");
  }
}

}  // namespace lsm
