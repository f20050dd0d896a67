// luma_source.cpp: an image's floating-point luma and its noisy rendering (luma_source.h).
#include "luma_source.h"

#include <algorithm>
#include <cmath>

#include "cudadenoise/noise.h"

namespace cdn::tools {

LumaSource image_luma(const Image& image) {
  LumaSource s;
  s.width = image.width;
  s.height = image.height;
  s.v.resize(static_cast<std::size_t>(s.width) * s.height);
  const auto ch = image.colour_views();
  const double unit = image.bit_depth == 16 ? 255.0 / 65535.0 : 1.0;
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      s.v[static_cast<std::size_t>(y) * s.width + x] =
          ch.size() == 1 ? unit * ch[0].get(x, y)
                         : unit * (0.299 * ch[0].get(x, y) + 0.587 * ch[1].get(x, y) + 0.114 * ch[2].get(x, y));
  return s;
}

void render_noisy(const LumaSource& s, double sigma, std::uint64_t seed, const PlaneView& out) {
  NoiseRng rng(seed);
  const double scale = std::ldexp(1.0, out.bit_depth - 8);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const double v = (s.at(x, y) + (sigma > 0 ? sigma * rng.gaussian() : 0.0)) * scale;
      out.set(x, y, std::clamp(static_cast<int>(std::lround(v)), 0, out.max_value()));
    }
}

}  // namespace cdn::tools
