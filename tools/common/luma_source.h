// luma_source.h: an image's luma in floating point (before any rounding), and
// that luma rendered into an 8- to 16-bit plane with additive white Gaussian
// noise of a known sigma: the sources of the noise estimator's tests and of
// cudadenoise-noise-bench (docs/NOISE.md), so both measure the same thing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cudadenoise/plane.h"
#include "image.h"

namespace cdn::tools {

struct LumaSource {
  int width = 0, height = 0;
  std::vector<double> v;  // 8-bit units, row-major
  double at(int x, int y) const { return v[static_cast<std::size_t>(y) * width + x]; }
};

// The luma of an image in 8-bit units: gray as it is, colour by convert.h's
// BT.601 weights, unrounded; 16-bit images scaled by 255 / 65535.
LumaSource image_luma(const Image& image);

// out = clamp(round((s + sigma * z) * 2^(depth - 8)), 0, max), z ~ N(0, 1) from
// `seed` (cdn::NoiseRng), over out's size (at most the source's); sigma 0: no noise.
void render_noisy(const LumaSource& s, double sigma, std::uint64_t seed, const PlaneView& out);

}  // namespace cdn::tools
