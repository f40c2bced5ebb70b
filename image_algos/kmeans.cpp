#include "kmeans.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "error.h"
#include "small_text_file.h"
#include "kmeans_seeding.h"
#include "kmeans_update.h"

namespace lsm {

namespace {

constexpr int64_t kMaxValidCells = int64_t(1) << 39;  // 2^39 x 2^23 < 2^63: the int64 sums cannot overflow

using kmeans_update::fixed_point_scale;

void check_options(const KMeansOptions& o, int bands) {
  if (o.k < 1) throw Error(ErrorKind::BadInput, "--k must be at least 1 (got " + std::to_string(o.k) + ")");
  if (o.k > 65534) throw Error(ErrorKind::BadInput, "--k must be at most 65534 (got " + std::to_string(o.k) + ")");
  if (o.max_iter < 1) throw Error(ErrorKind::BadInput, "--max-iter must be at least 1");
  if (o.n_init < 1) throw Error(ErrorKind::BadInput, "--n-init must be at least 1");
  if (!(o.tol >= 0)) throw Error(ErrorKind::BadInput, "--tol must be zero or positive");
  if (o.strip_rows < 0) throw Error(ErrorKind::BadInput, "the strip height must be positive");
  if (!o.init.empty() && o.init.size() != static_cast<size_t>(o.k) * bands)
    throw Error(ErrorKind::BadInput, "initial centres: expected " + std::to_string(o.k) + " x " +
                                         std::to_string(bands) + " values, got " + std::to_string(o.init.size()));
}

// What one pass over the raster needs: the data either resident or streamed.
class KMeansDriver {
 public:
  KMeansDriver(FeatureRasterSource& source, const KMeansOptions& o, KMeansPass& backend)
      : source_(source), o_(o), backend_(backend), info_(source.info()) {
    strip_rows_ = o.strip_rows ? o.strip_rows : 256;
  }

  // The first pass: band ranges, valid cells, the seeding sample, and the
  // resident copy when the features fit.
  void survey(KMeansResult& r, const ProgressFn& progress) {
    const int bands = info_.bands;
    const int64_t cells = info_.width * info_.height;
    resident_ = cells * bands * int64_t(sizeof(float)) <= o_.resident_bytes;
    if (resident_) resident_data_.resize(static_cast<size_t>(cells * bands));
    lo_.assign(bands, std::numeric_limits<double>::infinity());
    hi_.assign(bands, -std::numeric_limits<double>::infinity());
    const uint64_t threshold = sample_threshold(cells, o_.sample_size);
    stream_feature_strips(
        source_, strip_rows_,
        [&](const Window& w, const float* f) {
          const int64_t n = w.width * w.height, first = w.y0 * info_.width;
          if (resident_) std::copy(f, f + n * bands, resident_data_.data() + first * bands);
          // Each thread takes a contiguous share of the strip; the shares'
          // samples are joined in order, so the sample is in raster order
          // whatever the number of threads.
          std::vector<std::vector<float>> samples(static_cast<size_t>(omp_get_max_threads()));
#pragma omp parallel
          {
            std::vector<double> lo(lo_), hi(hi_);
            int64_t valid = 0;
            std::vector<float>& sample = samples[omp_get_thread_num()];
#pragma omp for schedule(static)
            for (int64_t i = 0; i < n; ++i) {
              const float* x = f + i * bands;
              if (is_nodata_features(x)) continue;
              ++valid;
              for (int b = 0; b < bands; ++b) {
                lo[b] = std::min(lo[b], double(x[b]));
                hi[b] = std::max(hi[b], double(x[b]));
              }
              if (in_kmeans_sample(uint64_t(first + i), o_.seed, threshold)) sample.insert(sample.end(), x, x + bands);
            }
#pragma omp critical(lsm_kmeans_survey)
            {
              r.valid_cells += valid;
              for (int b = 0; b < bands; ++b) {
                lo_[b] = std::min(lo_[b], lo[b]);
                hi_[b] = std::max(hi_[b], hi[b]);
              }
            }
          }
          for (const auto& s : samples) sample_.insert(sample_.end(), s.begin(), s.end());
        },
        progress);
    for (int b = 0; b < bands; ++b)
      if (!std::isfinite(lo_[b]) && r.valid_cells > 0)
        throw Error(ErrorKind::BadInput, "band " + std::to_string(b + 1) + " holds infinite values");
    if (r.valid_cells == 0) throw Error(ErrorKind::BadInput, "the raster has no valid (non-nodata) cells");
    if (r.valid_cells > kMaxValidCells)
      throw Error(ErrorKind::BadInput, "more than 2^39 valid cells: split the raster");
    if (sample_.empty()) {  // a tiny valid share missed by the hash: take the first valid cells instead
      stream_feature_strips(source_, strip_rows_, [&](const Window& w, const float* f) {
        for (int64_t i = 0; i < w.width * w.height && sample_.size() < size_t(o_.sample_size) * bands; ++i)
          if (!is_nodata_features(f + i * bands)) sample_.insert(sample_.end(), f + i * bands, f + (i + 1) * bands);
      });
    }
    r.sample_cells = static_cast<int64_t>(sample_.size() / bands);
    r.resident = resident_;
    if (resident_) backend_.set_data(resident_data_.data(), cells, bands);
  }

