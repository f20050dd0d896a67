// expected_noise.cpp: the expected MSE of clamped, rounded AWGN (expected_noise.h).
#include "expected_noise.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace cdn::eval {

namespace {

double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// E_v for one clean value v of a plane with maximum `max`.
double expected_sq_error(int v, int max, double s) {
  if (s <= 0) return 0;
  // Beyond 10 s the probability (< 1e-23) does not matter: fold it into the ends.
  const int k0 = std::max(0, static_cast<int>(std::floor(v - 10 * s)));
  const int k1 = std::min(max, static_cast<int>(std::ceil(v + 10 * s)));
  double e = 0;
  for (int k = k0; k <= k1; ++k) {
    const double lo = k == k0 ? 0.0 : phi((k - 0.5 - v) / s);
    const double hi = k == k1 ? 1.0 : phi((k + 0.5 - v) / s);
    e += (hi - lo) * double(k - v) * double(k - v);
  }
  return e;
}

}  // namespace

double expected_noisy_mse(const PlaneView& clean, double sigma) {
  if (clean.memory != MemoryKind::Host) throw std::invalid_argument("expected_noisy_mse needs a host plane");
  if (sigma < 0) throw std::invalid_argument("sigma must not be negative");
  const int max = clean.max_value();
  std::vector<double> hist(static_cast<std::size_t>(max) + 1, 0.0);
  for (int y = 0; y < clean.height; ++y)
    for (int x = 0; x < clean.width; ++x) hist[clean.get(x, y)] += 1;
  const double s = sigma * double(1 << (clean.bit_depth - 8));
  double sum = 0;
  for (int v = 0; v <= max; ++v)
    if (hist[v] > 0) sum += hist[v] * expected_sq_error(v, max, s);
  return sum / (double(clean.width) * clean.height);
}

}  // namespace cdn::eval
