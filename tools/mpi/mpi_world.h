#pragma once
// MPI_COMM_WORLD's collectives that lsm's ranks (mpi_ranks.h) and the MPI
// benchmark (bench/bench_row_ranges.cpp) share; MPI must be initialised.
#include <cstdint>
#include <vector>

namespace lsm::mpi {

/// This rank among the ranks that share its host (MPI_COMM_TYPE_SHARED).
struct HostRank {
  int rank = 0, ranks = 1;
};
/// Collective: every rank calls it. Throws lsm::Error(Io) when MPI fails.
HostRank host_rank_in_world();

/// Rank 0's `bytes` on every rank (the others pass nothing), in pieces of
/// at most 1 GiB. Collective. Throws lsm::Error(Io) when MPI fails.
std::vector<uint8_t> broadcast_from_rank0(const std::vector<uint8_t>& bytes);

/// Every rank's `bytes` on rank 0, in rank order (empty on the others), in
/// pieces of at most 1 GiB (MPI counts are ints). Collective. Throws
/// lsm::Error(Io) when MPI fails.
std::vector<std::vector<uint8_t>> gather_on_rank0(const std::vector<uint8_t>& bytes);

}  // namespace lsm::mpi
