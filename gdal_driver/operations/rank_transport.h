#pragma once
// What the operations need of several processes running one command (MPI
// ranks under mpirun or srun): who they are and how bytes travel between
// them. The operation layer decides what travels (row_range_scan.h); the
// front end that starts the ranks implements the transport (tools/mpi/),
// so MPI stays out of the engine and the operations.
#include <cstdint>
#include <vector>

namespace lsm::ops {

class RankTransport {
 public:
  virtual ~RankTransport() = default;
  /// This process's rank (0 runs the command; the others serve it) and the number of ranks.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// This process among the ranks of its host (0..host_ranks() - 1): how
  /// they share the host's GPUs (use_host_gpu_share()).
  virtual int host_rank() const = 0;
  virtual int host_ranks() const = 0;
  /// Rank 0's `bytes` on every rank (the others pass nothing and get them).
  virtual std::vector<uint8_t> broadcast(const std::vector<uint8_t>& bytes) = 0;
  /// Every rank's `bytes` on rank 0, in rank order (empty on the others).
  virtual std::vector<std::vector<uint8_t>> gather(const std::vector<uint8_t>& bytes) = 0;
};

}  // namespace lsm::ops
