// noise_level.h: the standard deviation of additive white noise in one plane of
// one frame, by principal component analysis of weak-texture patches, after
// Liu, Tanaka & Okutomi, "Single-image noise level estimation for blind
// denoising", IEEE TIP 22(12), 2013, Sec. III (docs/NOISE.md).
//
// The paper: take 7x7 patches; a patch's texture strength xi is the energy of
// its central-difference gradients (the trace of its gradient covariance,
// Sec. III-A). A patch of pure noise of std s has xi ~ s^2 Gamma(r/2, 2 tr(D)/r)
// (D = Dh'Dh + Dv'Dv, r = rank D = 48, tr D = 35), so patches with xi below
// tau = s^2 F^-1(confidence) are "weak texture" (Sec. III-B). The noise variance
// is the smallest eigenvalue of the covariance of the weak-texture patches;
// s starts from all patches and the selection and the estimate alternate until
// s settles (Sec. III-C, Algorithm 1).
//
// Two named options go beyond the paper, both on by default (the paper's
// version is NoiseEigen::MinEigenvalue with NoiseClipping::Ignore):
// - NoiseEigen::SplitSample. The smallest eigenvalue of a sample covariance is
//   biased low (by about (1 - sqrt(48 / n))^2 for n patches: -3 % in sigma for
//   50,000 patches, -6 % for 12,000), which made the estimate depend on the
//   frame size and the sampling budget. The selected patches are split into two
//   halves that share no pixel (so their noise is independent), a checkerboard
//   of cells 32 columns wide and one band of rows high (dense sampling of a
//   small plane: columns of cells 32 wide); the direction of the
//   smallest eigenvalue of one half's covariance is measured on the other half's
//   covariance (an independent sample, so its variance along that direction is
//   unbiased) and the two crossed values are averaged. Patches are taken with
//   their own mean removed (the constant direction is the patch mean, signal).
// - NoiseClipping::CensoredModel. Samples clipped at 0 or at the maximum carry
//   less than the noise's variance (strongly at sigma 30..50 in 8 bits). A patch
//   of mean m in noise of std s keeps the fraction f(m, s) of the variance of a
//   normal variable clamped to [0, max]; only patches with f >= 0.9 are used and
//   the estimate is divided by their mean f (f of each patch from its mean).
//
// Sampling: patches are read in bands of 7 rows (PatchSampling), so that a
// device frame's samples can be copied to the host by one 2D copy per plane,
// and a plane of any size costs about `budget` patches.
//
// All sigmas here are in 8-bit code values (a plane of depth d is scaled by
// 2^(8 - d)).
#pragma once

#include <cstdint>
#include <vector>

#include "cudadenoise/plane.h"

