#pragma once
// The per-pixel arithmetic of pyramid levels (pyramid.h), shared by the CPU
// and CUDA passes so that both give the same bits: positions in double,
// values in float, round-to-nearest operations in a fixed order, no FMA.
#include <cmath>
#include <cstdint>

#include "kmeans_math.h"
#include "pyramid.h"

namespace lsm::pyramid_math {

using kmeans_math::add;
using kmeans_math::mul;

/// The source rows a level pixel reads lie in the source rows [first, last)
/// given to the pass; `at` fetches band b of source pixel (i, j), j absolute.
struct SourceRows {
  const float* values;
  int64_t width, height, y0;  // full source size; first row held
  int bands;
  /// NaN in every band where the first is NaN: how readers mark a nodata cell.
  LSM_HOST_DEVICE float at(int64_t i, int64_t j, int b) const {
    const float* cell = values + ((j - y0) * width + i) * bands;
    return cell[0] != cell[0] ? cell[0] : cell[b];
  }
};

/// OpenCV's INTER_LINEAR coordinate: the left/top source pixel and the
/// weight of the right/bottom one, clamped at the edges.
LSM_HOST_DEVICE inline void linear_position(int64_t x, double scale, int64_t size, int64_t* i0, float* a) {
  const double u = add(mul(add(static_cast<double>(x), 0.5), scale), -0.5);
  const double f = floor(u);
  int64_t i = static_cast<int64_t>(f);
  float w = static_cast<float>(add(u, -f));
  if (i < 0) {
    i = 0;
    w = 0;
  }
  if (i >= size - 1) {
    i = size - 1;
    w = 0;
  }
  *i0 = i;
  *a = w;
}

/// (1 - a) p + a q, in float; p alone when a = 0 (so a NaN q of no weight stays out).
LSM_HOST_DEVICE inline float lerp(float p, float q, float a) {
  return a == 0 ? p : add(mul(1.0f - a, p), mul(a, q));
}

/// A value of the source smoothed by the mapping's Gaussian (or the value
/// itself when the mapping has none): rows of taps, columns within.
LSM_HOST_DEVICE inline float smoothed(const LevelMapping& m, const SourceRows& s, int64_t i, int64_t j, int b) {
  if (m.radius_x == 0 && m.radius_y == 0) return s.at(i, j, b);
  float sum = 0;
  for (int dj = -m.radius_y; dj <= m.radius_y; ++dj) {
    int64_t jj = j + dj;
    jj = jj < 0 ? 0 : jj >= s.height ? s.height - 1 : jj;
    float row = 0;
    for (int di = -m.radius_x; di <= m.radius_x; ++di) {
      int64_t ii = i + di;
      ii = ii < 0 ? 0 : ii >= s.width ? s.width - 1 : ii;
      row = add(row, mul(m.taps_x[di + m.radius_x], s.at(ii, jj, b)));
    }
    sum = add(sum, mul(m.taps_y[dj + m.radius_y], row));
  }
  return sum;
}

/// A level pixel's four source pixels (i, i1) x (j, j1) and the weights of
/// i1 and j1: linear_position along each axis.
struct LinearTaps {
  int64_t i, i1, j, j1;
  float a, c;
};

LSM_HOST_DEVICE inline void column_taps(const LevelGeometry& m, int64_t x, LinearTaps* t) {
  linear_position(x, m.scale_x, m.source_width, &t->i, &t->a);
  t->i1 = t->i + 1 < m.source_width ? t->i + 1 : t->i;
}

LSM_HOST_DEVICE inline void row_taps(const LevelGeometry& m, int64_t y, LinearTaps* t) {
  linear_position(y, m.scale_y, m.source_height, &t->j, &t->c);
  t->j1 = t->j + 1 < m.source_height ? t->j + 1 : t->j;
}

/// Bilinear interpolation at `t`, band b, of the source as it is or, with
/// `gaussian`, smoothed by its taps.
LSM_HOST_DEVICE inline float interpolate(const LinearTaps& t, const LevelMapping* gaussian, const SourceRows& s,
                                         int b) {
  auto value = [&](int64_t p, int64_t q) { return gaussian ? smoothed(*gaussian, s, p, q, b) : s.at(p, q, b); };
  const float top = lerp(value(t.i, t.j), value(t.i1, t.j), t.a);
  const float bottom = lerp(value(t.i, t.j1), value(t.i1, t.j1), t.a);
  return lerp(top, bottom, t.c);
}

/// Bilinear resampling of level pixel (x, y), band b.
LSM_HOST_DEVICE inline float linear_sample(const LevelGeometry& m, const LevelMapping* gaussian, const SourceRows& s,
                                           int64_t x, int64_t y, int b) {
  LinearTaps t;
  column_taps(m, x, &t);
  row_taps(m, y, &t);
  return interpolate(t, gaussian, s, b);
}

/// The footprint [x * scale, (x + 1) * scale) of a level pixel, clipped to
/// the source: its first pixel and one past its last.
LSM_HOST_DEVICE inline void footprint(int64_t x, double scale, int64_t size, double* begin, double* end,
                                      int64_t* first, int64_t* last) {
  *begin = mul(static_cast<double>(x), scale);
  *end = mul(static_cast<double>(x + 1), scale);
  if (*end > static_cast<double>(size)) *end = static_cast<double>(size);
  *first = static_cast<int64_t>(floor(*begin));
  *last = static_cast<int64_t>(ceil(*end));
  if (*last > size) *last = size;
}

/// The overlap of source pixel [k, k + 1) with [begin, end).
LSM_HOST_DEVICE inline double overlap(int64_t k, double begin, double end) {
  const double lo = static_cast<double>(k) > begin ? static_cast<double>(k) : begin;
  const double hi = static_cast<double>(k + 1) < end ? static_cast<double>(k + 1) : end;
  return add(hi, -lo);
}

/// Area-weighted mean of level pixel (x, y), band b; NaN pixels left out.
LSM_HOST_DEVICE inline float area_sample(const LevelGeometry& m, const SourceRows& s, int64_t x, int64_t y, int b) {
  double bx, ex, by, ey;
  int64_t i0, i1, j0, j1;
  footprint(x, m.scale_x, m.source_width, &bx, &ex, &i0, &i1);
  footprint(y, m.scale_y, m.source_height, &by, &ey, &j0, &j1);
  double sum = 0, weight = 0;
  for (int64_t j = j0; j < j1; ++j) {
    const double wy = overlap(j, by, ey);
    for (int64_t i = i0; i < i1; ++i) {
      const float v = s.at(i, j, b);
      if (v != v) continue;
      const double w = mul(wy, overlap(i, bx, ex));
      sum = add(sum, mul(w, static_cast<double>(v)));
      weight = add(weight, w);
    }
  }
  return weight > 0 ? static_cast<float>(sum / weight) : NAN;
}

/// Level pixel (x, y), band b, by the mapping's resampling.
LSM_HOST_DEVICE inline float sample(const LevelMapping& m, const SourceRows& s, int64_t x, int64_t y, int b) {
  if (m.resampling == Resampling::Area) return area_sample(m, s, x, y, b);
  return linear_sample(m, m.radius_x || m.radius_y ? &m : nullptr, s, x, y, b);
}

}  // namespace lsm::pyramid_math
