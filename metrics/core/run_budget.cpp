#include "run_budget.h"

#include <algorithm>

namespace lsm {

namespace {

// Each share's divisor of the memory limit. The kept labels and the tables
// are never held at once (the labels are freed when the second pass ends,
// before the tables are built), nor the records' share beyond the scan.
uint64_t divisor(BudgetShare share) {
  switch (share) {
    case BudgetShare::KeptLabels: return 4;
    case BudgetShare::Records: return 8;
    case BudgetShare::PatchArray: return 16;
    case BudgetShare::Tables: return 4;
    case BudgetShare::Strips: return 2;
  }
  return 16;
}

}  // namespace

const char* share_name(BudgetShare share) {
  switch (share) {
    case BudgetShare::KeptLabels: return "kept-labels";
    case BudgetShare::Records: return "records";
    case BudgetShare::PatchArray: return "patch-array";
    case BudgetShare::Tables: return "tables";
    case BudgetShare::Strips: return "strips";
  }
  return "?";
}

uint64_t RunBudget::share(BudgetShare s) const { return std::max<uint64_t>(1, memory_bytes / divisor(s)); }

std::vector<std::pair<BudgetShare, uint64_t>> RunBudget::shares() const {
  std::vector<std::pair<BudgetShare, uint64_t>> all;
  for (BudgetShare s : {BudgetShare::KeptLabels, BudgetShare::Records, BudgetShare::PatchArray, BudgetShare::Tables,
                        BudgetShare::Strips})
    all.emplace_back(s, share(s));
  return all;
}

}  // namespace lsm
