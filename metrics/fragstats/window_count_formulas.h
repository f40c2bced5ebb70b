#pragma once
// The count-based class and landscape metrics of one moving window, as one
// source of arithmetic for the CPU window job and the CUDA window pass
// (cuda/window_counts_cuda.cu), so that both give the same bits: only IEEE
// adds, multiplies, divides and square roots in a fixed order, no fused
// multiply-add (the users compile with -ffp-contract=off or nvcc
// --fmad=false) and a logarithm of our own (det_log) instead of the C
// library's or CUDA's, which may round differently.
//
// The formulas are those of the metric families (metrics/fragstats/families:
// FRAGSTATS 4.2 documentation, "Area and Edge", "Aggregation" and "Diversity
// Metrics"), restated over a window's integer counts per class; the
// brute-force window tests tie both to `lsm metrics` on the cut-out window.
#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define LSM_WINDOW_HD __host__ __device__
#else
#define LSM_WINDOW_HD
#endif

namespace lsm::window_formulas {

/// A window's counts per class, channel-major: value of channel c for class
/// index a at counts[c * k + a]. Sides are cell sides inside the window;
/// "h" sides are top/bottom (between vertically neighbouring cells, length
/// cell width), "v" sides left/right (length cell height).
enum Channel : int {
  kCells = 0,   ///< cells of the class
  kLikeH,       ///< h sides between two cells of the class, counted twice (FRAGSTATS' double count)
  kLikeV,       ///< v sides between two cells of the class, counted twice
  kOtherH,      ///< h sides between a cell of the class and one of another class
  kOtherV,      ///< v sides between a cell of the class and one of another class
  kBackgroundH, ///< h sides between a cell of the class and one of a background class
  kBackgroundV, ///< v sides between a cell of the class and one of a background class
  kPatches,     ///< patches of the class in the window (when Program::needs_patches)
  kLargest,     ///< cells of its largest patch there (when Program::needs_patches)
  kSquaredSizes,///< sum of its patches' squared sizes, cells^2 (when Program::needs_patches)
  kChannels
};

/// The metrics computed from the counts above (FRAGSTATS acronyms).
enum Metric : uint8_t {
  // class level
  kCA, kPLAND, kClassTE, kClassED, kClassLSI, kClassPLADJ, kClassAI, kCLUMPY, kNLSI,
  kClassNP, kClassPD, kClassLPI, kClassDIVISION, kClassMESH, kClassSPLIT,  // from the window's patches
  // landscape level
  kTA, kTE, kED, kLSI, kPLADJ, kAI, kPR, kPRD, kRPR, kSHDI, kSIDI, kMSIDI, kSHEI, kSIEI, kMSIEI,
  kNP, kPD, kLPI, kDIVISION, kMESH, kSPLIT,  // from the window's patches
  kCONTAG,         // from the class pairs' adjacencies
  kMetricCount
};

/// One output value: a metric of class index `class_index` (class metrics)
/// or of the landscape (class_index < 0), written at `out_index`.
struct Band {
  uint8_t metric;
  int32_t class_index;
  uint32_t out_index;
};

/// What every window of a run shares.
struct Program {
  int32_t k = 0;                        ///< class indices 0..k-1 (background included)
  const uint8_t* background = nullptr;  ///< k flags: 1 for a FRAGSTATS background class
  const Band* bands = nullptr;
  uint32_t band_count = 0;
  double cw = 0, ch = 0;                ///< cell width and height, m
  double boundary_edge = 0;             ///< share of boundary and background edge counted in TE/ED
  double max_richness = 0;              ///< for RPR; <= 0: RPR undefined
  bool needs_landscape = false;         ///< some band is a landscape metric
  bool needs_patches = false;           ///< some band is NP, PD or LPI (channels kPatches, kLargest)
  bool eight_neighbours = true;         ///< the patches' neighbour rule: 8 cells, else 4
  bool needs_pairs = false;             ///< some band is CONTAG (Counts::pair())
  bool needs_sides = false;             ///< some band reads cell sides (reads_sides()); else only kCells and the patches
  bool needs_diversity = false;         ///< some band is SHDI, SIDI, MSIDI, SHEI, SIEI or MSIEI (a logarithm per class)
  bool needs_ai = false;                ///< some band is the landscape's AI (a square root per class)
  bool needs_patch_sizes = false;       ///< some band reads kLargest or kSquaredSizes (reads_patch_sizes())
};

/// Whether `metric` reads the window's patches (kPatches, kLargest).
LSM_WINDOW_HD inline bool reads_patches(uint8_t metric) {
  return metric == kClassNP || metric == kClassPD || metric == kClassLPI || metric == kClassDIVISION ||
         metric == kClassMESH || metric == kClassSPLIT || metric == kNP || metric == kPD || metric == kLPI ||
         metric == kDIVISION || metric == kMESH || metric == kSPLIT;
}

/// Whether `metric` reads the window's cell sides (kLikeH .. kBackgroundV,
/// Counts::pair()): all but the area, richness, diversity and patch metrics,
/// which read kCells and the patches alone.
LSM_WINDOW_HD inline bool reads_sides(uint8_t metric) {
  const bool cells_alone = metric == kCA || metric == kPLAND || metric == kTA || metric == kPR || metric == kPRD ||
                           metric == kRPR || metric == kSHDI || metric == kSIDI || metric == kMSIDI ||
                           metric == kSHEI || metric == kSIEI || metric == kMSIEI;
  return !cells_alone && !reads_patches(metric);
}

/// Whether `metric` reads the patches' sizes (kLargest, kSquaredSizes), not
/// only their count: LPI, DIVISION, MESH and SPLIT.
LSM_WINDOW_HD inline bool reads_patch_sizes(uint8_t metric) {
  return reads_patches(metric) && metric != kClassNP && metric != kClassPD && metric != kNP && metric != kPD;
}

LSM_WINDOW_HD inline double from_bits(uint64_t bits) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
#endif
}

