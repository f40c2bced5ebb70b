// Fuzz target: the GDAL driver's connection-string parser
// (LSM:<operation>[:<option>=<value>...]:<path>). Every input either parses
// or throws lsm::Error with one line of at most a few hundred characters;
// anything else (a crash, another exception, a sanitizer report) is a defect.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "connection.h"
#include "error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const std::string& candidate : {text, "LSM:" + text}) {
    try {
      lsm::gdal_plugin::parse_connection(candidate, nullptr);
    } catch (const lsm::Error& e) {
      const std::string message = e.what();
      if (message.empty() || message.size() > 1000 || message.find('\n') != std::string::npos) std::abort();
    }
  }
  return 0;
}
