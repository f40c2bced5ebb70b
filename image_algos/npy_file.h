#pragma once
// NumPy's .npy format (version 1.0: magic, a little-endian header length, a
// Python dict literal with descr/fortran_order/shape, then C-order data),
// the output scikit-image users load with numpy.load. Float64 only: what
// skimage.feature.hog returns for float images.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "atomic_output.h"

namespace lsm {

/// Writes a C-order float64 array of `shape` in pieces, in order; the file
/// appears at `path` only when commit() finds every value written.
class NpyWriter {
 public:
  /// Throws lsm::Error(Io) when the file cannot be created.
  NpyWriter(const std::string& path, std::vector<int64_t> shape);
  /// Appends `count` values. Throws lsm::Error(Io), or lsm::Error(Internal)
  /// past the array's end.
  void append(const double* values, int64_t count);
  /// Throws lsm::Error(Internal) if values are missing, lsm::Error(Io) on failure.
  void commit();

 private:
  AtomicOutput file_;
  std::ofstream out_;
  int64_t expected_ = 1, written_ = 0;
};

/// A float64 .npy array read whole: its shape and values (C order).
struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// Reads a little-endian float64, C-order .npy file (version 1 or 2).
/// Throws lsm::Error(BadInput) naming what is wrong with it.
NpyArray read_npy(const std::string& path);

}  // namespace lsm
