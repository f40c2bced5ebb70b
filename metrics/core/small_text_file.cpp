#include "small_text_file.h"

#include <sys/stat.h>

#include <fstream>

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

}  // namespace lsm
