// pan.cpp: a clip panning across a photo (pan.h).
#include "pan.h"

#include <stdexcept>

#include "convert.h"

namespace cdn::eval {

std::vector<HostFrame> make_pan(const tools::Image& photo8, const PanSpec& s) {
  const tools::Image photo = tools::to_8bit(photo8);
  const bool colour = photo.is_colour();
  if (s.width <= 0 || s.height <= 0 || s.frames <= 0) throw std::invalid_argument("pan: size and frames must be positive");
  if (colour && (s.width % 2 || s.height % 2)) throw std::invalid_argument("pan: colour frames need an even size");
  const int last_x = s.x0 + (s.frames - 1) * s.dx, last_y = s.y0 + (s.frames - 1) * s.dy;
  for (int x : {s.x0, last_x})
    if (x < 0 || x + s.width > photo.width) throw std::invalid_argument("pan: the window leaves the photo (x)");
  for (int y : {s.y0, last_y})
    if (y < 0 || y + s.height > photo.height) throw std::invalid_argument("pan: the window leaves the photo (y)");
  const HostFrame src = tools::image_to_frame(photo);  // GRAY8 or Y444
  const std::vector<PlaneView> in = components(src.view());
  std::vector<HostFrame> out;
  for (int f = 0; f < s.frames; ++f) {
    const int ox = s.x0 + f * s.dx, oy = s.y0 + f * s.dy;
    HostFrame fr(colour ? PixelFormat::I420 : PixelFormat::GRAY8, s.width, s.height);
    const std::vector<PlaneView> o = components(fr.view());
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) o[0].set(x, y, in[0].get(ox + x, oy + y));
    if (colour)
      for (int c = 1; c < 3; ++c)
        for (int y = 0; y < s.height / 2; ++y)
          for (int x = 0; x < s.width / 2; ++x) {
            const int sx = ox + 2 * x, sy = oy + 2 * y;
            const int sum = in[c].get(sx, sy) + in[c].get(sx + 1, sy) + in[c].get(sx, sy + 1) + in[c].get(sx + 1, sy + 1);
            o[c].set(x, y, (sum + 2) / 4);
          }
    out.push_back(std::move(fr));
  }
  return out;
}

}  // namespace cdn::eval
