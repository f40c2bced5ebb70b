#include "huge_page_malloc.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

namespace lsm {

namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// "2.36" -> true for 2.35 and later.
bool glibc_has_hugetlb_tunable(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return false;
  return major > 2 || (major == 2 && minor >= 35);
}

std::string first_line_of(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

bool wants_huge_page_restart(const HugePageSetting& s) {
  if (s.opt_out && std::strcmp(s.opt_out, "0") == 0) return false;
  if (s.glibc_tunables && std::strstr(s.glibc_tunables, kTunable)) return false;  // set: restarted, or the user's choice
  if (s.ld_preload && *s.ld_preload) return false;  // valgrind, a profiler's malloc: theirs decides
  if (s.thp_enabled.find("[madvise]") == std::string::npos) return false;
  return glibc_has_hugetlb_tunable(s.glibc_version);
}

std::string tunables_with_huge_pages(const char* existing) {
  std::string value = existing ? existing : "";
  if (!value.empty()) value += ':';
  return value + kTunable + "=1";
}

HugePageSetting this_process_setting() {
  HugePageSetting s;
  s.glibc_tunables = std::getenv("GLIBC_TUNABLES");
  s.opt_out = std::getenv("LSM_HUGE_PAGES");
  s.ld_preload = std::getenv("LD_PRELOAD");
  s.thp_enabled = first_line_of("/sys/kernel/mm/transparent_hugepage/enabled");
#if defined(__GLIBC__)
  s.glibc_version = gnu_get_libc_version();
#endif
  return s;
}

void restart_with_huge_page_malloc(char** argv) {
  if (kSanitized) return;
  const HugePageSetting s = this_process_setting();
  if (!wants_huge_page_restart(s)) return;
  const std::string before = s.glibc_tunables ? s.glibc_tunables : "";
  const bool had = s.glibc_tunables != nullptr;
  if (setenv("GLIBC_TUNABLES", tunables_with_huge_pages(s.glibc_tunables).c_str(), 1) != 0) return;
  // The program's own path, not /proc/self/exe: the process's name (ps, top,
  // pkill) is the file name it was started from.
  char self[4096];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (length > 0) {
    self[length] = '\0';
    ::execv(self, argv);
  }
  // Not restarted (no /proc, say): run on as started, the environment as it was.
  if (had) setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
}

}  // namespace lsm
