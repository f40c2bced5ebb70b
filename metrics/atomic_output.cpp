#include "atomic_output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "error.h"

namespace lsm {

AtomicOutput::AtomicOutput(std::string final_path) : final_(std::move(final_path)) {
  temp_ = final_ + ".lsm-tmp-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(temp_.c_str(), "wb");
  if (!f) throw Error(ErrorKind::Io, "cannot write '" + final_ + "': " + std::strerror(errno));
  std::fclose(f);
}

AtomicOutput::AtomicOutput(AtomicOutput&& o) noexcept : final_(std::move(o.final_)), temp_(std::move(o.temp_)), done_(o.done_) {
  o.done_ = true;
}

AtomicOutput::~AtomicOutput() {
  if (!done_) std::remove(temp_.c_str());
}

void AtomicOutput::commit() {
  if (std::rename(temp_.c_str(), final_.c_str()) != 0)
    throw Error(ErrorKind::Io, "cannot create '" + final_ + "': " + std::strerror(errno));
  done_ = true;
}

}  // namespace lsm
