// convert.cpp: image <-> frame copies and BT.601 full-range RGB <-> YCbCr (convert.h).
#include "convert.h"

#include <algorithm>
#include <cmath>

#include "cudadenoise/error.h"

namespace cdn::tools {

namespace {
int to_byte(double v) { return static_cast<int>(std::clamp(std::floor(v + 0.5), 0.0, 255.0)); }

void check_match(const FrameView& frame, const Image& image) {
  if (frame.format != frame_format_for(image) || frame.width != image.width || frame.height != image.height)
    throw InvalidArgument("frame does not match the image");
  if (frame.memory != MemoryKind::Host) throw InvalidArgument("frame is not in host memory");
}
}  // namespace

Yuv rgb_to_yuv(Rgb c) {
  return {to_byte(0.299 * c.r + 0.587 * c.g + 0.114 * c.b),
          to_byte(128.0 - 0.168736 * c.r - 0.331264 * c.g + 0.5 * c.b),
          to_byte(128.0 + 0.5 * c.r - 0.418688 * c.g - 0.081312 * c.b)};
}

Rgb yuv_to_rgb(Yuv c) {
  const double cb = c.cb - 128.0, cr = c.cr - 128.0;
  return {to_byte(c.y + 1.402 * cr), to_byte(c.y - 0.344136 * cb - 0.714136 * cr), to_byte(c.y + 1.772 * cb)};
}

PixelFormat frame_format_for(const Image& image) {
  if (!image.is_colour()) return image.bit_depth == 16 ? PixelFormat::GRAY16_LE : PixelFormat::GRAY8;
  if (image.bit_depth != 8) throw InvalidArgument("colour images are filtered as 8-bit Y444: convert with to_8bit");
  return PixelFormat::Y444;
}

HostFrame image_to_frame(const Image& image) {
  HostFrame frame(frame_format_for(image), image.width, image.height);
  const std::vector<PlaneView> out = components(frame.view());
  if (!image.is_colour()) {
    const PlaneView in = image.channel(0);
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) out[0].set(x, y, in.get(x, y));
    return frame;
  }
  const PlaneView r = image.channel(0), g = image.channel(1), b = image.channel(2);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const Yuv c = rgb_to_yuv({r.get(x, y), g.get(x, y), b.get(x, y)});
      out[0].set(x, y, c.y);
      out[1].set(x, y, c.cb);
      out[2].set(x, y, c.cr);
    }
  return frame;
}

void frame_to_image(const FrameView& frame, Image& image) {
  check_match(frame, image);
  const std::vector<PlaneView> in = components(frame);
  if (!image.is_colour()) {
    const PlaneView out = image.channel(0);
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) out.set(x, y, in[0].get(x, y));
    return;
  }
  const PlaneView r = image.channel(0), g = image.channel(1), b = image.channel(2);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const Rgb c = yuv_to_rgb({in[0].get(x, y), in[1].get(x, y), in[2].get(x, y)});
      r.set(x, y, c.r);
      g.set(x, y, c.g);
      b.set(x, y, c.b);
    }
}

Image to_8bit(const Image& image) {
  if (image.bit_depth == 8) return image;
  Image out(image.width, image.height, image.channels, 8);
  for (int c = 0; c < image.channels; ++c) {
    const PlaneView in = image.channel(c), o = out.channel(c);
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) o.set(x, y, (in.get(x, y) * 255 + 32767) / 65535);
  }
  return out;
}

}  // namespace cdn::tools
