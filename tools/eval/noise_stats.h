// noise_stats.h: what noise a condition of the report really added, measured
// on the luma of its clean and noisy frames (`cudadenoise-eval prepare`'s JSON;
// docs/EVALUATION.md, "Real-like noise"):
// - the true mean sigma of a signal model var = a x + b: sqrt(mean(max(a x + b, 0)))
//   over the clean luma samples (x in 8-bit code values), the level a mode given
//   one sigma should get;
// - the residual noisy - clean: its RMS (8-bit code values: what the PSNR sees;
//   the camera model's true sigma) and var = a x + b fitted to it by level sets
//   of the clean luma (noise_model.h's 32 code values, each level's variance of
//   the residual, cdn::fit_noise_model's weighted least squares): the camera
//   model's nearest affine model (it has none of its own).
#pragma once

#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_model.h"

namespace cdn::eval {

struct ResidualNoise {
  double rms = 0;    // sqrt(mean((noisy - clean)^2)), 8-bit code values
  NoiseModel fit;    // a, b and the level sets (variance 0: fewer than kNoiseModelMinSelected samples)
};

// sqrt(mean(max(a x + b, 0))) over the luma samples of `clean`.
double model_mean_sigma(const std::vector<HostFrame>& clean, double a, double b);
// The residual of `noisy` against `clean` (same count, formats and sizes) on the luma.
ResidualNoise residual_noise(const std::vector<HostFrame>& clean, const std::vector<HostFrame>& noisy);

}  // namespace cdn::eval
