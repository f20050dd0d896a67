// noise_stats.cpp: the true mean sigma of a signal model and the residual's RMS
// and level-set fit, on the luma (noise_stats.h).
#include "noise_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cdn::eval {

double model_mean_sigma(const std::vector<HostFrame>& clean, double a, double b) {
  double sum = 0, n = 0;
  for (const HostFrame& f : clean) {
    const PlaneView y = components(f.view())[0];
    const double scale = std::ldexp(1.0, y.bit_depth - 8);
    for (int r = 0; r < y.height; ++r)
      for (int x = 0; x < y.width; ++x) sum += std::max(a * (y.get(x, r) / scale) + b, 0.0);
    n += static_cast<double>(y.width) * y.height;
  }
  return n > 0 ? std::sqrt(sum / n) : 0;
}

ResidualNoise residual_noise(const std::vector<HostFrame>& clean, const std::vector<HostFrame>& noisy) {
  if (clean.size() != noisy.size()) throw std::invalid_argument("residual_noise: frame counts differ");
  const double width = 256.0 / kNoiseModelLevels;
  std::vector<double> n(kNoiseModelLevels), sx(n.size()), sd(n.size()), sdd(n.size());
  double total = 0, count = 0;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    const PlaneView c = components(clean[i].view())[0], z = components(noisy[i].view())[0];
    if (c.width != z.width || c.height != z.height || c.bit_depth != z.bit_depth)
      throw std::invalid_argument("residual_noise: frames differ in size or depth");
    const double scale = std::ldexp(1.0, c.bit_depth - 8);
    for (int r = 0; r < c.height; ++r)
      for (int x = 0; x < c.width; ++x) {
        const double v = c.get(x, r) / scale, d = (z.get(x, r) - c.get(x, r)) / scale;
        const int k = std::min(kNoiseModelLevels - 1, static_cast<int>(v / width));
        n[k]++, sx[k] += v, sd[k] += d, sdd[k] += d * d;
        total += d * d, count++;
      }
  }
  ResidualNoise out;
  out.rms = count > 0 ? std::sqrt(total / count) : 0;
  out.fit.levels.resize(kNoiseModelLevels);
  for (int k = 0; k < kNoiseModelLevels; ++k) {
    if (n[k] < kNoiseModelMinSelected) continue;
    NoiseModelLevel& l = out.fit.levels[k];
    l.mean = sx[k] / n[k];
    l.variance = std::max(0.0, sdd[k] / n[k] - (sd[k] / n[k]) * (sd[k] / n[k]));
    l.selected = static_cast<int>(std::min(n[k], 2e9));
  }
  fit_noise_model(&out.fit);
  return out;
}

}  // namespace cdn::eval
