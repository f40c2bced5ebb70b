#pragma once
// Location of the shared real-data folder (../shared/data beside the
// checkout, or $LSM_SHARED_DATA). Tests that need it skip when it is absent.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace lsm::test {
inline std::string shared_data_dir() {
  if (const char* env = std::getenv("LSM_SHARED_DATA")) return env;
  return std::string(LSM_SOURCE_DIR) + "/../shared/data";
}
}  // namespace lsm::test

#define LSM_REQUIRE_SHARED_FILE(path)                                                                 \
  do {                                                                                                \
    if (!std::filesystem::exists(path))                                                               \
      GTEST_SKIP() << "shared test data missing: " << (path) << " (set LSM_SHARED_DATA or check out " \
                   << "../shared beside the repository)";                                             \
  } while (0)
