#include "mpi_ranks.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "error.h"

namespace lsm::mpi {

namespace {

// MPI counts are ints: messages go in pieces of at most 1 GiB.
constexpr uint64_t kPiece = uint64_t(1) << 30;

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
  MPI_Comm host;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
  int local_rank = 0, local_ranks = 1;
  MPI_Comm_rank(host, &local_rank);
  MPI_Comm_size(host, &local_ranks);
  MPI_Comm_free(&host);
  return std::unique_ptr<MpiRanks>(new MpiRanks(rank, size, local_rank, local_ranks));
}

MpiRanks::~MpiRanks() { MPI_Finalize(); }

std::vector<uint8_t> MpiRanks::broadcast(const std::vector<uint8_t>& bytes) {
  uint64_t n = bytes.size();
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::vector<uint8_t> out = rank_ == 0 ? bytes : std::vector<uint8_t>(static_cast<size_t>(n));
  for (uint64_t at = 0; at < n; at += kPiece)
    check(MPI_Bcast(out.data() + at, static_cast<int>(std::min(kPiece, n - at)), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return out;
}

std::vector<std::vector<uint8_t>> MpiRanks::gather(const std::vector<uint8_t>& bytes) {
  uint64_t n = bytes.size();
  std::vector<uint64_t> sizes(static_cast<size_t>(size_));
  check(MPI_Gather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<std::vector<uint8_t>> out;
  if (rank_ != 0) {
    for (uint64_t at = 0; at < n; at += kPiece)
      check(MPI_Send(bytes.data() + at, static_cast<int>(std::min(kPiece, n - at)), MPI_BYTE, 0, 0, MPI_COMM_WORLD), "MPI_Send");
    return out;
  }
  out.resize(static_cast<size_t>(size_));
  out[0] = bytes;
  for (int r = 1; r < size_; ++r) {
    std::vector<uint8_t>& into = out[static_cast<size_t>(r)];
    into.resize(static_cast<size_t>(sizes[static_cast<size_t>(r)]));
    for (uint64_t at = 0; at < into.size(); at += kPiece)
      check(MPI_Recv(into.data() + at, static_cast<int>(std::min<uint64_t>(kPiece, into.size() - at)), MPI_BYTE, r, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
  }
  return out;
}

}  // namespace lsm::mpi
