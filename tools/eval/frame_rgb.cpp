// frame_rgb.cpp: frame regions as RGB for display (frame_rgb.h).
#include "frame_rgb.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "convert.h"

namespace cdn::eval {

namespace {

int clamp255(double v) { return static_cast<int>(std::lround(std::min(255.0, std::max(0.0, v)))); }

// Only frames marked full range are shown as they are: unmarked video is limited range.
int expand_luma(int v, Range r) { return r != Range::Full ? clamp255((v - 16) * 255.0 / 219.0) : v; }
int expand_chroma(int v, Range r) { return r != Range::Full ? clamp255(128 + (v - 128) * 255.0 / 224.0) : v; }

}  // namespace

tools::Image frame_region_rgb(const FrameView& frame, Range range, const Region& r) {
  if (r.width <= 0 || r.height <= 0 || r.x < 0 || r.y < 0 || r.x + r.width > frame.width ||
      r.y + r.height > frame.height)
    throw std::invalid_argument("region outside the frame");
  const std::vector<PlaneView> c = components(frame);
  const FormatInfo fi = format_info(frame.format);
  if (fi.bit_depth != 8) throw std::invalid_argument("display needs an 8-bit frame");
  tools::Image out(r.width, r.height, 3, 8);
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x) {
      const int fx = r.x + x, fy = r.y + y;
      const int luma = expand_luma(c[0].get(fx, fy), range);
      tools::Rgb rgb{luma, luma, luma};
      if (c.size() == 3) {
        const int cx = fx >> fi.chroma_shift_x, cy = fy >> fi.chroma_shift_y;
        rgb = tools::yuv_to_rgb({luma, expand_chroma(c[1].get(cx, cy), range), expand_chroma(c[2].get(cx, cy), range)});
      }
      std::uint8_t* p = &out.data[(static_cast<std::size_t>(y) * r.width + x) * 3];
      p[0] = static_cast<std::uint8_t>(rgb.r), p[1] = static_cast<std::uint8_t>(rgb.g),
      p[2] = static_cast<std::uint8_t>(rgb.b);
    }
  return out;
}

}  // namespace cdn::eval
