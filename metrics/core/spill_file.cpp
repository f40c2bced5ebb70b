#include "spill_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "error.h"

namespace lsm {

std::string temp_folder(const std::string& dir) {
  if (!dir.empty()) return dir;
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

SpillFile::SpillFile(const std::string& folder) : folder_(folder) {
  std::string name = folder + "/lsm-spill-XXXXXX";
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0)
    throw Error(ErrorKind::Io, "cannot create a scratch file in '" + folder + "' (--temp-dir): " + std::strerror(errno));
  ::unlink(name.c_str());  // anonymous from now on: removed on every exit path
  buffer_.reserve(size_t(4) << 20);
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

void SpillFile::append(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes) {
    const size_t n = std::min(bytes, buffer_.capacity() - buffer_.size());
    buffer_.insert(buffer_.end(), p, p + n);
    p += n;
    bytes -= n;
    size_ += n;
    if (buffer_.size() == buffer_.capacity()) flush();
  }
}

void SpillFile::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::pwrite(fd_, buffer_.data() + done, buffer_.size() - done, static_cast<off_t>(flushed_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(ErrorKind::Io, "cannot write a scratch file in '" + folder_ + "' (--temp-dir): " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  flushed_ += done;
  buffer_.clear();
}

void SpillFile::write_at(uint64_t offset, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  const uint64_t end = offset + bytes;
  while (bytes) {
    const ssize_t n = ::pwrite(fd_, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(ErrorKind::Io, "cannot write a scratch file in '" + folder_ + "' (--temp-dir): " + std::strerror(errno));
    p += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
  size_ = flushed_ = std::max(size_, end);
}

void SpillFile::read(uint64_t offset, void* data, size_t bytes) {
  if (!buffer_.empty()) flush();
  char* p = static_cast<char*>(data);
  while (bytes) {
    const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ErrorKind::Io, "cannot read back a scratch file in '" + folder_ + "': " + std::strerror(errno));
    p += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
}

}  // namespace lsm
