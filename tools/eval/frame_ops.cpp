// frame_ops.cpp: frame copy, crop and luma (frame_ops.h).
#include "frame_ops.h"

#include <vector>

#include "cudadenoise/error.h"

namespace cdn::eval {

HostFrame clone_frame(const FrameView& f) {
  HostFrame out(f.format, f.width, f.height);
  copy_host_frame(f, out.view());
  return out;
}

HostFrame crop_frame(const FrameView& f, const Region& r) {
  const FormatInfo fi = format_info(f.format);
  if (r.width <= 0 || r.height <= 0 || r.x < 0 || r.y < 0 || r.x + r.width > f.width || r.y + r.height > f.height)
    throw InvalidArgument("crop " + std::to_string(r.width) + "x" + std::to_string(r.height) + "+" +
                          std::to_string(r.x) + "+" + std::to_string(r.y) + " does not fit a " +
                          std::to_string(f.width) + "x" + std::to_string(f.height) + " frame");
  const int mx = (1 << fi.chroma_shift_x) - 1, my = (1 << fi.chroma_shift_y) - 1;
  if (fi.components == 3 && ((r.x | r.width) & mx || (r.y | r.height) & my))
    throw InvalidArgument("a crop of a subsampled frame must be aligned to its chroma");
  HostFrame out(f.format, r.width, r.height);
  const std::vector<PlaneView> a = components(f), b = components(out.view());
  for (std::size_t c = 0; c < a.size(); ++c) {
    const int sx = c ? fi.chroma_shift_x : 0, sy = c ? fi.chroma_shift_y : 0;
    for (int y = 0; y < b[c].height; ++y)
      for (int x = 0; x < b[c].width; ++x) b[c].set(x, y, a[c].get((r.x >> sx) + x, (r.y >> sy) + y));
  }
  return out;
}

HostFrame luma_frame(const FrameView& f) {
  if (format_info(f.format).bit_depth != 8) throw InvalidArgument("luma_frame needs an 8-bit frame");
  HostFrame out(PixelFormat::GRAY8, f.width, f.height);
  const PlaneView a = components(f)[0], b = components(out.view())[0];
  for (int y = 0; y < f.height; ++y)
    for (int x = 0; x < f.width; ++x) b.set(x, y, a.get(x, y));
  return out;
}


HostFrame gray_to_i420(const FrameView& f) {
  if (f.format != PixelFormat::GRAY8) throw InvalidArgument("gray_to_i420 needs a GRAY8 frame");
  if (f.width % 2 || f.height % 2) throw InvalidArgument("gray_to_i420 needs an even frame size");
  HostFrame out(PixelFormat::I420, f.width, f.height);
  const PlaneView a = components(f)[0];
  const std::vector<PlaneView> b = components(out.view());
  for (int y = 0; y < f.height; ++y)
    for (int x = 0; x < f.width; ++x) b[0].set(x, y, a.get(x, y));
  for (int c = 1; c < 3; ++c)
    for (int y = 0; y < b[c].height; ++y)
      for (int x = 0; x < b[c].width; ++x) b[c].set(x, y, 128);
  return out;
}

}  // namespace cdn::eval
