#pragma once
// Which of a moving window's bands come from its counts alone
// (window_count_formulas.h), and the formulas' program for them: what the
// CPU window job and the GPU pass (window_count_pass.h) both evaluate.
#include <cstdint>
#include <optional>
#include <vector>

#include "window_count_formulas.h"
#include "window_job.h"

namespace lsm {

/// The count formula of `band` (window_formulas::Metric), or none: CA,
/// PLAND, NP, PD, LPI, TE, ED, LSI, PLADJ, DIVISION, MESH, SPLIT, AI, CLUMPY
/// and NLSI of a class; TA, NP, PD, LPI, TE, ED, LSI, CONTAG, PLADJ,
/// DIVISION, MESH, SPLIT, AI, PR, PRD, RPR, SHDI, SIDI, MSIDI, SHEI, SIEI
/// and MSIEI of the landscape (NP ... SPLIT from each class's patch count,
/// largest patch and squared sizes in the window, CONTAG from the class
/// pairs' adjacencies).
std::optional<uint8_t> window_count_metric(const WindowBand& band);

/// The program of a run's count bands; its Program points into its own vectors (not copyable).
class WindowCountProgram {
 public:
  /// The bands of `plan` with a count formula, at their plan index, but
  /// those `taken[b]` marks (another part of the job computes them).
  WindowCountProgram(const WindowPlan& plan, const WindowJobOptions& options, double cell_width, double cell_height,
                     const std::vector<bool>& taken);
  WindowCountProgram(const WindowCountProgram&) = delete;
  WindowCountProgram& operator=(const WindowCountProgram&) = delete;

  const window_formulas::Program& program() const { return program_; }
  bool empty() const { return bands_.empty(); }
  /// Whether plan band `b` is one of them.
  bool covers(size_t b) const { return b < covered_.size() && covered_[b]; }

 private:
  std::vector<window_formulas::Band> bands_;
  std::vector<uint8_t> background_;
  std::vector<bool> covered_;
  window_formulas::Program program_;
};

}  // namespace lsm