namespace cdn {

constexpr int kNoisePatch = 7;  // patch side (the paper's default)

// Patches with their top-left corner at (x_first + j * x_step, band_first + k *
// band_step), for k < bands and every j with the patch inside the plane.
// band_step >= 7: bands of rows that never overlap; band_step 1 (a small plane,
// "dense"): every patch position.
struct PatchSampling {
  int band_first = 0;
  int band_step = kNoisePatch;
  int bands = 0;
  int x_first = 0;
  int x_step = 1;
};

// About `budget` patches spread over a width x height plane: every band of rows
// and every column when the plane is small, otherwise bands about 4x further
// apart than the columns (fewer, full-width bands: cheap to copy from a device).
// A plane too small for kNoiseDenseBelow patches that way (up to about 150x110) is
// sampled densely: every position.
// `phase` shifts the bands and columns (a tracker passes the frame number, so
// that successive frames look at different patches).
PatchSampling patch_sampling(int width, int height, int budget, std::uint64_t phase = 0);

enum class NoiseEigen {
  MinEigenvalue,  // the paper: smallest eigenvalue of the selected patches' covariance
  SplitSample,    // crossed halves (see above): no small-sample bias
};

enum class NoiseClipping {
  Ignore,         // the paper: all patches, clipped or not
  CensoredModel,  // patches far enough from 0 and the maximum, corrected (see above)
};

struct NoiseLevelOptions {
  NoiseEigen eigen = NoiseEigen::SplitSample;
  NoiseClipping clipping = NoiseClipping::CensoredModel;
  double confidence = 0.999;     // of the weak-texture threshold (docs/NOISE.md: why not 1 - 1e-6)
  int max_iterations = 4;        // selection / estimate rounds after the start (at most)
  // > 0: the rounds start from this sigma (a tracker's previous value) instead
  // of from all patches; falls back to all patches if it selects too few. With
  // max_iterations = 0 the estimate is then a single round at this sigma.
  double start_sigma = 0;
  int max_selected = 8192;       // the final covariance uses at most this many (evenly spread) patches
  int min_selected = 512;        // an estimate needs this many weak-texture patches (kNoiseMinSelected)
  // Only patches whose mean (8-bit code values) lies in [mean_min, mean_max): one
  // level set of signal-dependent noise (noise_model.h). The whole range by default.
  double mean_min = 0, mean_max = 256;
  // When no sigma of the rounds selects enough patches from a cold start, the
  // estimate of all patches (without the CensoredModel selection) rather than
  // none, as the paper's estimate stays at its start. False for a level set of
  // noise_model.h: a level inside the clipped range then has no estimate
  // instead of one that reads low (astronaut.png, AWGN sigma 40: 24.5 at mean 18.6).
  bool all_patches_fallback = true;
};

struct NoiseLevel {
  double sigma = 0;     // 8-bit code values; 0 when not usable
  int candidates = 0;   // patches sampled
  int structured = 0;   // of them, not constant (a constant patch: all 49 samples equal)
  int selected = 0;     // weak-texture patches of the final estimate
  int iterations = 0;   // selection / estimate rounds done
  bool usable = false;  // enough selected patches, and the plane is not flat (see kNoiseMin*)
  double mean = 0;      // mean intensity of the selected patches, 8-bit code values
};

// A plane is flat (a black, grey or single-colour frame, no information about
// the noise) when fewer than 1 % of its candidate patches, or fewer than this
// many, vary at all; an estimate needs at least kNoiseMinSelected patches.
constexpr int kNoiseMinStructured = 64;
constexpr int kNoiseMinSelected = 512;
constexpr int kNoiseDenseBelow = 2048;

// Reuses its buffers from call to call (one per plane of a tracker). Not thread-safe.
class NoiseLevelEstimator {
 public:
  // `plane` must be in host memory.
  NoiseLevel estimate(const PlaneView& plane, const PatchSampling& sampling, const NoiseLevelOptions& options = {});
  // The estimate on the candidate patches of the last estimate() (its plane
  // must still be valid) with other options, e.g. one level set of the means
  // (mean_min, mean_max) or another start_sigma: what estimate() with these
  // options on that plane and sampling gives, without a second pass over the
  // plane (the tracker's model, noise_tracker.h). Not usable before any estimate().
  NoiseLevel estimate_again(const NoiseLevelOptions& options);
  // Candidate patches of the last estimate() whose mean (8-bit code values)
  // lies in [mean_min, mean_max).
  int candidates_between(double mean_min, double mean_max) const;

 private:
  struct Candidate {
    int x, y;
    float xi, mean;
    std::int8_t half;  // which half of the split sample; -1: neither (crosses a cell edge)
  };
  static void validate_options(const NoiseLevelOptions& options);
  // Steps 2 and 3 (the rounds) on candidates_.
  NoiseLevel estimate_candidates(const NoiseLevelOptions& options);
  double covariance_estimate(const std::vector<int>& selected, const NoiseLevelOptions& options);
  PlaneView plane_;  // of the estimate in progress
  double scale_ = 1;  // to 8-bit units
  int structured_ = 0;  // candidates that are not constant
  std::vector<Candidate> candidates_;
  std::vector<float> row_, col_sum_, col_vgrad_, col_hgrad_, col_lo_, col_hi_;  // one band's column aggregates
  std::vector<float> columns_;  // the selected patches, 49 values each
};

// The whole plane with the default budget (kNoiseDefaultBudget patches) and options.
constexpr int kNoiseDefaultBudget = 32768;
NoiseLevel estimate_noise_level(const PlaneView& plane, const NoiseLevelOptions& options = {});

// The weak-texture threshold factor F^-1(confidence) of the paper: tau = sigma^2 * factor.
double weak_texture_threshold_factor(double confidence);

// The fraction of the variance of N(mean, sigma^2) that survives clamping to
// [0, max]: Var(clamp(X, 0, max)) / sigma^2 (1 when sigma is 0 and 0 < mean < max).
double clamped_variance_fraction(double mean, double sigma, double max);

}  // namespace cdn
