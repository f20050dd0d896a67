// noise_level.cpp: weak-texture patch PCA noise estimate (noise_level.h; Liu,
// Tanaka & Okutomi 2013, Sec. III, with the SplitSample and CensoredModel options).
#include "cudadenoise/noise_level.h"

// GCC 12 warns (-Wmaybe-uninitialized) inside Eigen 3.4's tridiagonalization of
// fixed-size matrices, a known false positive of Eigen's code, not ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Dense>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "cudadenoise/error.h"
#include "noise/gamma_distribution.h"

namespace cdn {

namespace {

constexpr int kP = kNoisePatch;
constexpr int kDims = kP * kP;
// D = Dh'Dh + Dv'Dv for the central differences [-1/2 0 1/2] inside a 7x7
// patch: 2 * 7 * 5 differences of squared norm 1/2 (trace 35); its null space
// is the constant patch (rank 48).
constexpr double kTraceD = 2 * kP * (kP - 2) * 0.5;
constexpr int kRankD = kDims - 1;
constexpr double kMinFraction = 0.9;  // CensoredModel: patches keep at least 90 % of the variance
constexpr int kCell = 32;             // SplitSample: width of the checkerboard cells, pixels

double phi(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }
double upper_tail(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }  // 1 - Phi(x)

// The range of patch means [lo, max - lo] that keep at least kMinFraction of
// the variance at `sigma` (empty, lo > max / 2, when none does).
double censored_low_mean(double sigma, double max) {
  if (clamped_variance_fraction(0.5 * max, sigma, max) < kMinFraction) return max;  // none
  double lo = 0, hi = 0.5 * max;  // fraction(lo) < kMinFraction <= fraction(hi)
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (clamped_variance_fraction(mid, sigma, max) < kMinFraction ? lo : hi) = mid;
  }
  return hi;
}

// Reads row y as values in 8-bit units.
void read_row(const PlaneView& p, int y, double scale, float* out) {
  const unsigned char* row = static_cast<const unsigned char*>(p.data) + static_cast<std::size_t>(y) * p.pitch;
  const float sc = static_cast<float>(scale);
  if (p.bytes_per_sample == 1) {
    for (int x = 0; x < p.width; ++x) out[x] = row[x * p.pixel_stride + p.component_offset] * sc;
  } else {
    const auto* r16 = reinterpret_cast<const std::uint16_t*>(row);
    for (int x = 0; x < p.width; ++x) out[x] = (r16[x * p.pixel_stride + p.component_offset] >> p.shift) * sc;
  }
}

// Reads the 7x7 patch at (x, y) as values in 8-bit units.
void read_patch(const PlaneView& p, int x, int y, double scale, float* out) {
  for (int j = 0; j < kP; ++j) {
    const unsigned char* row = static_cast<const unsigned char*>(p.data) + static_cast<std::size_t>(y + j) * p.pitch;
    if (p.bytes_per_sample == 1) {
      for (int i = 0; i < kP; ++i) out[j * kP + i] = static_cast<float>(row[(x + i) * p.pixel_stride + p.component_offset] * scale);
    } else {
      const auto* r16 = reinterpret_cast<const std::uint16_t*>(row);
      for (int i = 0; i < kP; ++i)
        out[j * kP + i] = static_cast<float>((r16[(x + i) * p.pixel_stride + p.component_offset] >> p.shift) * scale);
    }
  }
}

}  // namespace

double clamped_variance_fraction(double mean, double sigma, double max) {
  if (!(mean > 0 && mean < max)) return 0;
  if (sigma <= 0) return 1;
  // X = clamp(Z, -a, b) for Z ~ N(0, 1); E[X] and E[X^2] of the censored normal.
  const double a = mean / sigma, b = (max - mean) / sigma;
  const double below = upper_tail(a), above = upper_tail(b);
  const double m1 = -a * below + b * above + phi(a) - phi(b);
  const double m2 = a * a * below + b * b * above + (1 - above - below) - b * phi(b) - a * phi(a);
  return std::max(0.0, m2 - m1 * m1);
}

