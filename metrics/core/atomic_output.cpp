#include "atomic_output.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "error.h"
#include "protected_inputs.h"

namespace lsm {

namespace {

// The temporary files alive now, for remove_temporary_outputs_now(), which
// runs in signal handlers: fixed slots, lock-free states, no allocation.
enum SlotState : int { kFree = 0, kBusy = 1, kReady = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  bool folder;  // an AtomicFolder's temporary folder: emptied, then removed
  char path[4096];
};
Slot slots[64];

int register_temporary(const std::string& path, bool folder = false) {
  if (path.size() >= sizeof(Slot::path)) return -1;
  for (int i = 0; i < 64; ++i) {
    int expected = kFree;
    if (slots[i].state.compare_exchange_strong(expected, kBusy)) {
      slots[i].folder = folder;
      std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
      slots[i].state.store(kReady);
      return i;
    }
  }
  return -1;  // more than 64 at once: that output is not cleaned up on a signal
}

void unregister_temporary(int slot) {
  if (slot >= 0) slots[slot].state.store(kFree);
}

// The files of a temporary folder. This runs in signal handlers (the GDAL
// plugin's), so only system calls: opendir/readdir allocate, and a signal
// that lands inside malloc then deadlocks on malloc's lock (seen:
// gdal_translate hung after SIGINT). The entries are read with getdents64
// into a static buffer — the process ends next.
void empty_folder_now(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  static char buffer[16384];
  // Reread from the start until only "." and ".." are left: removing
  // entries while reading may skip some.
  for (bool removed = true; removed;) {
    removed = false;
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name
        unsigned short length;
        std::memcpy(&length, buffer + at + 16, sizeof length);
        const char* name = buffer + at + 19;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0 && ::unlinkat(fd, name, 0) == 0)
          removed = true;
        at += length;
      }
    }
  }
  ::close(fd);
}

// The folder and its files. Other threads of the run may still write into
// it while a signal handler empties it: a file made after the scan keeps
// rmdir from succeeding, so it scans again, a bounded number of times.
void remove_folder_now(const char* path) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    empty_folder_now(path);
    if (::rmdir(path) == 0 || errno != ENOTEMPTY) return;
  }
}

}  // namespace

int register_temporary_folder(const std::string& path) { return register_temporary(path, true); }
void unregister_temporary_folder(int slot) { unregister_temporary(slot); }
int register_temporary_file(const std::string& path) { return register_temporary(path); }
void unregister_temporary_file(int slot) { unregister_temporary(slot); }

void remove_temporary_outputs_now() {
  // Files first: an AtomicOutput inside an AtomicFolder goes before its folder.
  for (int pass = 0; pass < 2; ++pass)
    for (Slot& s : slots) {
      if (s.folder != (pass == 1)) continue;
      int expected = kReady;
      if (!s.state.compare_exchange_strong(expected, kBusy)) continue;
      if (s.folder) remove_folder_now(s.path);
      else ::unlink(s.path);
    }
}


AtomicOutput::AtomicOutput(std::string final_path) : final_(std::move(final_path)) {
  refuse_overwriting_input(final_);
  temp_ = final_ + ".lsm-tmp-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(temp_.c_str(), "wb");
  if (!f) throw Error(ErrorKind::Io, "cannot write '" + final_ + "': " + std::strerror(errno));
  std::fclose(f);
  slot_ = register_temporary(temp_);
}

AtomicOutput::AtomicOutput(AtomicOutput&& o) noexcept
    : final_(std::move(o.final_)), temp_(std::move(o.temp_)), done_(o.done_), slot_(o.slot_) {
  o.done_ = true;
  o.slot_ = -1;
}

AtomicOutput::~AtomicOutput() {
  if (!done_) std::remove(temp_.c_str());
  unregister_temporary(slot_);
}

void AtomicOutput::commit() {
  unregister_temporary(slot_);  // from now on the file is the output, not a temporary
  slot_ = -1;
  if (std::rename(temp_.c_str(), final_.c_str()) != 0)
    throw Error(ErrorKind::Io, "cannot create '" + final_ + "': " + std::strerror(errno));
  done_ = true;
}

}  // namespace lsm
