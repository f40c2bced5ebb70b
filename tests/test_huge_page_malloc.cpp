// When lsm restarts itself with glibc's huge-page tunable, and with what value
// (metrics/core/huge_page_malloc.h). The restart itself runs in every CLI
// test of this machine where THP is in "madvise" mode.
#include <gtest/gtest.h>

#include "huge_page_malloc.h"

namespace {

lsm::HugePageSetting madvise_glibc_236() {
  lsm::HugePageSetting s;
  s.thp_enabled = "always [madvise] never";
  s.glibc_version = "2.36";
  return s;
}

TEST(HugePageMalloc, RestartsOnceWhereTheKernelWaitsToBeAsked) {
  lsm::HugePageSetting s = madvise_glibc_236();
  EXPECT_TRUE(lsm::wants_huge_page_restart(s));
  s.glibc_tunables = "glibc.malloc.hugetlb=1";  // the restarted process
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));
  s.glibc_tunables = "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0";  // the user's own choice stands
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));
  s.glibc_tunables = "glibc.malloc.arena_max=2";  // other tunables: kept, ours added
  EXPECT_TRUE(lsm::wants_huge_page_restart(s));
}

TEST(HugePageMalloc, StaysAsStartedWhereItGainsNothingOrIsNotWanted) {
  lsm::HugePageSetting s = madvise_glibc_236();
  s.thp_enabled = "[always] madvise never";  // every large block gets huge pages already
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));
  s.thp_enabled = "always madvise [never]";
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));
  s.thp_enabled = "";  // no THP (not Linux, or no sysfs)
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));

  s = madvise_glibc_236();
  s.glibc_version = "2.31";  // before the tunable
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));
  s.glibc_version = "2.35";
  EXPECT_TRUE(lsm::wants_huge_page_restart(s));
  s.glibc_version = "";  // musl and others
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));

  s = madvise_glibc_236();
  s.opt_out = "0";
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));
  s.opt_out = "1";
  EXPECT_TRUE(lsm::wants_huge_page_restart(s));
  s.ld_preload = "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so";
  EXPECT_FALSE(lsm::wants_huge_page_restart(s));
}

TEST(HugePageMalloc, AddsTheTunableToThoseAlreadySet) {
  EXPECT_EQ(lsm::tunables_with_huge_pages(nullptr), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(lsm::tunables_with_huge_pages(""), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(lsm::tunables_with_huge_pages("glibc.malloc.arena_max=2"),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

}  // namespace
