// Per-patch arrays on scratch files (metrics/core/paged_array.h): the same values
// in memory and on a file, through releases of the process's pages, across
// the switch of a growing vector from memory to a file; nothing left in the
// scratch folder.
#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "error.h"
#include "paged_array.h"

namespace lsm {
namespace {

class PagedArrays : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/lsm-paged-test-XXXXXX";
    ASSERT_NE(::mkdtemp(name), nullptr);
    folder_ = name;
  }
  void TearDown() override { ::rmdir(folder_.c_str()); }
  size_t files_in_folder() const {
    size_t n = 0;
    if (DIR* d = ::opendir(folder_.c_str())) {
      while (const dirent* e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
      ::closedir(d);
    }
    return n;
  }
  std::string folder_;
};

TEST_F(PagedArrays, AboveTheBudgetTheArrayIsOnAFileAndKeepsItsValuesThroughReleases) {
  const size_t n = 3'000'000;  // 24 MB of doubles, over a 1 MB budget
  PagedArray<double> on_file(n, PagedPolicy{1 << 20, folder_});
  PagedArray<double> in_memory(n, PagedPolicy{});
  ASSERT_TRUE(on_file.on_file());
  ASSERT_FALSE(in_memory.on_file());
  EXPECT_EQ(files_in_folder(), 0u) << "the scratch file has no name";
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(on_file[i], 0.0) << i;  // zeros, like the vector
  for (size_t i = 0; i < n; i += 7) {
    on_file[i] = 0.5 * static_cast<double>(i);
    in_memory[i] = 0.5 * static_cast<double>(i);
    if (i % 700'000 == 0) EXPECT_GE(release_paged_memory(), 1u);
  }
  release_paged_memory();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(on_file[i], in_memory[i]) << i;
}

TEST_F(PagedArrays, AGrowingVectorMovesToAFileAtItsBudgetWithItsValues) {
  PagedVector<uint64_t> v(PagedPolicy{4096, folder_});
  for (uint64_t i = 0; i < 2'000'000; ++i) {
    v.push_back(i * i);
    if (i == 511) EXPECT_FALSE(v.on_file()) << "512 values are 4096 bytes: in memory";
    if (i % 500'000 == 0) release_paged_memory();
  }
  EXPECT_TRUE(v.on_file());
  ASSERT_EQ(v.size(), 2'000'000u);
  for (uint64_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i * i) << i;
  v.resize(10);
  v.resize(20);
  EXPECT_EQ(v[9], 81u);
  EXPECT_EQ(v[10], 0u) << "values past a shrink come back as zeros";
  v.clear();
  EXPECT_EQ(v.size(), 0u);
}

TEST_F(PagedArrays, AFolderThatCannotHoldTheFileIsOneError) {
  try {
    PagedArray<uint32_t> a(1 << 20, PagedPolicy{16, "/nonexistent/lsm"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/lsm"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lsm
