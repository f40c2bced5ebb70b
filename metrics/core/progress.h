#pragma once
// The one progress system of lsm. Long operations report a fraction in [0,1]
// through a ProgressFn; the CLI forwards it to GDAL's terminal progress
// (0...10...20... 100 - done.), tests and benchmarks pass none.
#include <functional>

namespace lsm {

/// Called with the completed fraction (0..1, non-decreasing). Returning false
/// asks the operation to stop; it then throws lsm::Error(ErrorKind::Io, "interrupted").
using ProgressFn = std::function<bool(double fraction)>;

/// Maps a sub-task's [0,1] progress onto [begin,end] of a parent's progress.
inline ProgressFn scaled_progress(const ProgressFn& parent, double begin, double end) {
  if (!parent) return {};
  return [parent, begin, end](double f) { return parent(begin + (end - begin) * f); };
}

}  // namespace lsm
