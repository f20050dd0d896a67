// noise.cpp: xoshiro256** + Box-Muller AWGN and signal-dependent Gaussian noise
// (var = a x + b) on host planes (noise.h).
#include "cudadenoise/noise.h"

#include <algorithm>
#include <cmath>

#include "cudadenoise/error.h"

namespace cdn {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
constexpr double kTwoPi = 6.283185307179586476925286766559;
}  // namespace

NoiseRng::NoiseRng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t NoiseRng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double NoiseRng::uniform() { return (double(next_u64() >> 11) + 0.5) * 0x1.0p-53; }

double NoiseRng::gaussian() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double r = std::sqrt(-2.0 * std::log(uniform()));
  const double theta = kTwoPi * uniform();
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

void add_gaussian_noise(const PlaneView& plane, double sigma, NoiseRng& rng) {
  if (plane.memory != MemoryKind::Host) throw InvalidArgument("add_gaussian_noise needs a host plane");
  if (!(sigma >= 0)) throw InvalidArgument("noise sigma must be >= 0");
  const double s = sigma * std::ldexp(1.0, plane.bit_depth - 8);
  const double top = plane.max_value();
  for (int y = 0; y < plane.height; ++y)
    for (int x = 0; x < plane.width; ++x) {
      const double v = std::floor(plane.get(x, y) + s * rng.gaussian() + 0.5);
      plane.set(x, y, static_cast<int>(std::clamp(v, 0.0, top)));
    }
}

void add_gaussian_noise(const PlaneView& plane, double sigma, std::uint64_t seed) {
  NoiseRng rng(seed);
  add_gaussian_noise(plane, sigma, rng);
}

void add_gaussian_noise(const std::vector<PlaneView>& planes, double sigma, std::uint64_t seed) {
  NoiseRng rng(seed);
  for (const PlaneView& p : planes) add_gaussian_noise(p, sigma, rng);
}

void add_gaussian_noise(const FrameView& frame, double sigma, std::uint64_t seed) {
  validate_frame(frame);
  add_gaussian_noise(components(frame), sigma, seed);
}

void add_signal_dependent_noise(const PlaneView& plane, double a, double b, NoiseRng& rng) {
  if (plane.memory != MemoryKind::Host) throw InvalidArgument("add_signal_dependent_noise needs a host plane");
  if (!(a >= 0) || !std::isfinite(a) || !std::isfinite(b))
    throw InvalidArgument("signal-dependent noise: a must be >= 0 and a, b finite");
  const double scale = std::ldexp(1.0, plane.bit_depth - 8);
  const double top = plane.max_value();
  for (int y = 0; y < plane.height; ++y)
    for (int x = 0; x < plane.width; ++x) {
      const double clean = plane.get(x, y);
      const double s = scale * std::sqrt(std::max(a * (clean / scale) + b, 0.0));
      const double v = std::floor(clean + s * rng.gaussian() + 0.5);
      plane.set(x, y, static_cast<int>(std::clamp(v, 0.0, top)));
    }
}

void add_signal_dependent_noise(const FrameView& frame, double a, double b, std::uint64_t seed) {
  validate_frame(frame);
  NoiseRng rng(seed);
  for (const PlaneView& p : components(frame)) add_signal_dependent_noise(p, a, b, rng);
}

}  // namespace cdn
