// The NPP peer of the GPU labeling benchmark: NVIDIA's union-find labeling
// (nppiLabelMarkersUF_8u32u_C1R_Ctx, 8-way, pixels of equal value connect),
// its label compression (nppiCompressMarkerLabelsUF_32u_C1IR_Ctx) and, for
// per-label statistics, nppiCompressedMarkerLabelsUFInfo_32u_C1R_Ctx, timed
// with events on one stream, the input already in device memory. NPP labels
// every value, nodata included, so its count can exceed lsm's patch count by
// the nodata regions. Reads the manifest written by lsm_bench_gpu_label
// --dump; prints one JSON object per input.
#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Entry {
  std::string input, path;
  long long width = 0, height = 0;
};

std::vector<Entry> read_manifest(const std::string& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<Entry> out;
  const std::regex re(
      R"re(\{"input": "([^"]+)", "path": "([^"]+)", "width": (\d+), "height": (\d+))re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1], (*it)[2], std::stoll((*it)[3]), std::stoll((*it)[4])});
  return out;
}

#define CUDA_OR_FAIL(call)                                                   \
  do {                                                                       \
    const cudaError_t e_ = (call);                                           \
    if (e_ != cudaSuccess) return std::string("cuda: ") + cudaGetErrorString(e_); \
  } while (0)
#define NPP_OR_FAIL(call)                                                    \
  do {                                                                       \
    const NppStatus s_ = (call);                                             \
    if (s_ != NPP_SUCCESS) return std::string(#call).substr(0, 40) + " status " + std::to_string(int(s_)); \
  } while (0)

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Returns "" on success, else why NPP could not label this input.
std::string run(const Entry& e, int repeat, double* label_ms, double* info_ms, int* count) {
  if (e.width * e.height >= (1ll << 31)) return "image of 2^31 cells or more: beyond NPP's int sizes";
  const size_t n = size_t(e.width) * size_t(e.height);
  std::vector<unsigned char> host(n);
  std::ifstream in(e.path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(host.data()), std::streamsize(n))) return "cannot read " + e.path;
  cudaStream_t st;
  CUDA_OR_FAIL(cudaStreamCreate(&st));
  NppStreamContext ctx{};
  cudaDeviceProp prop{};
  CUDA_OR_FAIL(cudaGetDeviceProperties(&prop, 0));
  ctx.hStream = st;
  ctx.nCudaDeviceId = 0;
  ctx.nMultiProcessorCount = prop.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  CUDA_OR_FAIL(cudaStreamGetFlags(st, &ctx.nStreamFlags));

  const NppiSize roi{int(e.width), int(e.height)};
  Npp8u *d_src = nullptr, *d_label_buf = nullptr, *d_compress_buf = nullptr;
  Npp32u* d_labels = nullptr;
  int label_buf = 0, compress_buf = 0;
  NPP_OR_FAIL(nppiLabelMarkersUFGetBufferSize_32u_C1R(roi, &label_buf));
  NPP_OR_FAIL(nppiCompressMarkerLabelsGetBufferSize_32u_C1R(int(n), &compress_buf));
  CUDA_OR_FAIL(cudaMalloc(&d_src, n));
  CUDA_OR_FAIL(cudaMalloc(&d_labels, n * 4));
  CUDA_OR_FAIL(cudaMalloc(&d_label_buf, size_t(label_buf)));
  CUDA_OR_FAIL(cudaMalloc(&d_compress_buf, size_t(compress_buf)));
  CUDA_OR_FAIL(cudaMemcpy(d_src, host.data(), n, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1;
  CUDA_OR_FAIL(cudaEventCreate(&e0));
  CUDA_OR_FAIL(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int r = 0; r <= repeat; ++r) {  // the first run warms up
    CUDA_OR_FAIL(cudaEventRecord(e0, st));
    NPP_OR_FAIL(nppiLabelMarkersUF_8u32u_C1R_Ctx(d_src, int(e.width), d_labels, int(e.width * 4), roi, nppiNormInf,
                                                 d_label_buf, ctx));
    NPP_OR_FAIL(nppiCompressMarkerLabelsUF_32u_C1IR_Ctx(d_labels, int(e.width * 4), roi, int(n), count,
                                                        d_compress_buf, ctx));
    CUDA_OR_FAIL(cudaEventRecord(e1, st));
    CUDA_OR_FAIL(cudaEventSynchronize(e1));
    float t = 0;
    CUDA_OR_FAIL(cudaEventElapsedTime(&t, e0, e1));
    if (r) ms.push_back(t);
  }
  *label_ms = median(ms);

  // Per-label statistics (pixel counts, bounding boxes, contours) on the compressed labels.
  unsigned int info_bytes = 0;
  NPP_OR_FAIL(nppiCompressedMarkerLabelsUFGetInfoListSize_32u_C1R(unsigned(*count), &info_bytes));
  NppiCompressedMarkerLabelsInfo* d_info = nullptr;
  Npp8u* d_contours = nullptr;
  NppiContourPixelDirectionInfo* d_directions = nullptr;
  Npp32u *d_counts = nullptr, *d_offsets = nullptr;
  std::vector<Npp32u> h_counts(size_t(*count) + 4), h_offsets(size_t(*count) + 4);
  CUDA_OR_FAIL(cudaMalloc(&d_info, info_bytes));
  CUDA_OR_FAIL(cudaMalloc(&d_contours, n));
  CUDA_OR_FAIL(cudaMalloc(&d_directions, n * sizeof(NppiContourPixelDirectionInfo)));
  CUDA_OR_FAIL(cudaMalloc(&d_counts, h_counts.size() * 4));
  CUDA_OR_FAIL(cudaMalloc(&d_offsets, h_offsets.size() * 4));
  NppiContourTotalsInfo totals{};
  ms.clear();
  for (int r = 0; r <= std::min(repeat, 3); ++r) {
    CUDA_OR_FAIL(cudaEventRecord(e0, st));
    NPP_OR_FAIL(nppiCompressedMarkerLabelsUFInfo_32u_C1R_Ctx(
        d_labels, int(e.width * 4), roi, unsigned(*count), d_info, d_contours, int(e.width), d_directions,
        int(e.width * sizeof(NppiContourPixelDirectionInfo)), &totals, d_counts, h_counts.data(), d_offsets,
        h_offsets.data(), ctx));
    CUDA_OR_FAIL(cudaEventRecord(e1, st));
    CUDA_OR_FAIL(cudaEventSynchronize(e1));
    float t = 0;
    CUDA_OR_FAIL(cudaEventElapsedTime(&t, e0, e1));
    if (r) ms.push_back(t);
  }
  *info_ms = median(ms);
  for (void* p : {(void*)d_src, (void*)d_labels, (void*)d_label_buf, (void*)d_compress_buf, (void*)d_info,
                  (void*)d_contours, (void*)d_directions, (void*)d_counts, (void*)d_offsets})
    cudaFree(p);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(st);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: lsm_bench_npp_label MANIFEST.json [REPEAT]\n");
    return 1;
  }
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 10;
  for (const Entry& e : read_manifest(argv[1])) {
    double label_ms = 0, info_ms = 0;
    int count = 0;
    const std::string why = run(e, repeat, &label_ms, &info_ms, &count);
    if (!why.empty()) {
      cudaGetLastError();
      std::printf("{\"input\": \"%s\", \"npp_error\": \"%s\"}\n", e.input.c_str(), why.c_str());
    } else {
      std::printf("{\"input\": \"%s\", \"npp_ms\": %.4f, \"npp_info_ms\": %.4f, \"npp_labels\": %d}\n",
                  e.input.c_str(), label_ms, info_ms, count);
    }
    std::fflush(stdout);
  }
  return 0;
}
