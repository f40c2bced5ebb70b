#pragma once
// FRAGSTATS 4.2 edge contrast weight files (.fce; FRAGSTATS 4.2 help,
// "Specifying common tables": "Edge contrast"), the weights d_ik of the
// contrast metrics CWED and TECI (FRAGSTATS 4.2, "Contrast metrics"):
//
//   FSQ_TABLE
//   CLASS_LIST_NUMERIC(1, 2, 3)          # or CLASS_LIST_LITERAL(forest, ...)
//   0.0, 0.5, 1.0
//   0.5, 0.0, 0.8
//   1.0, 0.8, 0.0
//
// one row and one column per listed class, in the list's order, weights
// from 0 (no contrast) to 1 (maximum contrast); lines starting with '#' are
// comments. An edge between classes i and k has one contrast, so the
// matrix must be symmetric; its diagonal (a class beside itself: no edge)
// is not read.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lsm {

/// FRAGSTATS' default background value, whose weights the landscape
/// boundary takes when no single background class is given (see
/// boundary_class() below).
inline constexpr int32_t kFragstatsBackgroundValue = 999;

struct ContrastTable {
  std::vector<int32_t> codes;  ///< the listed classes, in the file's order
  std::vector<double> d;       ///< codes.size()^2 weights, row-major
  std::string path;            ///< for messages

  /// Whether `code` has a row.
  bool lists(int32_t code) const;
  /// d_ik of classes `a` and `b` (both listed: check with lists()).
  double weight(int32_t a, int32_t b) const;
};

/// Reads an edge contrast weight file (at most 1 MiB; the file becomes a
/// protected input). CLASS_LIST_LITERAL names are looked up in `names`
/// (class code -> name, from a class descriptor file). Throws
/// lsm::Error(BadInput) naming the file and line: no FSQ_TABLE line, no or
/// a malformed class list, a class listed twice, a name without a class
/// descriptor, a row count or row length other than the list's, a weight
/// that is not a number between 0 and 1, or d_ik != d_ki.
ContrastTable read_contrast_table(const std::string& path, const std::map<int32_t, std::string>& names = {});

/// The class whose weights the landscape boundary takes: FRAGSTATS treats
/// boundary segments "like background (as specified in the edge contrast
/// weight file)" when there is no landscape border. That is the background
/// class when exactly one is given (`background`), else FRAGSTATS' default
/// background value 999. Throws lsm::Error(BadInput) naming the file when
/// the table does not list it.
int32_t boundary_class(const ContrastTable& table, const std::vector<int32_t>& background);

/// Throws lsm::Error(BadInput) naming the file and the first class of
/// `classes` (the landscape's classes and background classes) that the
/// table does not list: every edge needs its weight.
void check_contrast_classes(const ContrastTable& table, const std::vector<int32_t>& classes);

}  // namespace lsm
