#include "paged_array.h"

#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/mman.h>
#include <unistd.h>

#include "error.h"
#include "spill_file.h"

namespace lsm {
namespace {

// Every MappedScratch alive, for release_paged_memory().
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::set<const MappedScratch*>& registry() {
  static std::set<const MappedScratch*> r;
  return r;
}

[[noreturn]] void scratch_failure(const std::string& what, const std::string& folder, int error) {
  throw Error(ErrorKind::Io, what + " a scratch file in '" + folder + "' (--temp-dir): " + std::strerror(error));
}

}  // namespace

MappedScratch::MappedScratch(const std::string& folder, uint64_t size, uint64_t capacity)
    : folder_(temp_folder(folder)), capacity_(std::max(size, capacity)) {
  std::string name = folder_ + "/lsm-paged-XXXXXX";
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) scratch_failure("cannot create", folder_, errno);
  ::unlink(name.c_str());  // anonymous: removed on every exit path
  void* p = ::mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (p == MAP_FAILED) {
    const int error = errno;
    ::close(fd_);
    scratch_failure("cannot map", folder_, error);
  }
  base_ = static_cast<char*>(p);
  try {
    reserve(size);
  } catch (...) {
    ::munmap(base_, capacity_);
    ::close(fd_);
    throw;
  }
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().insert(this);
}

MappedScratch::~MappedScratch() {
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().erase(this);
  }
  if (base_) ::munmap(base_, capacity_);
  if (fd_ >= 0) ::close(fd_);
}

void MappedScratch::reserve(uint64_t bytes) {
  if (bytes <= size_) return;
  if (bytes > capacity_) throw Error(ErrorKind::Internal, "a paged array outgrew its address space");
  // Blocks allocated now: writing through the mapping can then not fail.
  const int error = ::posix_fallocate(fd_, static_cast<off_t>(size_), static_cast<off_t>(bytes - size_));
  if (error) scratch_failure("no room to grow", folder_, error);
  size_ = bytes;
}

void MappedScratch::release() const {
  // MADV_DONTNEED on a shared file mapping unmaps the pages; their contents
  // (dirty ones included) stay in the page cache and the file.
  if (size_) ::madvise(base_, size_, MADV_DONTNEED);
}

size_t release_paged_memory() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (const MappedScratch* m : registry()) m->release();
  return registry().size();
}

}  // namespace lsm
