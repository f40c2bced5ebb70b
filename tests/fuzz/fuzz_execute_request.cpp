// Fuzz target: the service's execute request bodies, for every process.
// The first byte chooses the process; the rest is the JSON body. Each body
// is read into values or refused with lsm::Error (one line); the data root
// is an empty temporary folder, so no reference resolves to a file.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "data_roots.h"
#include "error.h"
#include "execute_request.h"
#include "operations.h"

namespace {

// The empty data root, made once and removed when the fuzzer exits. Its
// path is never destroyed: the exit handler runs after static objects'
// destructors registered before it.
const std::string& data_root() {
  static const std::string* const root = [] {
    const auto* r = new std::string("/tmp/lsm_fuzz_root_" + std::to_string(::getpid()));
    std::filesystem::create_directories(*r);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(data_root(), ec);
    });
    return r;
  }();
  return *root;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const lsm::serve::DataRoots roots({data_root()});
  const std::vector<lsm::ops::Operation>& all = lsm::ops::operations();
  const lsm::ops::Operation& op = all[data[0] % all.size()];
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    lsm::serve::read_execute_request(op, body, roots);
  } catch (const lsm::Error& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