LSM_WINDOW_HD inline uint64_t to_bits(double x) {
#ifdef __CUDA_ARCH__
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

LSM_WINDOW_HD inline double nan_value() { return from_bits(0x7ff8000000000000ULL); }

/// The correctly rounded square root (IEEE on both sides).
LSM_WINDOW_HD inline double square_root(double x) {
#ifdef __CUDA_ARCH__
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

/// ln x for finite x > 0 (normal numbers; ln 0 = -inf), within 2 ulp of the
/// true value, the same bits on every IEEE machine: x = 2^e m with m in
/// [sqrt(2)/2, sqrt(2)), ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <
/// 0.172, by its series to s^25 (the next term is below 2^-60 of the sum).
LSM_WINDOW_HD inline double det_log(double x) {
  if (!(x > 0)) return x == 0 ? from_bits(0xfff0000000000000ULL) : nan_value();  // -inf, NaN
  const uint64_t bits = to_bits(x);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  double m = from_bits((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);  // in [1, 2)
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    e += 1;
  }
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double series = 1.0 / 25;
  for (int n = 23; n >= 1; n -= 2) series = 1.0 / n + s2 * series;
  // ln 2 split so that e * ln2_hi is exact for |e| < 2^11.
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double de = static_cast<double>(e);
  return de * ln2_hi + (de * ln2_lo + 2 * s * series);
}

/// Smallest perimeter, in cell sides, of `a` cells (FRAGSTATS' LSI and
/// NLSI; as min_perimeter_sides in fragstats_metrics.h).
LSM_WINDOW_HD inline int64_t min_perimeter(int64_t a) {
  int64_t n = static_cast<int64_t>(square_root(static_cast<double>(a)));
  while (n * n > a) --n;
  while ((n + 1) * (n + 1) <= a) ++n;
  const int64_t m = a - n * n;
  if (m == 0) return 4 * n;
  return m <= n ? 4 * n + 2 : 4 * n + 4;
}

/// Most like adjacencies (single count) among `a` cells (FRAGSTATS' AI; as
/// max_like_adjacencies in fragstats_metrics.h).
LSM_WINDOW_HD inline int64_t max_like(int64_t a) {
  int64_t n = static_cast<int64_t>(square_root(static_cast<double>(a)));
  while (n * n > a) --n;
  while ((n + 1) * (n + 1) <= a) ++n;
  const int64_t m = a - n * n;
  const int64_t base = 2 * n * (n - (n > 0 ? 1 : 0));
  if (m == 0) return base;
  return m <= n ? base + 2 * m - 1 : base + 2 * m - 2;
}

/// The values of `p.bands` for a window whose counts are `counts(channel,
/// class index)` (an integer), whose classes with a cell are among
/// `counts.listed_class(i)` for i < `counts.listed_classes()` (ascending; all
/// p.k of them will do) and, when p.needs_pairs, `counts.pair(a, b)`
/// the cell sides shared by classes a and b, both directions, double count
/// (FRAGSTATS' g_ik) into out[band.out_index]. A class absent from the window,
/// or a background class, has CA, PLAND, NP, PD, LPI, TE and ED 0 and its
/// other metrics NaN; a landscape without a class has no diversity or aggregation (NaN),
/// as the families give them.
template <class Counts>
LSM_WINDOW_HD void evaluate(const Program& p, const Counts& counts, double* out) {
  // The classes to visit, ascending: every class with a cell, and maybe
  // more (they have none and are passed over).
  const int32_t listed = counts.listed_classes();
  auto cells = [&](int32_t a) -> int64_t { return counts(kCells, a); };
  auto like_h = [&](int32_t a) -> int64_t { return counts(kLikeH, a); };
  auto like_v = [&](int32_t a) -> int64_t { return counts(kLikeV, a); };
  auto other_h = [&](int32_t a) -> int64_t { return counts(kOtherH, a); };
  auto other_v = [&](int32_t a) -> int64_t { return counts(kOtherV, a); };
  auto bg_h = [&](int32_t a) -> int64_t { return counts(kBackgroundH, a); };
  auto bg_v = [&](int32_t a) -> int64_t { return counts(kBackgroundV, a); };
  auto patches = [&](int32_t a) -> int64_t { return counts(kPatches, a); };
  auto largest = [&](int32_t a) -> int64_t { return counts(kLargest, a); };
  auto squared_sizes = [&](int32_t a) -> double { return static_cast<double>(counts(kSquaredSizes, a)); };
  const double nan = nan_value();
  const double unit_m2 = p.cw * p.ch;
  // The window: every cell (background included) and its boundary sides.
  int64_t z = 0, landscape_boundary = 0, class_cells = 0;
  int32_t m = 0;
  for (int32_t a_at = 0; a_at < listed; ++a_at) {
    const int32_t a = counts.listed_class(a_at);
    const int64_t n = cells(a);
    if (n == 0) continue;
    z += n;
    landscape_boundary += 4 * n - like_h(a) - like_v(a) - other_h(a) - other_v(a);
    if (!p.background[a]) {
      ++m;
      class_cells += n;
    }
  }
  const double total = static_cast<double>(z), ta = total * unit_m2 / 10000;
  const double class_total = static_cast<double>(class_cells);
  // Class a's edge with other classes (not background) and its boundary and background edge, in m.
  auto edges = [&](int32_t a, double& edge_m, double& boundary_m, double& background_m) {
    const int64_t n = cells(a);
    const int64_t boundary_h = 2 * n - like_h(a) - other_h(a), boundary_v = 2 * n - like_v(a) - other_v(a);
    edge_m = static_cast<double>(other_h(a)) * p.cw + static_cast<double>(other_v(a)) * p.ch;
    boundary_m = static_cast<double>(boundary_h) * p.cw + static_cast<double>(boundary_v) * p.ch;
    background_m = static_cast<double>(bg_h(a)) * p.cw + static_cast<double>(bg_v(a)) * p.ch;
  };
  auto class_ai = [&](int32_t a) {
    const double max_g = static_cast<double>(max_like(cells(a)));
    return max_g > 0 ? static_cast<double>(like_h(a) + like_v(a)) / 2 / max_g : nan;
  };

  // The landscape's sums, in class order (as the families add them).
  double te = 0, lsi = 0, pladj = nan, ai = nan, shdi = 0, simpson = 0, largest_patch = 0, sa2 = 0;
  int64_t patch_count = 0;
  if (p.needs_landscape) {
    double boundary_sum = 0, background_sum = 0, class_edge = 0, ai_sum = 0;
    int64_t perim_sides = 0, boundary_sides = 0, like = 0;
    for (int32_t a_at = 0; a_at < listed; ++a_at) {
      const int32_t a = counts.listed_class(a_at);
      if (cells(a) == 0 || p.background[a]) continue;
      const int64_t n = cells(a);
      if (p.needs_sides) {
        double edge_m, boundary_m, background_m;
        edges(a, edge_m, boundary_m, background_m);
        boundary_sum += boundary_m;
        background_sum += background_m;
        class_edge += edge_m - background_m;
        perim_sides += 4 * n - like_h(a) - like_v(a);
        boundary_sides += 4 * n - like_h(a) - like_v(a) - other_h(a) - other_v(a);
        like += like_h(a) + like_v(a);
      }
      const double Pi = static_cast<double>(n) / class_total;
      if (p.needs_diversity) {
        shdi -= Pi * det_log(Pi);
        simpson += Pi * Pi;
      }
      if (p.needs_ai) {
        const double class_value = class_ai(a);
        if (!(class_value != class_value)) ai_sum += class_value * Pi;
      }
      if (p.needs_patches) {
        patch_count += patches(a);
        sa2 += squared_sizes(a);
        const double l = static_cast<double>(largest(a));
        if (l > largest_patch) largest_patch = l;
      }
    }
    if (p.needs_sides) {
      te = class_edge / 2 + p.boundary_edge * (boundary_sum + background_sum);
      lsi = static_cast<double>(perim_sides + boundary_sides) / 2 / static_cast<double>(min_perimeter(z));
      // PLADJ's denominator: every side of every class cell (FRAGSTATS 4.2, L3).
      const double pladj_total = static_cast<double>(4 * class_cells);
      pladj = pladj_total > 0 ? static_cast<double>(like) / pladj_total * 100 : nan;
    }
    ai = m == 0 ? nan : ai_sum * 100;
  }
  const double md = static_cast<double>(m);
  const double lnm = det_log(md);
  // CONTAG (FRAGSTATS 4.2, L1): the classes' adjacencies without background.
  double contag = 0;
  if (p.needs_pairs) {
    for (int32_t a_at = 0; a_at < listed; ++a_at) {
      const int32_t a = counts.listed_class(a_at);
      if (cells(a) == 0 || p.background[a]) continue;
      int64_t g = 0;
      for (int32_t b_at = 0; b_at < listed; ++b_at) {
        const int32_t b = counts.listed_class(b_at);
        if (cells(b) > 0 && !p.background[b]) g += counts.pair(a, b);
      }
      if (g == 0) continue;
      const double Pi = static_cast<double>(cells(a)) / class_total, gi = static_cast<double>(g);
      for (int32_t b_at = 0; b_at < listed; ++b_at) {
        const int32_t b = counts.listed_class(b_at);
        if (cells(b) == 0 || p.background[b]) continue;
        const double t = Pi * static_cast<double>(counts.pair(a, b)) / gi;
        if (t > 0) contag += t * det_log(t);
      }
    }
  }

  for (uint32_t i = 0; i < p.band_count; ++i) {
    const Band& band = p.bands[i];
    double v = nan;
    if (band.class_index >= 0) {
      const int32_t a = band.class_index;
      const int64_t n = cells(a);
      if (n == 0 || p.background[a]) {
        const bool zero = band.metric == kCA || band.metric == kPLAND || band.metric == kClassTE ||
                          band.metric == kClassED || band.metric == kClassNP || band.metric == kClassPD ||
                          band.metric == kClassLPI;
        out[band.out_index] = zero ? 0 : nan;
        continue;
      }
      const double size = static_cast<double>(n);
      double edge_m, boundary_m, background_m;
      edges(a, edge_m, boundary_m, background_m);
      const double class_te = edge_m - background_m + p.boundary_edge * (boundary_m + background_m);
      const int64_t perim_sides = 4 * n - like_h(a) - like_v(a);
      const double min_e = static_cast<double>(min_perimeter(n));
      switch (band.metric) {
        case kCA: v = size * unit_m2 / 10000; break;
        case kPLAND: v = size / total * 100; break;
        case kClassTE: v = class_te; break;
        case kClassED: v = class_te / ta; break;
        case kClassLSI: v = static_cast<double>(perim_sides) / min_e; break;
        case kClassPLADJ: v = static_cast<double>(like_h(a) + like_v(a)) / static_cast<double>(4 * n) * 100; break;
        case kClassAI: v = class_ai(a) * 100; break;
        case kCLUMPY: {
          // Every side of a class cell is an adjacency or on the boundary (FRAGSTATS counts both).
          const double P = size / total;
          const double G = static_cast<double>(like_h(a) + like_v(a)) / (static_cast<double>(4 * n) - min_e);
          v = (G < P && P < 0.5) ? (G - P) / P : (G - P) / (1 - P);
          break;
        }
        case kClassNP: v = static_cast<double>(patches(a)); break;
        case kClassPD: v = static_cast<double>(patches(a)) / ta * 100; break;
        case kClassLPI: v = static_cast<double>(largest(a)) / total * 100; break;
        // DIVISION, MESH (ha) and SPLIT over A with background (FRAGSTATS 4.2, C10 to C12).
        case kClassDIVISION: v = 1 - squared_sizes(a) / (total * total); break;
        case kClassMESH: v = squared_sizes(a) / total * unit_m2 / 10000; break;
        case kClassSPLIT: v = squared_sizes(a) > 0 ? total * total / squared_sizes(a) : nan; break;
        case kNLSI: {
          const double max_e = size <= total / 2 ? 4 * size : 4 * (total - size) + static_cast<double>(landscape_boundary);
          v = max_e > min_e ? (static_cast<double>(perim_sides) - min_e) / (max_e - min_e) : nan;
          break;
        }
        default: break;
      }
    } else {
      const bool no_class = m == 0;
      switch (band.metric) {
        case kTA: v = ta; break;
        case kTE: v = te; break;
        case kED: v = te / ta; break;
        case kLSI: v = lsi; break;
        case kPLADJ: v = pladj; break;
        case kAI: v = ai; break;
        case kPR: v = md; break;
        case kPRD: v = md / ta * 100; break;
        case kRPR: v = p.max_richness > 0 ? md / p.max_richness * 100 : nan; break;
        case kSHDI: v = no_class ? nan : shdi; break;
        case kSIDI: v = no_class ? nan : 1 - simpson; break;
        case kMSIDI: v = no_class ? nan : -det_log(simpson); break;
        case kSHEI: v = m > 1 ? shdi / lnm : nan; break;
        case kSIEI: v = m > 1 ? (1 - simpson) / (1 - 1 / md) : nan; break;
        case kMSIEI: v = m > 1 ? -det_log(simpson) / lnm : nan; break;
        case kNP: v = static_cast<double>(patch_count); break;
        case kPD: v = static_cast<double>(patch_count) / ta * 100; break;
        case kLPI: v = largest_patch / total * 100; break;
        case kDIVISION: v = 1 - sa2 / (total * total); break;
        case kMESH: v = sa2 / total * unit_m2 / 10000; break;
        case kSPLIT: v = sa2 > 0 ? total * total / sa2 : nan; break;
        case kCONTAG: v = m >= 2 ? (1 + contag / (2 * lnm)) * 100 : nan; break;
        default: break;
      }
    }
    out[band.out_index] = v;
  }
}

}  // namespace lsm::window_formulas
