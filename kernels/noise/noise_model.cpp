// noise_model.cpp: the noise level function of a plane (noise_model.h): the
// AWGN estimator on each level set of patch means, then a weighted affine fit.
// Each level set runs the estimator's candidate pass again (8 passes over the
// sampled patches): a CPU reference, not yet the tracker's per-frame path.
#include "cudadenoise/noise_model.h"

#include <algorithm>
#include <cmath>

#include "cudadenoise/noise_level.h"

namespace cdn {

double NoiseModel::sigma_affine(double x) const {
  return std::max(kNoiseModelMinSigma, std::sqrt(std::max(0.0, a * x + b)));
}

double NoiseModel::sigma_curve(double x) const {
  const NoiseModelLevel* prev = nullptr;
  for (const NoiseModelLevel& l : levels) {
    if (!l.usable()) continue;
    const double s = std::sqrt(l.variance);
    if (x <= l.mean) {
      if (!prev) return std::max(kNoiseModelMinSigma, s);
      const double p = std::sqrt(prev->variance), t = (x - prev->mean) / (l.mean - prev->mean);
      return std::max(kNoiseModelMinSigma, p + t * (s - p));
    }
    prev = &l;
  }
  return prev ? std::max(kNoiseModelMinSigma, std::sqrt(prev->variance)) : kNoiseModelMinSigma;
}

NoiseLevelOptions noise_model_level_options(int k, int max_selected) {
  const double width = 256.0 / kNoiseModelLevels;
  NoiseLevelOptions o;
  o.mean_min = k * width;
  o.mean_max = (k + 1) * width;
  o.min_selected = kNoiseModelMinSelected;
  o.max_selected = max_selected;
  o.all_patches_fallback = false;
  return o;
}

NoiseModelLevel noise_model_level(const NoiseLevel& r) {
  if (!r.usable || !(r.sigma > 0)) return {};
  return {r.mean, r.sigma * r.sigma, r.selected};
}

void fit_noise_model(NoiseModel* m, bool fit_slope) {
  m->a = m->b = 0;
  double sw = 0, swx = 0, swy = 0, swxx = 0, swxy = 0;
  int n = 0;
  for (const NoiseModelLevel& l : m->levels) {
    if (!l.usable()) continue;
    const double w = l.selected / (l.variance * l.variance);
    sw += w;
    swx += w * l.mean;
    swy += w * l.variance;
    swxx += w * l.mean * l.mean;
    swxy += w * l.mean * l.variance;
    n++;
  }
  m->usable = n >= (fit_slope ? 2 : 1);
  if (!m->usable) return;
  const double det = sw * swxx - swx * swx;
  if (fit_slope && det > 1e-12 * sw * swxx) {
    m->a = (sw * swxy - swx * swy) / det;
    m->b = (swy - m->a * swx) / sw;
  }
  bool positive = m->a > 0;
  for (const NoiseModelLevel& l : m->levels)
    if (l.usable() && m->a * l.mean + m->b <= 0) positive = false;
  if (!positive) {
    m->a = 0;
    m->b = swy / sw;
  }
}

NoiseModel estimate_noise_model(const PlaneView& plane, bool fit_slope) {
  NoiseModel m;
  m.levels.resize(kNoiseModelLevels);
  NoiseLevelEstimator estimator;
  const PatchSampling sampling = patch_sampling(plane.width, plane.height, kNoiseDefaultBudget);
  for (int k = 0; k < kNoiseModelLevels; ++k) {
    const NoiseLevelOptions o = noise_model_level_options(k, NoiseLevelOptions{}.max_selected);
    m.levels[k] = noise_model_level(estimator.estimate(plane, sampling, o));
  }
  fit_noise_model(&m, fit_slope);
  return m;
}

}  // namespace cdn
