// raster.h: an RGB canvas for the evaluation figures: rectangles, lines, dots,
// text in the 6x13 bitmap font (font_6x13.h, UTF-8 in, any integer scale) and
// pasted images; saved as PNG through tools/common's image_io.
#pragma once

#include <cstdint>
#include <string>

#include "image.h"

namespace cdn::eval {

struct Rgb8 {
  std::uint8_t r, g, b;
};

class Canvas {
 public:
  Canvas(int width, int height, Rgb8 background);
  int width() const { return img_.width; }
  int height() const { return img_.height; }
  const tools::Image& image() const { return img_; }

  Rgb8 get(int x, int y) const;
  void set(int x, int y, Rgb8 c);  // ignores points outside
  void fill_rect(int x, int y, int w, int h, Rgb8 c);
  void rect_outline(int x, int y, int w, int h, Rgb8 c);
  void line(int x0, int y0, int x1, int y1, Rgb8 c);
  void dashed_line(int x0, int y0, int x1, int y1, Rgb8 c, int dash);
  void dot(int cx, int cy, int radius, Rgb8 c);
  // Text with its top-left corner at (x, y); returns the x after the last glyph.
  // Code points the font lacks are drawn as '?'.
  int text(int x, int y, const std::string& utf8, Rgb8 c, int scale = 1);
  // Copies an 8-bit RGB image (3 channels) with its top-left corner at (x, y),
  // each pixel repeated zoom x zoom times.
  void paste(const tools::Image& rgb, int x, int y, int zoom = 1);

  void save_png(const std::string& path) const;

 private:
  tools::Image img_;
};

// Width and height in pixels of `utf8` drawn at `scale`.
int text_width(const std::string& utf8, int scale = 1);
int text_height(int scale = 1);

}  // namespace cdn::eval