double weak_texture_threshold_factor(double confidence) {
  static std::mutex m;
  static std::map<double, double> cache;
  std::lock_guard<std::mutex> lock(m);
  auto it = cache.find(confidence);
  if (it != cache.end()) return it->second;
  const double f = gamma_quantile(confidence, kRankD / 2.0, 2.0 * kTraceD / kRankD);
  cache[confidence] = f;
  return f;
}

PatchSampling patch_sampling(int width, int height, int budget, std::uint64_t phase) {
  PatchSampling s;
  if (width < kP || height < kP) return s;
  budget = std::max(budget, 1);
  if (static_cast<long>(height / kP) * (width - kP + 1) < kNoiseDenseBelow) {
    // A small plane: every position (overlapping bands; the split then goes by
    // columns of cells only). No phase: there is nothing else to visit.
    s.band_step = 1;
    s.x_step = 1;
    s.bands = height - kP + 1;
    return s;
  }
  const double area = static_cast<double>(width) * height / budget;  // pixels per patch
  if (area <= kP) {
    s.band_step = kP;
    s.x_step = 1;
  } else {
    s.band_step = std::max(kP, static_cast<int>(std::lround(std::sqrt(4 * area))));
    s.x_step = std::max(1, static_cast<int>(std::lround(area / s.band_step)));
  }
  // Successive phases visit the offsets in a scattered order (5 and 3 are
  // coprime with most steps; any order would do).
  s.band_first = static_cast<int>((phase * 5) % static_cast<std::uint64_t>(s.band_step));
  if (s.band_first + kP > height) s.band_first = 0;
  s.x_first = static_cast<int>((phase * 3) % static_cast<std::uint64_t>(s.x_step));
  if (s.x_first + kP > width) s.x_first = 0;
  s.bands = (height - kP - s.band_first) / s.band_step + 1;
  return s;
}

void NoiseLevelEstimator::validate_options(const NoiseLevelOptions& o) {
  if (!(o.confidence > 0 && o.confidence < 1)) throw InvalidArgument("noise estimate: confidence in (0, 1)");
  if (o.max_selected < kNoiseMinSelected) throw InvalidArgument("noise estimate: max_selected >= 512");
  if (o.min_selected <= 2 * kDims || o.min_selected > o.max_selected)
    throw InvalidArgument("noise estimate: min_selected above 98 and at most max_selected");
}

double NoiseLevelEstimator::covariance_estimate(const std::vector<int>& selected, const NoiseLevelOptions& o) {
  using MatD = Eigen::Matrix<double, kDims, kDims>;
  if (o.eigen == NoiseEigen::MinEigenvalue) {
    // The paper (and the authors' code): the second-moment matrix of the raw
    // patches, X X' / (n - 1), and its smallest eigenvalue. Double: raw values.
    const int n = static_cast<int>(selected.size());
    Eigen::MatrixXd x(kDims, n);
    for (int k = 0; k < n; ++k) {
      const Candidate& c = candidates_[selected[k]];
      float v[kDims];
      read_patch(plane_, c.x, c.y, scale_, v);
      for (int d = 0; d < kDims; ++d) x(d, k) = v[d];
    }
    MatD cov = MatD::Zero();
    cov.selfadjointView<Eigen::Lower>().rankUpdate(x, 1.0 / (n - 1));
    Eigen::SelfAdjointEigenSolver<MatD> es(cov.selfadjointView<Eigen::Lower>(), Eigen::EigenvaluesOnly);
    return std::max(0.0, es.eigenvalues()(0));
  }
  // SplitSample: covariance of each half (patch means removed already, then the
  // half's mean patch), the smallest-variance direction of one measured on the other.
  MatD cov[2];
  for (int h = 0; h < 2; ++h) {
    int n = 0;
    columns_.resize(selected.size() * kDims);
    for (int i : selected)
      if (candidates_[i].half == h) {
        const Candidate& c = candidates_[i];
        float* v = &columns_[static_cast<std::size_t>(n++) * kDims];
        read_patch(plane_, c.x, c.y, scale_, v);
        for (int d = 0; d < kDims; ++d) v[d] -= c.mean;  // the patch's own mean (signal)
      }
    if (n <= kDims) return -1;
    Eigen::Map<Eigen::Matrix<float, kDims, Eigen::Dynamic>> x(columns_.data(), kDims, n);
    const Eigen::Matrix<float, kDims, 1> mean = x.rowwise().mean();
    x.colwise() -= mean;
    Eigen::Matrix<float, kDims, kDims> c = Eigen::Matrix<float, kDims, kDims>::Zero();
    c.selfadjointView<Eigen::Lower>().rankUpdate(x, 1.0f / static_cast<float>(n - 1));
    cov[h] = c.selfadjointView<Eigen::Lower>().toDenseMatrix().cast<double>();
  }
  double sum = 0;
  for (int h = 0; h < 2; ++h) {
    // The constant direction has no variance (each patch's mean was removed):
    // lift it above every other eigenvalue so that it is never the smallest.
    const MatD lifted = cov[h] + MatD::Constant((cov[h].trace() + 1.0) / kDims);
    Eigen::SelfAdjointEigenSolver<MatD> es(lifted);
    const Eigen::Matrix<double, kDims, 1> v = es.eigenvectors().col(0);
    sum += v.dot(cov[1 - h] * v);
  }
  return std::max(0.0, 0.5 * sum);
}

