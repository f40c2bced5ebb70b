#pragma once
// Host-side packing of a tile strip's int32 class codes into one byte per
// cell before it goes to the GPU: a quarter of the bytes over PCIe and in
// device memory. Used by the CUDA TileLabeler (tile_labeler_cuda.cu).
#include <cstddef>
#include <cstdint>

namespace lsm {

/// The byte that stands for nodata (kNoClass) in a packed strip.
constexpr uint8_t kPackedNodata = 255;

/// Writes `rows` rows of `cols` cells of `codes` (rows `code_stride`
/// elements apart) to `bytes`, packed row after row: class codes 0..254 as
/// themselves, kNoClass as kPackedNodata. Returns false, with `bytes`
/// unspecified, when some code is outside 0..254 (the caller then keeps
/// int32 cells). Runs on all OpenMP threads.
bool pack_class_bytes(const int32_t* codes, int64_t rows, int64_t cols, int64_t code_stride, uint8_t* bytes);

}  // namespace lsm
