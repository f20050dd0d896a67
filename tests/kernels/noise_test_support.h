// noise_test_support.h: sources for the noise estimator's tests: the luma of a
// real photo in floating point (before any rounding), rendered into 8-, 10- or
// 16-bit planes with additive white Gaussian noise of a known sigma, or with
// signal-dependent noise of variance a x + b (issue 37's protocol).
//
// "True sigma" is the std of the noise added here, in 8-bit code values. The
// photos carry some noise of their own (docs/NOISE.md: the estimator reads
// 0.1 to 1.3 on them); noise adds in quadrature, so a source noise s0 moves
// the reading at sigma by sqrt(1 + (s0 / sigma)^2) - 1 (the tests say where
// this matters). Rounding to 8 bits adds 1/12 to the variance (+1 % at sigma 2).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "convert.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/noise_model.h"
#include "cudadenoise/plane.h"
#include "image_io.h"
#include "luma_source.h"
#include "test_support.h"

namespace cdn::test {

using tools::LumaSource;

// The luma (BT.601 weights for colour) of .testdata/<file>; throws if absent.
inline LumaSource photo_luma(const std::string& file) {
  return tools::image_luma(tools::read_image(test_data_dir() + "/" + file));
}

// The w x h window of `s` at (x0, y0) (clamped to the source).
inline LumaSource crop(const LumaSource& s, int x0, int y0, int w, int h) {
  LumaSource c;
  c.width = w;
  c.height = h;
  c.v.resize(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      c.v[static_cast<std::size_t>(y) * w + x] = s.at(std::clamp(x0 + x, 0, s.width - 1), std::clamp(y0 + y, 0, s.height - 1));
  return c;
}

// out = clamp(round((s + sigma * z) * 2^(depth - 8)), 0, max), z ~ N(0, 1) from `seed`.
inline void render(const LumaSource& s, double sigma, std::uint64_t seed, const PlaneView& out) {
  tools::render_noisy(s, sigma, seed, out);
}

// Frame t of a clip panning over `src` (2 pixels right and 1 down a frame;
// chroma from the source at its own size, offset by component), w x h, each
// component c with AWGN sigma[c] (the last value for the rest), seeded by t and c.
inline HostFrame pan_frame(const LumaSource& src, PixelFormat format, int t, const std::vector<double>& sigma, int w,
                           int h) {
  HostFrame f(format, w, h);
  const auto comps = components(f.view());
  for (std::size_t c = 0; c < comps.size(); ++c) {
    const PlaneView& p = comps[c];
    const int k = static_cast<int>(c);
    render(crop(src, 2 * t + 13 * k, t + 7 * k, p.width, p.height), sigma[std::min(c, sigma.size() - 1)],
           1000 * static_cast<std::uint64_t>(t) + 17 * c + 1, p);
  }
  return f;
}

// Issue 37's protocol: out = clamp(round((x + sqrt(max(a x + b, 0)) z) *
// 2^(depth - 8)), 0, max), x the clean value of `s` and a, b in 8-bit code
// values, z ~ N(0, 1) from std::mt19937_64 seeded with `seed`, row by row.
inline void render_signal_dependent(const LumaSource& s, double a, double b, std::uint64_t seed, const PlaneView& out) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  const double scale = std::ldexp(1.0, out.bit_depth - 8);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const double v = s.at(x, y);
      const double n = (v + std::sqrt(std::max(a * v + b, 0.0)) * z(rng)) * scale;
      out.set(x, y, static_cast<int>(std::clamp(std::lround(n), 0L, static_cast<long>(out.max_value()))));
    }
}

// Rounding to integers adds 1/12 to every variance.
constexpr double kRoundingVariance = 1.0 / 12.0;

// The free curve's RMS relative error over the usable levels of `m`, against
// sqrt(a x + b) with the rounding's variance; `levels`, if given, gets how
// many levels were usable. 1 when none is.
inline double curve_rms_error(const NoiseModel& m, double a, double b, int* levels = nullptr) {
  double e2 = 0;
  int n = 0;
  for (const NoiseModelLevel& l : m.levels) {
    if (!l.usable()) continue;
    e2 += std::pow(m.sigma_curve(l.mean) / std::sqrt(a * l.mean + b + kRoundingVariance) - 1.0, 2);
    n++;
  }
  if (levels) *levels = n;
  return n ? std::sqrt(e2 / n) : 1.0;
}

}  // namespace cdn::test