NoiseLevel NoiseLevelEstimator::estimate(const PlaneView& p, const PatchSampling& s, const NoiseLevelOptions& o) {
  if (p.memory != MemoryKind::Host) throw InvalidArgument("noise estimate: needs a host plane");
  if (!(s.band_step >= kP || s.band_step == 1) || s.x_step < 1)
    throw InvalidArgument("noise estimate: band_step 1 or >= 7, x_step >= 1");
  const bool dense = s.band_step < kP;
  validate_options(o);
  NoiseLevel r;
  const double scale = std::ldexp(1.0, 8 - p.bit_depth);

  // 1. Candidates: texture strength xi (Sec. III-A), mean, constancy, half.
  // Per band, column aggregates first (sums over the band's 7 rows), so that a
  // patch costs a few additions whatever the column step.
  plane_ = p;
  scale_ = scale;
  candidates_.clear();
  const int w = p.width;
  col_sum_.resize(w);
  col_vgrad_.resize(w);
  col_hgrad_.resize(w);
  col_lo_.resize(w);
  col_hi_.resize(w);
  row_.resize(static_cast<std::size_t>(kP) * w);
  for (int k = 0; k < s.bands; ++k) {
    const int y = s.band_first + k * s.band_step;
    if (y + kP > p.height) break;
    for (int j = 0; j < kP; ++j) read_row(p, y + j, scale, &row_[static_cast<std::size_t>(j) * w]);
    // Row by row over the band (loops the compiler vectorizes): per column the
    // sum, min and max of its 7 samples and its squared vertical differences;
    // per column x in 1 .. w-2, its squared horizontal differences.
    const float* rows[kP];
    for (int j = 0; j < kP; ++j) rows[j] = &row_[static_cast<std::size_t>(j) * w];
    float* csum = col_sum_.data();
    float* clo = col_lo_.data();
    float* chi = col_hi_.data();
    float* cvg = col_vgrad_.data();
    float* chg = col_hgrad_.data();
    for (int x = 0; x < w; ++x) {
      csum[x] = clo[x] = chi[x] = rows[0][x];
      cvg[x] = chg[x] = 0;
    }
    for (int j = 1; j < kP; ++j)
      for (int x = 0; x < w; ++x) {
        csum[x] += rows[j][x];
        clo[x] = std::min(clo[x], rows[j][x]);
        chi[x] = std::max(chi[x], rows[j][x]);
      }
    for (int j = 1; j + 1 < kP; ++j)
      for (int x = 0; x < w; ++x) {
        const float g = 0.5f * (rows[j + 1][x] - rows[j - 1][x]);
        cvg[x] += g * g;
      }
    for (int j = 0; j < kP; ++j)
      for (int x = 1; x + 1 < w; ++x) {
        const float g = 0.5f * (rows[j][x + 1] - rows[j][x - 1]);
        chg[x] += g * g;
      }
    for (int x = s.x_first; x + kP <= w; x += s.x_step) {
      float sum = 0, xi = 0, lo = col_lo_[x], hi = col_hi_[x];
      for (int i = 0; i < kP; ++i) {
        sum += col_sum_[x + i];
        xi += col_vgrad_[x + i];
        if (i >= 1 && i + 1 < kP) xi += col_hgrad_[x + i];  // horizontal differences inside the patch
        lo = std::min(lo, col_lo_[x + i]);
        hi = std::max(hi, col_hi_[x + i]);
      }
      if (hi > lo) ++r.structured;
      // The split: a checkerboard of cells 32 columns wide and one band high
      // (each half holds both parities of rows and bands: content that
      // alternates from row to row, as in line-doubled or interlaced video,
      // looks the same in both); dense sampling (bands overlap): the columns
      // of cells alone. A patch that crosses a cell's right edge would share
      // pixels with the other half: it goes to neither.
      const int cell = x / kCell;
      const std::int8_t half =
          (x + kP - 1) / kCell != cell ? -1 : static_cast<std::int8_t>((cell + (dense ? 0 : k)) & 1);
      candidates_.push_back({x, y, xi, sum / kDims, half});
    }
  }
  r.candidates = static_cast<int>(candidates_.size());
  structured_ = r.structured;
  return estimate_candidates(o);
}