  const std::vector<float>& sample() const { return sample_; }

  KMeansModel model(const std::vector<float>& centres) const {
    KMeansModel m;
    m.k = o_.k;
    m.bands = info_.bands;
    m.centres = centres;
    m.feature_scale.resize(m.bands);
    for (int b = 0; b < m.bands; ++b)
      m.feature_scale[b] = fixed_point_scale(std::max(std::abs(lo_[b]), std::abs(hi_[b])));
    m.inertia_scale = kmeans_update::inertia_scale_for(centres.data(), m.k, m.bands, lo_.data(), hi_.data());
    return m;
  }

  // The backend's own Lloyd loop, when it has one and the data are resident.
  bool iterate(const KMeansModel& start, LloydOutcome& outcome, const ProgressFn& progress) {
    return resident_ && backend_.iterate(start, lo_, hi_, o_.max_iter, o_.tol, outcome, progress);
  }

  ClusterSums pass(const KMeansModel& m, const KMeansLabelFn& labels = {}, const ProgressFn& progress = {}) {
    ClusterSums sums;
    sums.reset(m.k, m.bands);
    if (resident_ && !labels) {
      backend_.run(m, sums, nullptr);
      return sums;
    }
    std::vector<uint16_t> strip_labels;
    auto run_strip = [&](const Window& w, const float* f) {
      if (labels) strip_labels.resize(static_cast<size_t>(w.width * w.height));
      if (!resident_) backend_.set_data(f, w.width * w.height, m.bands);
      ClusterSums part;
      part.reset(m.k, m.bands);
      backend_.run(m, part, labels ? strip_labels.data() : nullptr);
      sums.add(part);
      if (labels) labels(w, strip_labels.data());
    };
    if (!resident_) {
      stream_feature_strips(source_, strip_rows_, run_strip, progress);
      return sums;
    }
    // Resident, with labels: one run over everything, delivered strip by strip.
    const int64_t cells = info_.width * info_.height;
    std::vector<uint16_t> all(static_cast<size_t>(cells));
    backend_.run(m, sums, all.data());
    for (int64_t y = 0; y < info_.height; y += strip_rows_) {
      const Window w{0, y, info_.width, std::min(strip_rows_, info_.height - y)};
      labels(w, all.data() + y * info_.width);
      if (progress && !progress(double(y + w.height) / double(info_.height)))
        throw Error(ErrorKind::Io, "interrupted");
    }
    return sums;
  }

