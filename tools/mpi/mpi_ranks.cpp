#include "mpi_ranks.h"

#include <mpi.h>

#include <cstdlib>
#include <string>

#include "error.h"
#include "mpi_world.h"

namespace lsm::mpi {

namespace {

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw Error(ErrorKind::Io, std::string("MPI: ") + what + " failed");
}

}  // namespace

std::unique_ptr<MpiRanks> MpiRanks::start(int* argc, char*** argv) {
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
  if (!launched) return nullptr;
  int provided = 0;
  // The ranks' own threads (OpenMP, the scheduler's reader) never call MPI.
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    MPI_Finalize();
    return nullptr;
  }
  // The ranks of one host (they share its GPUs: use_host_gpu_share()).
  const HostRank host = host_rank_in_world();
  return std::unique_ptr<MpiRanks>(new MpiRanks(rank, size, host.rank, host.ranks));
}

MpiRanks::~MpiRanks() { MPI_Finalize(); }

std::vector<uint8_t> MpiRanks::broadcast(const std::vector<uint8_t>& bytes) { return broadcast_from_rank0(bytes); }

std::vector<std::vector<uint8_t>> MpiRanks::gather(const std::vector<uint8_t>& bytes) { return gather_on_rank0(bytes); }

}  // namespace lsm::mpi
