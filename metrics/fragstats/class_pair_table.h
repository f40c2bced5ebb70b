#pragma once
// FRAGSTATS 4.2's class-pair tables (FRAGSTATS 4.2 help, "Specifying common
// tables"), one file format for three kinds of values:
// - edge contrast weights (.fce), the d_ik of the contrast metrics CWED,
//   TECI and ECON (FRAGSTATS 4.2, "Contrast metrics");
// - similarity weights (.fsq), the d_ik of SIMI (FRAGSTATS 4.2, P3
//   "Similarity index");
// - edge depths (.fdt), the depth of edge influence (m) of the core area
//   metrics per pair of classes (FRAGSTATS 4.2, "Core area metrics"):
//
//   FSQ_TABLE
//   CLASS_LIST_NUMERIC(1, 2, 3)          # or CLASS_LIST_LITERAL(forest, ...)
//   0.0, 0.5, 1.0
//   0.5, 0.0, 0.8
//   1.0, 0.8, 0.0
//
// one row and one column per listed class, in the list's order, weights
// from 0 to 1 (depths: metres, 0 or more); lines starting with '#' are
// comments.
// - Contrast: 0 is no contrast, 1 the most. An edge between classes i and
//   k has one contrast, so the matrix must be symmetric; its diagonal (a
//   class beside itself: no edge) is not read.
// - Similarity: 0 is not similar (the neighbour adds nothing to SIMI), 1
//   the same as the focal class. Row i is the focal patch's class, column
//   k its neighbour's: d_ik need not equal d_ki (how much a class k patch
//   counts for a class i patch); the diagonal is read (a neighbour of the
//   focal patch's own class).
// - Edge depth: row i is the class of the patch whose core is measured,
//   column k the class beyond its edge: d_ik need not equal d_ki (how far
//   a class k neighbour reaches into a class i patch); the diagonal is read
//   (a cell of another patch of the same class within reach).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lsm {

/// FRAGSTATS' default background value, whose weights the landscape
/// boundary takes when no single background class is given (see
/// boundary_class() below).
inline constexpr int32_t kFragstatsBackgroundValue = 999;

struct ClassPairTable {
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
ClassPairTable read_contrast_table(const std::string& path, const std::map<int32_t, std::string>& names = {});

/// Reads a similarity weight file (.fsq) as read_contrast_table() does,
/// with the same errors except that d_ik may differ from d_ki.
ClassPairTable read_similarity_table(const std::string& path, const std::map<int32_t, std::string>& names = {});

/// Reads an edge depth file (.fdt) as read_contrast_table() does, with the
/// same errors except that values are distances in metres (0 or more, up
/// to 1e9) and d_ik may differ from d_ki.
ClassPairTable read_edge_depth_table(const std::string& path, const std::map<int32_t, std::string>& names = {});

/// The class whose weights the landscape boundary takes: FRAGSTATS treats
/// boundary segments "like background (as specified in the edge contrast
/// weight file)" when there is no landscape border. That is the background
/// class when exactly one is given (`background`), else FRAGSTATS' default
/// background value 999. Throws lsm::Error(BadInput) naming the file when
/// the table does not list it.
int32_t boundary_class(const ClassPairTable& table, const std::vector<int32_t>& background);
/// The same for an edge depth file: the class whose depths the landscape
/// boundary (raster edge, nodata) takes.
int32_t edge_depth_boundary_class(const ClassPairTable& table, const std::vector<int32_t>& background);

/// Throws lsm::Error(BadInput) naming the file and the first class of
/// `classes` (the landscape's classes and background classes) that the
/// table does not list: every edge needs its weight.
void check_contrast_classes(const ClassPairTable& table, const std::vector<int32_t>& classes);

/// The same for a similarity file: every pair of patches needs its weight.
void check_similarity_classes(const ClassPairTable& table, const std::vector<int32_t>& classes);
/// The same for an edge depth file: every edge needs its depth.
void check_edge_depth_classes(const ClassPairTable& table, const std::vector<int32_t>& classes);

}  // namespace lsm
