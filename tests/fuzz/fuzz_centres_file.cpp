// Fuzz target: the reader of K-means initial centres files (--init). The
// first two bytes give k (1..16) and the band count (1..8); the rest is the
// file. It either returns k x bands finite floats or throws lsm::Error.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "error.h"
#include "kmeans.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int k = 1 + data[0] % 16, bands = 1 + data[1] % 8;
  static const std::string path = "/tmp/lsm_fuzz_centres_" + std::to_string(::getpid()) + ".txt";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data + 2, 1, size - 2, f);
  std::fclose(f);
  try {
    const std::vector<float> centres = lsm::read_centres_file(path, k, bands);
    if (centres.size() != static_cast<size_t>(k * bands)) std::abort();
    for (float c : centres)
      if (!std::isfinite(c)) std::abort();
  } catch (const lsm::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
