// raster.cpp: the RGB canvas of the evaluation figures (raster.h).
#include "raster.h"

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "font_6x13.h"
#include "image_io.h"

namespace cdn::eval {

namespace {

// UTF-8 to code points; malformed bytes become '?'.
std::vector<std::uint32_t> decode_utf8(const std::string& s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0) {  // a continuation or invalid lead byte
      out.push_back('?');
      ++i;
      continue;
    }
    std::uint32_t cp = n == 0 ? c : (c & (0x3F >> n));
    bool ok = true;
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    }
    out.push_back(ok ? cp : '?');
    i += ok ? n + 1 : 1;
  }
  return out;
}

const Glyph& glyph(std::uint32_t code) {
  for (const Glyph& g : kFontGlyphs)
    if (g.code == code) return g;
  return glyph('?');
}

}  // namespace

Canvas::Canvas(int width, int height, Rgb8 background) : img_(width, height, 3, 8) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("canvas size must be positive");
  fill_rect(0, 0, width, height, background);
}

Rgb8 Canvas::get(int x, int y) const {
  const std::uint8_t* p = &img_.data[(static_cast<std::size_t>(y) * img_.width + x) * 3];
  return {p[0], p[1], p[2]};
}

void Canvas::set(int x, int y, Rgb8 c) {
  if (x < 0 || y < 0 || x >= img_.width || y >= img_.height) return;
  std::uint8_t* p = &img_.data[(static_cast<std::size_t>(y) * img_.width + x) * 3];
  p[0] = c.r, p[1] = c.g, p[2] = c.b;
}

void Canvas::fill_rect(int x, int y, int w, int h, Rgb8 c) {
  for (int j = y; j < y + h; ++j)
    for (int i = x; i < x + w; ++i) set(i, j, c);
}

void Canvas::rect_outline(int x, int y, int w, int h, Rgb8 c) {
  fill_rect(x, y, w, 1, c);
  fill_rect(x, y + h - 1, w, 1, c);
  fill_rect(x, y, 1, h, c);
  fill_rect(x + w - 1, y, 1, h, c);
}

void Canvas::line(int x0, int y0, int x1, int y1, Rgb8 c) { dashed_line(x0, y0, x1, y1, c, 0); }

void Canvas::dashed_line(int x0, int y0, int x1, int y1, Rgb8 c, int dash) {
  // Bresenham; with dash > 0, `dash` pixels on, `dash` off.
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
  const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  int err = dx + dy, n = 0;
  for (;;) {
    if (dash <= 0 || (n / dash) % 2 == 0) set(x0, y0, c);
    ++n;
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

void Canvas::dot(int cx, int cy, int radius, Rgb8 c) {
  for (int y = -radius; y <= radius; ++y)
    for (int x = -radius; x <= radius; ++x)
      if (x * x + y * y <= radius * radius + radius) set(cx + x, cy + y, c);
}

int Canvas::text(int x, int y, const std::string& utf8, Rgb8 c, int scale) {
  for (std::uint32_t cp : decode_utf8(utf8)) {
    const Glyph& g = glyph(cp);
    for (int r = 0; r < kFontHeight; ++r)
      for (int col = 0; col < kFontWidth; ++col)
        if (g.rows[r] & (1 << (kFontWidth - 1 - col))) fill_rect(x + col * scale, y + r * scale, scale, scale, c);
    x += kFontWidth * scale;
  }
  return x;
}

void Canvas::paste(const tools::Image& rgb, int x, int y, int zoom) {
  if (rgb.channels != 3 || rgb.bit_depth != 8) throw std::invalid_argument("paste needs an 8-bit RGB image");
  for (int j = 0; j < rgb.height * zoom; ++j)
    for (int i = 0; i < rgb.width * zoom; ++i) {
      const std::uint8_t* p = &rgb.data[(static_cast<std::size_t>(j / zoom) * rgb.width + i / zoom) * 3];
      set(x + i, y + j, {p[0], p[1], p[2]});
    }
}

void Canvas::save_png(const std::string& path) const { tools::write_png(path, img_); }

int text_width(const std::string& utf8, int scale) {
  return static_cast<int>(decode_utf8(utf8).size()) * kFontWidth * scale;
}

int text_height(int scale) { return kFontHeight * scale; }

}  // namespace cdn::eval
