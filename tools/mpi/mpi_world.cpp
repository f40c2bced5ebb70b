#include "mpi_world.h"

#include <mpi.h>

#include <algorithm>
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

HostRank host_rank_in_world() {
  int world_rank = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
  MPI_Comm host;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &host),
        "MPI_Comm_split_type");
  HostRank h;
  MPI_Comm_rank(host, &h.rank);
  MPI_Comm_size(host, &h.ranks);
  MPI_Comm_free(&host);
  return h;
}

std::vector<uint8_t> broadcast_from_rank0(const std::vector<uint8_t>& bytes) {
  int rank = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  uint64_t n = bytes.size();
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::vector<uint8_t> out = rank == 0 ? bytes : std::vector<uint8_t>(static_cast<size_t>(n));
  for (uint64_t at = 0; at < n; at += kPiece)
    check(MPI_Bcast(out.data() + at, static_cast<int>(std::min(kPiece, n - at)), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return out;
}

std::vector<std::vector<uint8_t>> gather_on_rank0(const std::vector<uint8_t>& bytes) {
  int rank = 0, size = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  uint64_t n = bytes.size();
  std::vector<uint64_t> sizes(static_cast<size_t>(size));
  check(MPI_Gather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<std::vector<uint8_t>> out;
  if (rank != 0) {
    for (uint64_t at = 0; at < n; at += kPiece)
      check(MPI_Send(bytes.data() + at, static_cast<int>(std::min(kPiece, n - at)), MPI_BYTE, 0, 0, MPI_COMM_WORLD), "MPI_Send");
    return out;
  }
  out.resize(static_cast<size_t>(size));
  out[0] = bytes;
  for (int r = 1; r < size; ++r) {
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
