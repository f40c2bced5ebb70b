#pragma once
// Arrays with one value per patch (or per tile fragment) that stay out of
// the process's memory when they are large: the scan's sort keys and
// fragment links, the second pass's class lookups and results. At 10^11
// cells there are ~10^9 patches, and 80 bytes of such arrays a patch would
// be 80 GB of RAM.
//
// Below its byte budget an array is ordinary memory. Above it, it lives in
// an anonymous scratch file (spill_file.h: no name, gone on any exit) that is
// mapped into memory, and release_paged_memory() hands the pages the process
// touched back to the system: the kernel keeps the data in the file (a
// shared file mapping's pages go back to the page cache, written to disk as
// memory is needed), and the next access maps them in again. Callers release
// at points where their working set is small (every strip of rows, every
// block of patches), so resident memory follows what a stretch of rows
// touches (the patches open at the row frontier), not the patch count.
// Values are the same either way: the file is the array.
//
// Space on the scratch file is reserved (posix_fallocate) before it is
// mapped, so a full disk is an lsm::Error(Io), never a SIGBUS.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace lsm {

/// Where per-patch arrays go: in memory up to `memory_bytes` each, else on a
/// scratch file in `temp_dir` (temp_folder()).
struct PagedPolicy {
  uint64_t memory_bytes = UINT64_MAX;
  std::string temp_dir;
};

/// Bytes on a scratch file mapped into memory (the storage of PagedArray and
/// PagedVector beyond their budget). Zero-filled. Not copyable.
class MappedScratch {
 public:
  /// Maps `capacity` bytes of address space over a new scratch file in
  /// `folder`; the file holds `size` bytes (zeros). Throws lsm::Error(Io).
  MappedScratch(const std::string& folder, uint64_t size, uint64_t capacity);
  ~MappedScratch();
  MappedScratch(const MappedScratch&) = delete;
  MappedScratch& operator=(const MappedScratch&) = delete;
  char* data() const { return base_; }
  uint64_t size() const { return size_; }
  /// Makes the file at least `bytes` long (<= capacity). Throws lsm::Error(Io).
  void reserve(uint64_t bytes);
  /// Drops the process's mapping of the pages (their data stays in the file).
  void release() const;

 private:
  int fd_ = -1;
  std::string folder_;
  char* base_ = nullptr;
  uint64_t size_ = 0, capacity_ = 0;
};

/// Hands back the pages of every mapped array alive (in any thread: the
/// arrays' data stays correct whatever other threads do meanwhile). Returns
/// the number of arrays on scratch files. Cheap when there are none.
size_t release_paged_memory();

/// A fixed number of zero-initialised values of a trivially copyable T.
template <class T>
class PagedArray {
  static_assert(std::is_trivially_copyable<T>::value, "paged values are raw bytes");

 public:
  PagedArray() = default;
  PagedArray(size_t n, const PagedPolicy& policy) { assign(n, policy); }
  /// Resizes to `n` zeros, in memory or on a scratch file by `policy`.
  void assign(size_t n, const PagedPolicy& policy) {
    std::vector<T>().swap(memory_);
    file_.reset();
    n_ = n;
    const uint64_t bytes = static_cast<uint64_t>(n) * sizeof(T);
    if (bytes > policy.memory_bytes && bytes > 0) {
      file_ = std::make_unique<MappedScratch>(policy.temp_dir, bytes, bytes);
      data_ = reinterpret_cast<T*>(file_->data());
    } else {
      memory_.assign(n, T{});
      data_ = memory_.data();
    }
  }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  bool on_file() const { return file_ != nullptr; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + n_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + n_; }
  /// Frees everything.
  void clear() { assign(0, PagedPolicy{}); }

 private:
  std::vector<T> memory_;
  std::unique_ptr<MappedScratch> file_;
  T* data_ = nullptr;
  size_t n_ = 0;
};

/// A growing sequence of trivially copyable T: in memory while it holds at
/// most policy.memory_bytes, then moved to a scratch file that grows with it.
template <class T>
class PagedVector {
  static_assert(std::is_trivially_copyable<T>::value, "paged values are raw bytes");

 public:
  PagedVector() = default;
  explicit PagedVector(PagedPolicy policy) : policy_(std::move(policy)) {}
  void set_policy(PagedPolicy policy) { policy_ = std::move(policy); }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  bool on_file() const { return file_ != nullptr; }
  T* data() { return file_ ? reinterpret_cast<T*>(file_->data()) : memory_.data(); }
  const T* data() const { return file_ ? reinterpret_cast<const T*>(file_->data()) : memory_.data(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[n_ - 1]; }
  void push_back(const T& v) {
    if (!file_ && static_cast<uint64_t>(n_ + 1) * sizeof(T) > policy_.memory_bytes) to_file();
    if (file_) {
      if (static_cast<uint64_t>(n_ + 1) * sizeof(T) > file_->size()) file_->reserve(grown(n_ + 1));
      reinterpret_cast<T*>(file_->data())[n_] = v;
    } else {
      memory_.push_back(v);
    }
    ++n_;
  }
  /// Resizes to `n`, new values zero.
  void resize(size_t n) {
    if (!file_ && static_cast<uint64_t>(n) * sizeof(T) > policy_.memory_bytes) to_file();
    if (file_) {
      if (static_cast<uint64_t>(n) * sizeof(T) > file_->size()) file_->reserve(grown(n));
      if (n < n_) std::memset(static_cast<void*>(data() + n), 0, (n_ - n) * sizeof(T));
    } else {
      memory_.resize(n, T{});
    }
    n_ = n;
  }
  /// Frees everything (back to memory for what comes next).
  void clear() {
    std::vector<T>().swap(memory_);
    file_.reset();
    n_ = 0;
  }

 private:
  // File sizes grow by 64 MiB steps or an eighth, whichever is more.
  uint64_t grown(size_t n) const {
    const uint64_t want = static_cast<uint64_t>(n) * sizeof(T);
    const uint64_t step = std::max<uint64_t>(uint64_t(64) << 20, file_->size() / 8);
    return std::min<uint64_t>(kCapacity, std::max(want, file_->size() + step));
  }
  void to_file() {
    file_ = std::make_unique<MappedScratch>(policy_.temp_dir, std::max<uint64_t>(sizeof(T) * (n_ + 1), uint64_t(64) << 20),
                                            kCapacity);
    if (n_) std::memcpy(file_->data(), memory_.data(), n_ * sizeof(T));
    std::vector<T>().swap(memory_);
  }
  // Address space reserved for a growing file: 2^32 values of up to 16 bytes.
  static constexpr uint64_t kCapacity = uint64_t(1) << 36;
  PagedPolicy policy_;
  std::vector<T> memory_;
  std::unique_ptr<MappedScratch> file_;
  size_t n_ = 0;
};

}  // namespace lsm
