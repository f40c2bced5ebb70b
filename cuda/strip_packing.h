#pragma once
// Host-side packing of a tile strip's int32 class codes into one byte per
// cell before it goes to the GPU: a quarter of the bytes over PCIe and in
// device memory. Used by the CUDA TileLabeler (tile_labeler_cuda.cu).
#include <cstddef>
#include <cstdint>

namespace lsm {

/// The byte that stands for nodata (kNoClass) in a packed strip.
constexpr uint8_t kPackedNodata = 255;

/// Writes `n` cells of `codes` to `bytes`: class codes 0..254 as themselves,
/// kNoClass as kPackedNodata. Returns false, with `bytes` unspecified, when
/// some code is outside 0..254 (the caller then keeps int32 cells). Runs on
/// all OpenMP threads.
bool pack_class_bytes(const int32_t* codes, size_t n, uint8_t* bytes);

}  // namespace lsm
