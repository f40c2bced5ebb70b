#pragma once
// A scratch file for data that does not need to stay in memory (the edge
// cells ENN reads back in reverse row order, ...). The file is created in
// the temporary folder and unlinked at once, so it has no name: the system
// frees its space when the file is closed or the process ends, however it
// ends (error, SIGTERM, SIGKILL). Nothing is left behind.
#include <cstdint>
#include <string>
#include <vector>

namespace lsm {

/// The folder for scratch files: `dir` when not empty, else $TMPDIR, else /tmp.
std::string temp_folder(const std::string& dir);

class SpillFile {
 public:
  /// Creates the anonymous file in `folder` (temp_folder()). Throws lsm::Error(Io) naming the folder.
  explicit SpillFile(const std::string& folder);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends `bytes` bytes (buffered). Throws lsm::Error(Io), e.g. on a full disk.
  void append(const void* data, size_t bytes);
  /// Bytes appended so far.
  uint64_t size() const { return size_; }
  /// Writes `bytes` bytes at `offset` (anywhere, the file grows as needed;
  /// for files written only this way, not with append()). Throws lsm::Error(Io).
  void write_at(uint64_t offset, const void* data, size_t bytes);
  /// Reads `bytes` bytes at `offset` (< size()); flushes what is buffered first. Throws lsm::Error(Io).
  /// Calls on several threads at once are safe after sync() and before the next append().
  void read(uint64_t offset, void* data, size_t bytes);
  /// Writes what append() buffered. Throws lsm::Error(Io).
  void sync() { flush(); }

 private:
  void flush();
  int fd_ = -1;
  std::string folder_;
  std::vector<char> buffer_;
  uint64_t size_ = 0, flushed_ = 0;
};

}  // namespace lsm
