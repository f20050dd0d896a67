// counter_noise_sample.h: the noise of one sample of the counter-based AWGN
// (counter_noise.h), one function for the CPU (counter_noise.cpp) and the CUDA
// kernel (counter_noise.cu) alike.
//
// Samples of a component are numbered row by row, i = y * width + x, in the
// component's own coordinates (not bytes: pitch, interleaving and the plane a
// component lives in do not change its noise). Samples 4b .. 4b + 3 take the
// four 32-bit words of one Philox4x32-10 block (philox.h):
//   counter = (b mod 2^32, b / 2^32, component, 0), key = (seed mod 2^32, seed / 2^32).
// Words (0, 1) and (2, 3) are two Box-Muller pairs (Box & Muller 1958): with
// u = (word + 1/2) / 2^32, in (0, 1) and exact in a double,
//   r = sqrt(-2 ln u_even), theta = 2 pi u_odd, z_even = r cos theta, z_odd = r sin theta.
// The smallest u is 2^-33, so |z| <= sqrt(66 ln 2) = 6.76: the Gaussian is cut
// at 6.76 sigma (a share of 1.3e-11 of its mass).
//
// A sample v of a plane of depth d becomes clamp(floor(fma(s, z, v + 1/2)), 0, 2^d - 1),
// s = sigma * 2^(d - 8) (exact): round half up of v + s z, with one rounding of
// the double sum (an explicit fma, so neither compiler may contract differently).
// Everything but log, sin and cos is integer or correctly rounded IEEE
// arithmetic, the same bits on both sides; see counter_noise.h for what the
// transcendental functions leave.
#pragma once

#include <cmath>
#include <cstdint>

#include "noise/philox.h"
#include "cudadenoise/plane.h"

namespace cdn {

constexpr double kCounterNoiseTwoPi = 6.283185307179586476925286766559;

// (x + 1/2) / 2^32: exact, never 0 or 1.
CDN_HD double counter_uniform(std::uint32_t x) { return (static_cast<double>(x) + 0.5) * 0x1.0p-32; }

struct Gaussian4 {
  double z[4];
};

// The N(0, 1) deviates of samples 4 * block .. 4 * block + 3 of `component`.
CDN_HD Gaussian4 counter_gaussians(std::uint64_t seed, int component, std::uint64_t block) {
  const Philox4x32 counter{{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                            static_cast<std::uint32_t>(component), 0u}};
  const Philox4x32 w =
      philox4x32<10>(counter, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  Gaussian4 g;
  for (int p = 0; p < 2; ++p) {
    const double r = ::sqrt(-2.0 * ::log(counter_uniform(w.v[2 * p])));
    const double theta = kCounterNoiseTwoPi * counter_uniform(w.v[2 * p + 1]);
    g.z[2 * p] = r * ::cos(theta);
    g.z[2 * p + 1] = r * ::sin(theta);
  }
  return g;
}

// Sample value `value` with noise scaled_sigma * z, rounded half up and clamped to [0, max_value].
CDN_HD int counter_noisy_value(int value, double scaled_sigma, double z, int max_value) {
  const double v = ::floor(::fma(scaled_sigma, z, static_cast<double>(value) + 0.5));
  return v < 0.0 ? 0 : (v > static_cast<double>(max_value) ? max_value : static_cast<int>(v));
}

}  // namespace cdn
