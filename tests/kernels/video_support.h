// video_support.h: test clips for the video mode and motion estimation: a
// camera moving over a real photo (test data), in any pixel format, with AWGN
// of fixed seeds.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "convert.h"
#include "cudadenoise/frame.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "image_io.h"
#include "test_support.h"

namespace cdn::test {

// A photo of the test data as a Y444 frame (gray photos get neutral chroma).
inline HostFrame load_photo_444(const std::string& name) {
  const tools::Image img = tools::to_8bit(tools::read_image(test_data_dir() + "/" + name));
  const HostFrame f = tools::image_to_frame(img);
  HostFrame out(PixelFormat::Y444, f.view().width, f.view().height);
  const auto in = components(f.view()), o = components(out.view());
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < o[c].height; ++y)
      for (int x = 0; x < o[c].width; ++x) o[c].set(x, y, c < static_cast<int>(in.size()) ? in[c].get(x, y) : 128);
  return out;
}

// The w x h region of `photo` (Y444) at (x0, y0), in `format`: 4:2:0 chroma is
// the rounded mean of each 2x2 block, deeper formats scale the 8-bit values
// (<< 2 for 10-bit, * 257 for 16-bit).
inline HostFrame crop_as(const HostFrame& photo, PixelFormat format, int x0, int y0, int w, int h) {
  HostFrame out(format, w, h);
  const auto in = components(photo.view()), o = components(out.view());
  const int depth = format_info(format).bit_depth;
  auto scale = [&](int v) { return depth == 8 ? v : depth == 10 ? v << 2 : v * 257; };
  for (std::size_t c = 0; c < o.size(); ++c) {
    const int fx = o[c].width < w ? 2 : 1;
    const int fy = o[c].height < h ? 2 : 1;
    for (int y = 0; y < o[c].height; ++y)
      for (int x = 0; x < o[c].width; ++x) {
        int sum = 0;
        for (int j = 0; j < fy; ++j)
          for (int i = 0; i < fx; ++i)
            sum += in[c].get(clamp_coord(x0 + fx * x + i, in[c].width), clamp_coord(y0 + fy * y + j, in[c].height));
        const int n = fx * fy;
        o[c].set(x, y, scale((sum + n / 2) / n));
      }
  }
  return out;
}

struct TestClip {
  std::vector<HostFrame> clean, noisy;
  std::vector<FrameView> noisy_views() const {
    std::vector<FrameView> v;
    for (const HostFrame& f : noisy) v.push_back(f.view());
    return v;
  }
};

// `frames` frames of a w x h camera moving (vx, vy) pixels a frame over the
// photo from (x0, y0); frame i gets AWGN sigma (8-bit units) of seed + i.
inline TestClip moving_clip(const HostFrame& photo, PixelFormat format, int x0, int y0, int w, int h, int frames,
                            int vx, int vy, double sigma, std::uint64_t seed) {
  TestClip c;
  for (int i = 0; i < frames; ++i) {
    c.clean.push_back(crop_as(photo, format, x0 + vx * i, y0 + vy * i, w, h));
    c.noisy.push_back(crop_as(photo, format, x0 + vx * i, y0 + vy * i, w, h));
    if (sigma > 0) add_gaussian_noise(c.noisy.back().view(), sigma, seed + i);
  }
  return c;
}

}  // namespace cdn::test
