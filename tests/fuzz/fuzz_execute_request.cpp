// Fuzz target: the service's execute request bodies, for every process.
// The first byte chooses the process; the rest is the JSON body. Each body
// has its inline datasets written to a job folder, is read into values, its
// outputs and response form, or is refused with lsm::Error (one line); the
// data root is an empty temporary folder, so no file reference resolves, and
// the job folder is emptied after each body.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "data_roots.h"
#include "error.h"
#include "execute_request.h"
#include "input_sources.h"
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
  static const lsm::serve::InputSources sources(roots, {"https://data.example.org/"});
  static const std::string job_folder = data_root() + "/job";
  const std::vector<lsm::ops::Operation>& all = lsm::ops::operations();
  const lsm::ops::Operation& op = all[data[0] % all.size()];
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    nlohmann::json request = lsm::serve::parse_execute_request(body);
    sources.write_inline_values(op.spec, request, job_folder);
    const std::string stored = request.dump();
    lsm::serve::read_execute_request(op, stored, sources, job_folder);
    lsm::serve::requested_outputs(op.spec, stored);
    lsm::serve::wants_document(stored);
  } catch (const lsm::Error& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  std::error_code ec;
  std::filesystem::remove_all(job_folder, ec);
  return 0;
}
