// noise_model.h: signal-dependent noise in one plane of one frame: the noise
// level function sigma(x), the noise's standard deviation as a function of the
// intensity x, estimated from the frame itself (issue 37; docs/NOISE.md,
// "Signal-dependent noise"). The CPU reference; AWGN is the case a = 0.
//
// Level sets as in Foi, Trimeche, Katkovnik & Egiazarian, "Practical
// Poissonian-Gaussian noise modeling and fitting for single-image raw-data",
// IEEE TIP 17(10), 2008, Sec. III: the frame's patches are grouped by their
// mean, each group's noise variance is estimated, and var = a x + b is fitted
// to the groups. Each group's variance here is the AWGN estimator's
// (noise_level.h: weak-texture patches by Liu, Tanaka & Okutomi's gradient
// test, the split-sample smallest eigenvalue, clipping by the censored model)
// restricted to the patches of that group, in place of the paper's wavelet
// estimates over a smoothness mask: the weak-texture selection is what keeps
// texture out, and the noise within a group of 32 code values is close to
// white of one variance.
//
// All intensities and sigmas are in 8-bit code values (a plane of depth d is
// scaled by 2^(8 - d)): var(x) = a x + b, x in 0..255.
#pragma once

#include <vector>

#include "cudadenoise/noise_level.h"
#include "cudadenoise/plane.h"

namespace cdn {

constexpr int kNoiseModelLevels = 8;          // level sets of 32 code values
constexpr int kNoiseModelMinSelected = 256;   // weak-texture patches a level set needs
constexpr double kNoiseModelMinSigma = 0.5;   // the floor of sigma(x), as the AWGN estimate's

// One level set of the estimate.
struct NoiseModelLevel {
  double mean = 0;      // mean intensity of its selected patches
  double variance = 0;  // noise variance (0: not usable)
  int selected = 0;     // weak-texture patches it was estimated from
  bool usable() const { return variance > 0; }
};

// var(x) = a x + b, and the level sets it was fitted to (the free curve).
struct NoiseModel {
  double a = 0;
  double b = 0;
  std::vector<NoiseModelLevel> levels;  // kNoiseModelLevels, level k covers [32 k, 32 k + 32)
  bool usable = false;                  // two usable level sets (one to fit b alone)

  // The affine model's sigma at x, never below kNoiseModelMinSigma.
  double sigma_affine(double x) const;
  // The free curve's sigma at x: the usable levels' sigmas linearly interpolated
  // between their means, constant beyond the first and the last; never below
  // kNoiseModelMinSigma.
  double sigma_curve(double x) const;
};

// The model of a plane in host memory. `fit_slope` false fits b alone (a = 0).
NoiseModel estimate_noise_model(const PlaneView& plane, bool fit_slope = true);

// The options of a level set's estimate (NoiseLevelEstimator restricted to
// level k's means, at least kNoiseModelMinSelected patches, no fallback to all
// patches: noise_level.h), and the estimate as a level of the model.
NoiseLevelOptions noise_model_level_options(int k, int max_selected);
NoiseModelLevel noise_model_level(const NoiseLevel& estimate);

// The weighted least-squares fit of var = a x + b to the usable levels (weights
// selected / variance^2, the inverse variance of a variance estimate). A fit
// with a < 0, or with a x + b <= 0 at a level's mean, is replaced by a = 0 and
// the weighted mean variance. Fills model->a, b and usable.
void fit_noise_model(NoiseModel* model, bool fit_slope = true);

}  // namespace cdn
