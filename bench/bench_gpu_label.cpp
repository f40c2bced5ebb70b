// GPU labeling-with-statistics benchmark (issue 4): for each input raster,
// held as Byte cells, times the device labeling (DeviceGridLabeler: labels +
// every patch's area, perimeter, class edges, bounding box and coordinate
// sums) and its end-to-end path from pinned host memory, measures the
// device-to-device copy bandwidth for the floor (5 bytes per cell: 1 in, 4
// labels out; 8 with --int32), and checks every patch record against the
// CPU backend.
// Writes each input as raw Byte cells to --dump DIR (with manifest.json) so
// that the peers (NPP: lsm_bench_npp_label; cupy and OpenCV:
// bench/label_peers.py) label exactly the same cells. One JSON object per
// input on stdout. bench/run_device.sh runs the whole comparison.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_grid_labeler.h"
#include "copy_bandwidth.h"
#include "device_pool.h"
#include "labeling_inputs.h"
#include "memory_raster.h"
#include "patch_scan.h"

using namespace lsm;

namespace {

struct Input {
  std::string name;
  int64_t width, height;
  int nodata;  // -1: none
  std::vector<uint8_t> cells;
};

std::vector<uint8_t> read_raw(const std::string& path, int64_t w, int64_t h) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes(static_cast<size_t>(w * h));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    throw Error(ErrorKind::Io, "cannot read " + std::to_string(bytes.size()) + " bytes from " + path);
  return bytes;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The CPU backend's patches for the same cells: the correctness reference.
std::vector<PatchStats> cpu_patches(const Input& in, double* ms) {
  std::vector<int32_t> cells(in.cells.size());
  for (size_t i = 0; i < cells.size(); ++i)
    cells[i] = int(in.cells[i]) == in.nodata ? kNoClass : int32_t(in.cells[i]);
  MemoryClassRaster raster(in.width, in.height, std::move(cells));
  auto labeler = make_labeler(Backend::Cpu);
  const auto t0 = std::chrono::steady_clock::now();
  PatchTable t = scan_patches(raster, *labeler, ScanOptions{});
  *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return std::move(t.patches);
}

// int32_cells: the grid as Int32 cells (nodata as kNoClass), the type the
// tile scheduler uploads when a strip's class codes do not fit a byte (the
// three-digit CORINE codes, say); else as Byte cells.
void run_input(const Input& in, cudaStream_t st, double copy_bps, int repeat, bool check_cpu, bool int32_cells) {
  const size_t n = in.cells.size(), cell_bytes = int32_cells ? sizeof(int32_t) : 1;
  PinnedBuffer host_cells, host_records;
  host_cells.reserve(n * cell_bytes);
  if (int32_cells) {
    int32_t* codes = host_cells.as<int32_t>();
    for (size_t i = 0; i < n; ++i) codes[i] = int(in.cells[i]) == in.nodata ? kNoClass : int32_t(in.cells[i]);
  } else {
    std::copy(in.cells.begin(), in.cells.end(), host_cells.as<uint8_t>());
  }
  DeviceBuffer d_cells, d_labels;
  d_cells.reserve(n * cell_bytes, st);
  d_labels.reserve(n * 4, st);
  LSM_CUDA_CHECK(cudaMemcpyAsync(d_cells.get(), host_cells.get(), n * cell_bytes, cudaMemcpyHostToDevice, st));
  DeviceClassGrid grid;
  grid.cells = d_cells.get();
  grid.type = int32_cells ? DeviceCellType::Int32 : DeviceCellType::UInt8;
  grid.pitch = in.width;
  grid.width = static_cast<int>(in.width);
  grid.height = static_cast<int>(in.height);
  grid.nodata = in.nodata;
  DeviceGridLabeler labeler(st);
  cudaEvent_t e0, e1;
  LSM_CUDA_CHECK(cudaEventCreate(&e0));
  LSM_CUDA_CHECK(cudaEventCreate(&e1));
  uint32_t count = labeler.label(grid, NeighbourRule::Eight, d_labels.as<uint32_t>(), nullptr);  // warm-up
  // Kernel time: raster resident on the device, labels and records written there.
  std::vector<double> kernel_ms, e2e_ms;
  for (int r = 0; r < repeat; ++r) {
    LSM_CUDA_CHECK(cudaEventRecord(e0, st));
    labeler.enqueue(grid, NeighbourRule::Eight, d_labels.as<uint32_t>(), nullptr);
    LSM_CUDA_CHECK(cudaEventRecord(e1, st));
    count = labeler.finish();
    float t = 0;
    LSM_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    kernel_ms.push_back(t);
  }
  // Where the time goes: one more run with events between the stages.
  labeler.set_stage_timing(true);
  labeler.label(grid, NeighbourRule::Eight, d_labels.as<uint32_t>(), nullptr);
  const DeviceLabelingStages stages = labeler.stages();
  labeler.set_stage_timing(false);
  // End to end: cells from pinned host memory in, patch records on the host out.
  host_records.reserve(std::max<size_t>(1, count) * sizeof(DevicePatchRecord));
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    LSM_CUDA_CHECK(cudaMemcpyAsync(d_cells.get(), host_cells.get(), n * cell_bytes, cudaMemcpyHostToDevice, st));
    count = labeler.label(grid, NeighbourRule::Eight, nullptr, nullptr);
    LSM_CUDA_CHECK(cudaMemcpyAsync(host_records.get(), labeler.records(), count * sizeof(DevicePatchRecord),
                                   cudaMemcpyDeviceToHost, st));
    LSM_CUDA_CHECK(cudaStreamSynchronize(st));
    e2e_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::set<int> classes;
  {
    std::vector<bool> seen(256, false);
    for (uint8_t c : in.cells) seen[c] = true;
    for (int c = 0; c < 256; ++c)
      if (seen[c] && c != in.nodata) classes.insert(c);
  }
  std::string match = "not checked";
  double cpu_ms = 0;
  if (check_cpu) {
    const std::vector<PatchStats> ref = cpu_patches(in, &cpu_ms);
    const DevicePatchRecord* rec = host_records.as<DevicePatchRecord>();
    size_t bad = ref.size() == count ? 0 : 1;
    for (size_t k = 0; k < std::min<size_t>(ref.size(), count); ++k)
      if (!(to_patch_stats(rec[k], in.width, 0, 0, in.width) == ref[k])) ++bad;
    match = bad ? "MISMATCH (" + std::to_string(bad) + " patches, cpu " + std::to_string(ref.size()) + ")" : "equal";
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  const double kms = median(kernel_ms), floor_ms = double(cell_bytes + 4) * double(n) / copy_bps * 1e3;
  std::printf(
      "{\"input\": \"%s\", \"cells\": \"%s\", \"width\": %lld, \"height\": %lld, \"mpx\": %.2f, "
      "\"classes\": %zu, \"patches\": %u, "
      "\"kernel_ms\": %.4f, \"kernel_ms_min\": %.4f, \"gpx_per_s\": %.2f, \"e2e_ms\": %.3f, \"floor_ms\": %.4f, "
      "\"x_floor\": %.1f, \"cpu_ms\": %.1f, \"cpu_check\": \"%s\", \"stage_ms\": [%.3f, %.3f, %.3f, %.3f, %.3f]}\n",
      in.name.c_str(), int32_cells ? "Int32" : "Byte", (long long)in.width, (long long)in.height, n / 1e6,
      classes.size(), count, kms,
      *std::min_element(kernel_ms.begin(), kernel_ms.end()), n / (kms * 1e-3) / 1e9, median(e2e_ms), floor_ms,
      kms / floor_ms, cpu_ms, match.c_str(), stages.label_blocks, stages.join_blocks, stages.rank_roots,
      stages.label_roots, stages.accumulate);
  std::fflush(stdout);
}

void dump(const Input& in, const std::string& dir, std::string& manifest) {
  const std::string path = dir + "/" + in.name + ".u8";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(in.cells.data()), std::streamsize(in.cells.size()));
  if (!out) throw Error(ErrorKind::Io, "cannot write " + path);
  manifest += std::string(manifest.empty() ? "" : ",\n") + "  {\"input\": \"" + in.name + "\", \"path\": \"" + path +
              "\", \"width\": " + std::to_string(in.width) + ", \"height\": " + std::to_string(in.height) +
              ", \"nodata\": " + std::to_string(in.nodata) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string bv, augusta, dump_dir, only;
  int64_t giga_side = 32768;
  int repeat = 10;
  bool check_cpu = true, int32_cells = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() { return std::string(i + 1 < argc ? argv[++i] : ""); };
    if (a == "--bern-valais") bv = next();          // raw Byte, 1319 x 1640, nodata 255
    else if (a == "--augusta") augusta = next();    // raw Byte, 678 x 440, nodata 255
    else if (a == "--dump") dump_dir = next();
    else if (a == "--giga-side") giga_side = std::stoll(next());  // 0: no >= 1 Gpx inputs
    else if (a == "--repeat") repeat = std::stoi(next());
    else if (a == "--no-cpu-check") check_cpu = false;
    else if (a == "--only") only = next();  // one input by name, for profilers
    else if (a == "--int32") int32_cells = true;  // label Int32 grids instead of Byte
    else {
      std::fprintf(stderr, "usage: lsm_bench_gpu_label --bern-valais RAW --augusta RAW [--dump DIR] "
                           "[--giga-side 32768] [--repeat 10] [--no-cpu-check] [--only INPUT] [--int32]\n");
      return 1;
    }
  }
  try {
    if (bv.empty() || augusta.empty()) throw Error(ErrorKind::BadInput, "need --bern-valais and --augusta");
    const std::vector<uint8_t> bv_cells = read_raw(bv, 1319, 1640), au_cells = read_raw(augusta, 678, 440);
    const int64_t w47 = 5741, h47 = 8190;  // the 47 Mpx of the issue
    std::vector<Input> inputs = {
        {"bern_valais_16.8M", 4096, 4096, 255, bench::mirror_mosaic(bv_cells, 1319, 1640, 4096, 4096)},
        {"bern_valais_47M", w47, h47, 255, bench::mirror_mosaic(bv_cells, 1319, 1640, w47, h47)},
        {"augusta_47M", w47, h47, 255, bench::mirror_mosaic(au_cells, 678, 440, w47, h47)},
        {"noise2_47M", w47, h47, -1, bench::uniform_noise(w47, h47, 2, 1)},
        {"noise28_47M", w47, h47, -1, bench::uniform_noise(w47, h47, 28, 2)},
        {"one_class_47M", w47, h47, -1, bench::one_class(w47, h47)},
        {"stripes16_47M", w47, h47, -1, bench::stripes(w47, h47, 16)},
    };
    if (giga_side > 0) {
      inputs.push_back({"bern_valais_1G", giga_side, giga_side, 255,
                        bench::mirror_mosaic(bv_cells, 1319, 1640, giga_side, giga_side)});
      inputs.push_back({"augusta_1G", giga_side, giga_side, 255,
                        bench::mirror_mosaic(au_cells, 678, 440, giga_side, giga_side)});
    }
    cudaStream_t st;
    LSM_CUDA_CHECK(cudaSetDevice(0));
    prepare_device_pool(0);
    LSM_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaDeviceProp prop{};
    LSM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const double bps = bench::copy_bandwidth(st);
    std::printf("{\"device\": \"%s\", \"copy_GBps\": %.1f}\n", prop.name, bps / 1e9);
    std::string manifest;
    for (const Input& in : inputs) {
      if (!only.empty() && in.name != only) continue;
      if (!dump_dir.empty()) dump(in, dump_dir, manifest);
      run_input(in, st, bps, repeat, check_cpu, int32_cells);
    }
    if (!dump_dir.empty()) {
      std::ofstream m(dump_dir + "/manifest.json");
      m << "[\n" << manifest << "\n]\n";
    }
    LSM_CUDA_CHECK(cudaStreamDestroy(st));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lsm_bench_gpu_label: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
