// montage.cpp: layout of the crops figure (montage.h).
#include "montage.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cdn::eval {

namespace {

constexpr Rgb8 kBackground{255, 255, 255}, kInk{20, 20, 20}, kGrey{90, 90, 90}, kMark{230, 30, 30};
constexpr int kPad = 10, kGap = 8;

}  // namespace

tools::Image fit_rgb(const tools::Image& rgb, int max_w, int max_h, double* scale) {
  const double s = std::min(static_cast<double>(max_w) / rgb.width, static_cast<double>(max_h) / rgb.height);
  const int w = std::max(1, static_cast<int>(rgb.width * s)), h = std::max(1, static_cast<int>(rgb.height * s));
  tools::Image out(w, h, 3, 8);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int sx = std::min(rgb.width - 1, static_cast<int>(x / s)), sy = std::min(rgb.height - 1, static_cast<int>(y / s));
      for (int c = 0; c < 3; ++c)
        out.data[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
            rgb.data[(static_cast<std::size_t>(sy) * rgb.width + sx) * 3 + c];
    }
  if (scale) *scale = s;
  return out;
}

Canvas render_montage(const MontageSpec& spec) {
  if (spec.tiles.empty()) throw std::invalid_argument("a montage needs tiles");
  const int tw = spec.tiles[0].rgb.width * spec.zoom, th = spec.tiles[0].rgb.height * spec.zoom;
  for (const MontageTile& t : spec.tiles)
    if (t.rgb.width * spec.zoom != tw || t.rgb.height * spec.zoom != th)
      throw std::invalid_argument("montage tiles must have one size");
  std::size_t label_lines = 0;
  for (const MontageTile& t : spec.tiles) label_lines = std::max(label_lines, t.labels.size());
  const bool overview = spec.overview.width > 0;
  const int cells = static_cast<int>(spec.tiles.size()) + (overview ? 1 : 0);
  const int cols = std::max(1, std::min(spec.columns, cells));
  const int rows = (cells + cols - 1) / cols;
  const int cell_w = tw, cell_h = th + 4 + static_cast<int>(label_lines) * (text_height() + 2);
  const int title_h = text_height(2) + kGap;
  const int footer_h = static_cast<int>(spec.footer.size()) * (text_height() + 2);
  int width = 2 * kPad + cols * cell_w + (cols - 1) * kGap;
  width = std::max(width, 2 * kPad + text_width(spec.title, 2));
  for (const std::string& f : spec.footer) width = std::max(width, 2 * kPad + text_width(f));
  const int height = 2 * kPad + title_h + rows * cell_h + (rows - 1) * kGap + kGap + footer_h;
  Canvas cv(width, height, kBackground);
  cv.text(kPad, kPad, spec.title, kInk, 2);
  int cell = 0;
  auto origin = [&](int i, int* x, int* y) {
    *x = kPad + (i % cols) * (cell_w + kGap);
    *y = kPad + title_h + (i / cols) * (cell_h + kGap);
  };
  if (overview) {
    int x, y;
    origin(cell++, &x, &y);
    double s = 1;
    const tools::Image small = fit_rgb(spec.overview, tw, th, &s);
    cv.paste(small, x, y);
    cv.rect_outline(x + static_cast<int>(spec.region_x * s), y + static_cast<int>(spec.region_y * s),
                    std::max(3, static_cast<int>(std::lround(spec.region_w * s))),
                    std::max(3, static_cast<int>(std::lround(spec.region_h * s))), kMark);
    cv.text(x, y + th + 4, "whole frame, region", kGrey);
  }
  for (const MontageTile& t : spec.tiles) {
    int x, y;
    origin(cell++, &x, &y);
    cv.paste(t.rgb, x, y, spec.zoom);
    int ly = y + th + 4;
    for (std::size_t i = 0; i < t.labels.size(); ++i, ly += text_height() + 2)
      cv.text(x, ly, t.labels[i], i == 0 ? kInk : kGrey);
  }
  int fy = height - kPad - footer_h;
  for (const std::string& f : spec.footer) {
    cv.text(kPad, fy, f, kGrey);
    fy += text_height() + 2;
  }
  return cv;
}

}  // namespace cdn::eval