 private:
  FeatureRasterSource& source_;
  const KMeansOptions& o_;
  KMeansPass& backend_;
  FeatureRasterInfo info_;
  int64_t strip_rows_ = 256;
  bool resident_ = false;
  std::vector<float> resident_data_;
  std::vector<double> lo_, hi_;
  std::vector<float> sample_;
};

struct Run {
  std::vector<float> centres;
  std::vector<int64_t> counts;
  double inertia = 0;
  int iterations = 0;
  bool converged = false;
};

// One update (kmeans_update.h): `next` gets the new centres.
kmeans_update::LloydStep update(const ClusterSums& s, const KMeansModel& m, double tol, std::vector<float>& next) {
  next.resize(m.centres.size());
  bool moved = false;
  double max_d2 = 0;
  for (int j = 0; j < m.k; ++j)
    max_d2 = std::max(max_d2, kmeans_update::update_centre(j, m.bands, s.feature_sums.data(), m.bands, s.counts.data(), 1,
                                                           m.feature_scale.data(), m.centres.data(), next.data(),
                                                           &moved));
  return kmeans_update::lloyd_step(moved, max_d2, tol);
}

// Lloyd's iterations from `centres` until no assignment changes (the
// centres come out bit-identical, which the exact sums make equivalent),
// the largest shift is <= tol, or max_iter.
Run lloyd(KMeansDriver& driver, std::vector<float> centres, const KMeansOptions& o, const ProgressFn& progress) {
  Run run;
  KMeansModel m = driver.model(centres);
  ClusterSums sums;
  LloydOutcome outcome;
  kmeans_update::LloydStep step = kmeans_update::kMoved;
  if (driver.iterate(m, outcome, progress)) {
    run.iterations = outcome.iterations;
    step = static_cast<kmeans_update::LloydStep>(outcome.step);
    sums = std::move(outcome.sums);
    m = driver.model(outcome.centres);
  } else {
    std::vector<float> next;
    for (int it = 1; it <= o.max_iter; ++it) {
      sums = driver.pass(m);
      run.iterations = it;
      step = update(sums, m, o.tol, next);
      if (step == kmeans_update::kUnchanged) break;
      m = driver.model(next);
      if (progress && !progress(double(it) / o.max_iter)) throw Error(ErrorKind::Io, "interrupted");
      if (step == kmeans_update::kWithinTol) break;
    }
  }
  run.converged = step != kmeans_update::kMoved;
  if (step != kmeans_update::kUnchanged && !outcome.sums_final)
    sums = driver.pass(m);  // the counts and inertia of the final centres
  run.centres = m.centres;
  run.counts = sums.counts;
  run.inertia = double(sums.inertia) / double(m.inertia_scale);
  return run;
}

}  // namespace

KMeansResult run_kmeans(FeatureRasterSource& source, const KMeansOptions& o, KMeansPass& backend,
                        const KMeansLabelFn& labels, const ProgressFn& progress) {
  const FeatureRasterInfo info = source.info();
  check_options(o, info.bands);
  KMeansResult r;
  r.k = o.k;
  r.bands = info.bands;
  KMeansDriver driver(source, o, backend);
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  auto t = Clock::now();
  driver.survey(r, scaled_progress(progress, 0.0, 0.1));
  r.survey_seconds = seconds_since(t);
  t = Clock::now();

  const int runs = o.init.empty() ? o.n_init : 1;
  Run best;
  for (int i = 0; i < runs; ++i) {
    std::vector<float> start = o.init.empty() ? kmeans_plus_plus(driver.sample(), info.bands, o.k, o.seed, i) : o.init;
    const double begin = 0.1 + 0.8 * i / runs, end = 0.1 + 0.8 * (i + 1) / runs;
    Run run = lloyd(driver, std::move(start), o, scaled_progress(progress, begin, end));
    r.run_inertia.push_back(run.inertia);
    r.total_iterations += run.iterations;
    if (i == 0 || run.inertia < best.inertia) {
      best = std::move(run);
      r.best_run = i;
    }
  }
  r.centres.assign(best.centres.begin(), best.centres.end());
  r.counts = best.counts;
  r.inertia = best.inertia;
  r.iterations = best.iterations;
  r.converged = best.converged;
  r.lloyd_seconds = seconds_since(t);
  t = Clock::now();
  if (labels) driver.pass(driver.model(best.centres), labels, scaled_progress(progress, 0.9, 1.0));
  r.labels_seconds = seconds_since(t);
  if (progress && !progress(1.0)) throw Error(ErrorKind::Io, "interrupted");
  return r;
}

std::vector<float> read_centres_file(const std::string& path, int k, int bands) {
  // A centres file holds k short lines.
  const std::string text = read_small_text_file(path, "the initial centres file", 16 << 20);
  std::vector<float> centres;
  std::istringstream lines(text);
  std::string line;
  int line_no = 0, rows = 0;
  while (std::getline(lines, line)) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    std::vector<float> row;
    std::string field;
    while (fields >> field) {
      const std::string where = path + ":" + std::to_string(line_no) + ": '" + field.substr(0, 40) + "'";
      char* end = nullptr;
      errno = 0;
      const double value = std::strtod(field.c_str(), &end);
      if (end != field.c_str() + field.size() || field.empty()) throw Error(ErrorKind::BadInput, where + " is not a number");
      if (!std::isfinite(value) || (errno == ERANGE && value != 0.0))
        throw Error(ErrorKind::BadInput, where + " is not a finite number");
      if (std::fabs(value) > std::numeric_limits<float>::max())
        throw Error(ErrorKind::BadInput, where + " is beyond the 32-bit floating-point range of the centres (3.4e38)");
      row.push_back(static_cast<float>(value));
    }
    if (row.empty()) continue;
    if (static_cast<int>(row.size()) != bands)
      throw Error(ErrorKind::BadInput, path + ":" + std::to_string(line_no) + ": " + std::to_string(row.size()) +
                                           " values, expected one per band (" + std::to_string(bands) + ")");
    if (++rows > k)
      throw Error(ErrorKind::BadInput, path + " holds more than " + std::to_string(k) + " centres, expected --k " +
                                           std::to_string(k));
    centres.insert(centres.end(), row.begin(), row.end());
  }
  if (rows != k)
    throw Error(ErrorKind::BadInput, path + " holds " + std::to_string(rows) + " centres, expected --k " +
                                         std::to_string(k));
  return centres;
}

}  // namespace lsm
