#pragma once
// Large blocks on transparent huge pages: a program start policy.
//
// The engine's first pass and tables allocate and first-touch hundreds of MB
// (augusta's 2.6 M patch records, their shapes, the table rows); with 4 KB
// pages a third of the CPU time of the first pass went to the kernel's page
// faults (bench/RESULTS.md, "Large blocks on huge pages"). glibc's malloc
// backs its large blocks with 2 MB transparent huge pages when the tunable
// glibc.malloc.hugetlb=1 is set (glibc >= 2.35; Linux's THP in "madvise"
// mode, the common default). Tunables are read once, when a program starts,
// so a program that wants them restarts itself once with them set: the
// engine benchmarks first thing in main(), lsm where its input is large
// (tools/cli/huge_page_start.h: the restart loads its libraries again).
// A library host (Python, QGIS) keeps its own malloc: set
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1 in its environment for the same gain.
//
// Results never depend on it: only where the kernel puts the pages.
#include <string>

namespace lsm {

/// What decides the restart, read from the environment and the kernel.
struct HugePageSetting {
  const char* glibc_tunables = nullptr;  ///< GLIBC_TUNABLES, or null
  const char* opt_out = nullptr;         ///< LSM_HUGE_PAGES ("0": never restart), or null
  const char* ld_preload = nullptr;      ///< LD_PRELOAD (a tool's malloc, e.g. valgrind's), or null
  std::string thp_enabled;               ///< /sys/kernel/mm/transparent_hugepage/enabled, "" when unreadable
  std::string glibc_version;             ///< gnu_get_libc_version(), "" when not glibc
};

/// This process's setting: its environment, its kernel's THP mode, its glibc.
HugePageSetting this_process_setting();

/// True when a program started with `s` should restart with the tunable:
/// THP in "madvise" mode (under "always" large blocks already get huge
/// pages, under "never" they cannot), glibc 2.35 or later, the tunable not
/// yet set (so a restart happens once), no opt-out, no preloaded malloc.
bool wants_huge_page_restart(const HugePageSetting& s);

/// GLIBC_TUNABLES' value with glibc.malloc.hugetlb=1 added to `existing`
/// (null or empty: the tunable alone; tunables are ':'-separated).
std::string tunables_with_huge_pages(const char* existing);

/// Restarts this program (the file /proc/self/exe links to, the same
/// arguments and environment) with the tunable set when wants_huge_page_restart() says so
/// for this process; returns without restarting otherwise, or when the
/// restart fails (the program then runs on as it is). Call first thing in
/// main(), before any thread, MPI or GPU start. Does nothing in sanitizer
/// builds (their malloc is their own). Does not return when it restarts.
void restart_with_huge_page_malloc(char** argv);

}  // namespace lsm
