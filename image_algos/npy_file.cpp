#include "npy_file.h"

#include <cstring>
#include <sstream>

#include "error.h"

namespace lsm {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

}  // namespace

NpyWriter::NpyWriter(const std::string& path, std::vector<int64_t> shape) : file_(path) {
  out_.open(file_.temp_path(), std::ios::binary | std::ios::trunc);
  if (!out_) throw Error(ErrorKind::Io, "cannot create '" + path + "'");
  std::string shape_str = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    shape_str += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size()) shape_str += i + 1 < shape.size() ? ", " : ",";
    expected_ *= shape[i];
  }
  shape_str += ")";
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape_str + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const uint16_t length = static_cast<uint16_t>(header.size());
  out_.write(kMagic, 6);
  out_.put(1);
  out_.put(0);
  out_.put(static_cast<char>(length & 0xff));
  out_.put(static_cast<char>(length >> 8));
  out_ << header;
  if (!out_) throw Error(ErrorKind::Io, "cannot write '" + path + "'");
}

void NpyWriter::append(const double* values, int64_t count) {
  if (written_ + count > expected_) throw Error(ErrorKind::Internal, "too many values for '" + file_.final_path() + "'");
  // x86-64 and the GPU hosts are little-endian: the values go out as they are.
  out_.write(reinterpret_cast<const char*>(values), static_cast<std::streamsize>(count * sizeof(double)));
  if (!out_) throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "'");
  written_ += count;
}

void NpyWriter::commit() {
  if (written_ != expected_)
    throw Error(ErrorKind::Internal, "'" + file_.final_path() + "' got " + std::to_string(written_) + " of " +
                                         std::to_string(expected_) + " values");
  out_.close();
  if (!out_) throw Error(ErrorKind::Io, "cannot write '" + file_.final_path() + "'");
  file_.commit();
}

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::BadInput, "cannot open '" + path + "'");
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, kMagic, 6) != 0) throw Error(ErrorKind::BadInput, "'" + path + "' is not a .npy file");
  uint32_t length = 0;
  unsigned char bytes[4] = {};
  in.read(reinterpret_cast<char*>(bytes), magic[6] == 1 ? 2 : 4);
  length = bytes[0] | bytes[1] << 8 | uint32_t(bytes[2]) << 16 | uint32_t(bytes[3]) << 24;
  std::string header(length, ' ');
  in.read(header.data(), length);
  if (!in) throw Error(ErrorKind::BadInput, "'" + path + "' has a truncated header");
  if (header.find("'descr': '<f8'") == std::string::npos)
    throw Error(ErrorKind::BadInput, "'" + path + "' is not little-endian float64");
  if (header.find("'fortran_order': False") == std::string::npos)
    throw Error(ErrorKind::BadInput, "'" + path + "' is in Fortran order");
  const size_t open = header.find("'shape': (");
  if (open == std::string::npos) throw Error(ErrorKind::BadInput, "'" + path + "' has no shape");
  NpyArray a;
  std::stringstream dims(header.substr(open + 10, header.find(')', open) - open - 10));
  std::string item;
  int64_t count = 1;
  while (std::getline(dims, item, ','))
    if (item.find_first_not_of(' ') != std::string::npos) {
      a.shape.push_back(std::stoll(item));
      count *= a.shape.back();
    }
  a.values.resize(static_cast<size_t>(count));
  in.read(reinterpret_cast<char*>(a.values.data()), static_cast<std::streamsize>(count * sizeof(double)));
  if (!in) throw Error(ErrorKind::BadInput, "'" + path + "' holds fewer values than its shape says");
  return a;
}

}  // namespace lsm
