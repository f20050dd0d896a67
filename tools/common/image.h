// image.h: an owning, interleaved host image (gray, gray+alpha, RGB, RGBA; 8 or
// 16 bits per sample) as read from and written to files, and PlaneView views of
// its channels for the metrics and the noise generator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cudadenoise/plane.h"

namespace cdn::tools {

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;   // 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  int bit_depth = 8;  // 8 or 16
  std::vector<std::uint8_t> data;  // rows of interleaved samples; 16-bit in host byte order

  Image() = default;
  Image(int w, int h, int ch, int depth)
      : width(w), height(h), channels(ch), bit_depth(depth),
        data(static_cast<std::size_t>(w) * h * ch * (depth / 8), 0) {}

  int bytes_per_sample() const { return bit_depth / 8; }
  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels * bytes_per_sample(); }
  bool is_colour() const { return channels >= 3; }
  bool has_alpha() const { return channels == 2 || channels == 4; }
  int colour_channels() const { return is_colour() ? 3 : 1; }

  // Channel c as a component (pixel_stride = channels). Views do not own and,
  // like all PlaneViews, are writable: the const only protects the Image object.
  PlaneView channel(int c) const {
    PlaneView v;
    v.data = const_cast<std::uint8_t*>(data.data());
    v.pitch = row_bytes();
    v.width = width;
    v.height = height;
    v.bytes_per_sample = bytes_per_sample();
    v.pixel_stride = channels;
    v.component_offset = c;
    v.bit_depth = bit_depth;
    return v;
  }
  // Gray or R, G, B, without alpha: what metrics and noise apply to.
  std::vector<PlaneView> colour_views() const {
    std::vector<PlaneView> v;
    for (int c = 0; c < colour_channels(); ++c) v.push_back(channel(c));
    return v;
  }
};

}  // namespace cdn::tools
