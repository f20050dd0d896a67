// content.cpp: the benchmark's frames (content.h).
#include "content.h"

#include "convert.h"
#include "cudadenoise/noise.h"
#include "image_io.h"
#include "test_picture.h"

namespace cdn::bench {

namespace {

int mirror(int v, int n) {
  const int period = 2 * n;
  v %= period;
  return v < n ? v : period - 1 - v;
}

}  // namespace

HostFrame source_picture(const std::string& dir) {
  tools::Image img;
  try {
    img = tools::to_8bit(tools::read_image(dir + "/astronaut.png"));
  } catch (const std::exception&) {
    img = tools::make_test_picture(512, 512);
  }
  if (!img.is_colour()) img = tools::make_test_picture(512, 512);
  return tools::image_to_frame(img);
}

HostFrame make_frame(const FrameView& src, PixelFormat format, int w, int h) {
  HostFrame f(format, w, h);
  const auto s = components(src);
  const auto d = components(f.view());
  const int gain = d[0].bit_depth == 10 ? 4 : (d[0].bit_depth == 16 ? 257 : 1);
  for (std::size_t c = 0; c < d.size(); ++c) {
    const int sx = d[c].width < w ? 2 : 1, sy = d[c].height < h ? 2 : 1;  // chroma subsampling
    for (int y = 0; y < d[c].height; ++y)
      for (int x = 0; x < d[c].width; ++x)
        d[c].set(x, y, gain * s[c].get(mirror(x * sx, s[c].width), mirror(y * sy, s[c].height)));
  }
  add_gaussian_noise(f.view(), 25.0, 1);
  return f;
}

}  // namespace cdn::bench
