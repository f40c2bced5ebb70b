#pragma once
// Below these sizes an OpenMP loop of the engine runs on the calling thread
// (its `if` clause): starting a team costs more than the work of a small
// landscape — a zone, a plot, a grid tile — and every thread of the engine
// that starts one gets its own pool of threads, which spin for the cores.
// Measured on bern_valais' 1 044 grid tiles (bench/RESULTS.md, "Zones").
// Every loop gives the same result on any number of threads, so results do
// not depend on these.
#include <cstddef>
#include <cstdint>

namespace lsm {

constexpr int64_t kSerialCells = int64_t{1} << 16;  ///< cells of a raster or strip
constexpr int64_t kSerialRows = 4096;                ///< rows of a table, patches of a block
constexpr size_t kSerialSites = 4096;                ///< edge cells of one ENN sweep block
constexpr size_t kSerialRuns = 4096;                 ///< core cell runs of the patches

}  // namespace lsm