NoiseLevel NoiseLevelEstimator::estimate_again(const NoiseLevelOptions& o) {
  validate_options(o);
  return estimate_candidates(o);
}

int NoiseLevelEstimator::candidates_between(double mean_min, double mean_max) const {
  int n = 0;
  for (const Candidate& c : candidates_)
    if (c.mean >= mean_min && c.mean < mean_max) ++n;
  return n;
}

NoiseLevel NoiseLevelEstimator::estimate_candidates(const NoiseLevelOptions& o) {
  NoiseLevel r;
  r.candidates = static_cast<int>(candidates_.size());
  r.structured = structured_;
  if (r.structured < kNoiseMinStructured || r.structured * 100 < r.candidates) return r;  // flat
  const PlaneView& p = plane_;
  const double top = p.max_value() * scale_;

  const double tau0 = weak_texture_threshold_factor(o.confidence);
  const bool censored = o.clipping == NoiseClipping::CensoredModel;
  const bool split = o.eigen == NoiseEigen::SplitSample;
  // The kept variance fraction by patch mean, tabulated per sigma (CensoredModel).
  constexpr int kBins = 512;
  double fraction_table[kBins];
  auto bin = [&](float mean) { return std::min(kBins - 1, static_cast<int>(mean / top * kBins)); };

  // The weak-texture patches at noise std `sigma` (xi below the threshold and,
  // with CensoredModel, a mean far enough from the clipping levels), at most
  // `cap` of them, evenly spread; `all`: every candidate (the start). Returns
  // the number selected before the cap and the mean kept variance fraction.
  std::vector<int> sel;
  auto select = [&](double sigma, bool all, int cap, double* fraction) {
    sel.clear();
    double lo = 0, hi = top;
    if (censored) {
      lo = censored_low_mean(sigma, top);
      hi = top - lo;
      for (int b = 0; b < kBins; ++b) fraction_table[b] = clamped_variance_fraction((b + 0.5) * top / kBins, sigma, top);
    }
    const double tau = std::max(sigma * sigma, 1e-6) * tau0;
    for (int i = 0; i < r.candidates; ++i) {
      const Candidate& c = candidates_[i];
      if (split && c.half < 0) continue;
      if (!all && !(c.xi <= tau)) continue;
      if (censored && !(c.mean >= lo && c.mean <= hi)) continue;
      if (!(c.mean >= o.mean_min && c.mean < o.mean_max)) continue;
      sel.push_back(i);
    }
    const int found = static_cast<int>(sel.size());
    if (found > cap) {
      for (int k = 0; k < cap; ++k) sel[k] = sel[static_cast<std::size_t>(k) * found / cap];
      sel.resize(cap);
    }
    *fraction = 1;
    if (censored && sigma > 0 && !sel.empty()) {
      double f = 0;
      for (int i : sel) f += fraction_table[bin(candidates_[i].mean)];
      *fraction = f / sel.size();
    }
    return found;
  };
  // One round: select at `sigma`, estimate the variance from the selection.
  auto round = [&](double sigma, bool all, int cap, double* out, int* found) {
    double fraction = 1;
    *found = select(sigma, all, cap, &fraction);
    if (*found < o.min_selected || !(fraction > 0)) return false;
    const double v = covariance_estimate(sel, o);
    if (v < 0) return false;
    *out = v / fraction;
    return true;
  };

  // 2. Start (Sec. III-C): from all patches (with CensoredModel: those whose
  // mean is inside (0, max)), or from the caller's sigma.
  // 3. Select with the current sigma and estimate again (the authors' code does
  // two such rounds), until sigma moves by less than 2 %. These rounds use at
  // most kProxy patches: the selection hardly moves with small changes of
  // sigma (the threshold admits noise up to a high quantile). The final round,
  // at the settled sigma, uses up to max_selected.
  // (MinEigenvalue, the paper's version, iterates on all patches: its
  // smallest eigenvalue of few patches would read low.)
  constexpr int kProxy = 2048;
  const int proxy = o.eigen == NoiseEigen::SplitSample ? std::min(kProxy, o.max_selected) : o.max_selected;
  double final_s2 = 0;
  int found = 0;
  // Rounds from s2, then the final round at the newest sigma, or, if that one
  // selects too few patches, at the last sigma that selected enough, or on all
  // patches if s2 came from all patches and no sigma selected enough (as in the
  // paper: the estimate stays at its last value rather than collapse).
  auto iterate = [&](double s2, bool from_all) {
    double good = -1;
    for (int it = 0; it < o.max_iterations; ++it) {
      double next = 0;
      if (!round(std::sqrt(s2), false, proxy, &next, &found)) break;
      good = s2;
      r.iterations = it + 1;
      const bool settled = std::fabs(next - s2) <= 0.04 * std::max(s2, 1e-6);  // 2 % in sigma
      s2 = next;
      if (settled) break;
    }
    if (round(std::sqrt(s2), false, o.max_selected, &final_s2, &found)) return true;
    if (good >= 0) return good != s2 && round(std::sqrt(good), false, o.max_selected, &final_s2, &found);
    return from_all && o.all_patches_fallback && round(0.0, true, o.max_selected, &final_s2, &found);
  };
  // From the caller's sigma: the final round at once; if it confirms that sigma
  // (within 2 %), that is the estimate (a tracker's usual frame: one round).
  bool done = false;
  if (o.start_sigma > 0) {
    const double s2 = o.start_sigma * o.start_sigma;
    if (round(o.start_sigma, false, o.max_selected, &final_s2, &found))
      done = std::fabs(final_s2 - s2) <= 0.04 * s2 || iterate(final_s2, false);
  }
  if (!done) {  // cold start, or the caller's sigma selected too few patches
    double s2 = 0;
    if (!round(0.0, true, proxy, &s2, &found)) return r;
    r.iterations = 0;
    done = iterate(s2, true);
  }
  if (!done) return r;
  r.selected = static_cast<int>(sel.size());
  double mean_sum = 0;
  for (int i : sel) mean_sum += candidates_[i].mean;
  r.mean = sel.empty() ? 0 : mean_sum / sel.size();
  r.sigma = std::sqrt(final_s2);
  r.usable = true;
  return r;
}

NoiseLevel estimate_noise_level(const PlaneView& plane, const NoiseLevelOptions& options) {
  NoiseLevelEstimator e;
  return e.estimate(plane, patch_sampling(plane.width, plane.height, kNoiseDefaultBudget), options);
}

}  // namespace cdn
