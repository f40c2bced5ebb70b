#pragma once
// lsm under mpirun or srun (docs/SCALING.md, "One raster across MPI ranks"):
// MPI is started when the launcher's environment says so, rank 0 runs the
// command with the others as its row-range scanners, and the ranks end
// together. Only bytes travel here; what they mean is the operation layer's
// (row_range_scan.h).
#include <cstdint>
#include <memory>
#include <vector>

#include "rank_transport.h"

namespace lsm::mpi {

/// The MPI ranks of this run, when lsm was started by an MPI launcher with
/// more than one rank; MPI is finalized when it goes.
class MpiRanks final : public ops::RankTransport {
 public:
  /// Starts MPI when the environment names a launcher (OMPI_COMM_WORLD_SIZE,
  /// PMI_SIZE or PMIX_RANK); returns null when it does not, or there is one rank.
  /// host_rank() and host_ranks() are the rank among the ranks that share
  /// its host (MPI_COMM_TYPE_SHARED).
  static std::unique_ptr<MpiRanks> start(int* argc, char*** argv);
  ~MpiRanks() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int host_rank() const override { return host_rank_; }
  int host_ranks() const override { return host_ranks_; }
  std::vector<uint8_t> broadcast(const std::vector<uint8_t>& bytes) override;
  std::vector<std::vector<uint8_t>> gather(const std::vector<uint8_t>& bytes) override;

 private:
  MpiRanks(int rank, int size, int host_rank, int host_ranks)
      : rank_(rank), size_(size), host_rank_(host_rank), host_ranks_(host_ranks) {}
  int rank_, size_, host_rank_, host_ranks_;
};

}  // namespace lsm::mpi
