// test_picture.cpp: the built-in synthetic landscape (test_picture.h).
// Coordinates are in units of a 512x512 picture, whatever the output size.
#include "test_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace cdn::tools {

namespace {

struct Colour {
  double r, g, b;
};
Colour mix(Colour a, Colour b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}
Colour scale(Colour c, double k) { return {c.r * k, c.g * k, c.b * k}; }
double clamp01(double t) { return std::clamp(t, 0.0, 1.0); }

std::uint32_t hash(std::uint32_t a, std::uint32_t b) {
  std::uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return h;
}

bool in_rect(double x, double y, double x0, double y0, double x1, double y1) {
  return x >= x0 && x < x1 && y >= y0 && y < y1;
}

double hill(double x, double base, double a1, double f1, double p1, double a2, double f2) {
  return base + a1 * std::sin(x * f1 + p1) + a2 * std::sin(x * f2);
}

// Dark strokes on a sheet: lines of "words" made of vertical strokes, some taller.
bool ink(double x, double y) {
  const double left = 300, top = 330, line_h = 14, stroke_h = 7;
  if (x < left + 12 || x >= left + 186 || y < top + 12 || y >= top + 152) return false;
  const int line = static_cast<int>((y - top - 12) / line_h);
  const double in_line = y - top - 12 - line * line_h;
  const double col = (x - left - 12) / 4.0;  // one glyph cell per 4 px
  const int cell = static_cast<int>(col);
  // Words of 3..8 cells separated by one blank cell, from a per-line hash.
  int start = 0, word = 0;
  while (true) {
    const int len = 3 + static_cast<int>(hash(line, word) % 6);
    if (cell < start + len) break;
    if (cell == start + len) return false;  // the space
    start += len + 1;
    ++word;
  }
  if (col - cell > 0.45) return false;  // stroke 1.8 px of each 4 px cell
  const std::uint32_t g = hash(line * 131 + cell, 7);
  const double top_of_stroke = (g % 5 == 0) ? line_h - stroke_h - 3 : line_h - stroke_h;  // ascenders
  const double bottom = (g % 7 == 0) ? line_h + 1 : line_h;                               // descenders
  return in_line >= top_of_stroke - 2 && in_line < bottom - 2;
}

// A shaded ball: Lambert shading from the upper left; false outside the disk.
bool ball(double x, double y, double cx, double cy, double r, Colour base, Colour* out) {
  const double dx = (x - cx) / r, dy = (y - cy) / r, d2 = dx * dx + dy * dy;
  if (d2 >= 1) return false;
  const double nz = std::sqrt(1 - d2);
  const double light = clamp01(-0.45 * dx - 0.55 * dy + 0.70 * nz);
  const double spec = std::pow(clamp01(light), 24);
  *out = mix(scale(base, 0.25 + 0.75 * light), {255, 255, 255}, 0.6 * spec);
  return true;
}

Colour shade(double x, double y) {
  const double u = x / 512;
  // Sky, sun glow and sun.
  Colour c = mix({46, 84, 168}, {206, 222, 236}, clamp01(y / 270));
  const double sd = std::hypot(x - 400, y - 92);
  c = mix(c, {255, 240, 200}, 0.55 * std::exp(-sd * sd / (2 * 45.0 * 45.0)));
  if (sd < 34) c = {255, 238, 186};
  // Distant hills, then near hills with grass texture.
  const double h1 = hill(u, 255, 20, 7, 1, 9, 17);
  if (y >= h1) c = mix({118, 142, 150}, {92, 120, 104}, clamp01((y - h1) / 60));
  const double h2 = hill(u, 318, 24, 4, 2, 7, 23);
  if (y >= h2) {
    const double grass = 0.07 * std::sin(x * 0.8 + 3 * std::sin(y * 0.13)) * std::sin(y * 0.45 + x * 0.05);
    c = scale(mix({96, 150, 60}, {44, 88, 34}, clamp01((y - h2) / 130)), 1 + grass);
  }
  // Water at the bottom: sky colours broken by horizontal ripples.
  if (y >= 440) {
    const double ripple = 0.5 + 0.5 * std::sin(y * 0.7 + 2.5 * std::sin(x * 0.03 + y * 0.05));
    c = mix({38, 70, 120}, {150, 180, 210}, 0.2 + 0.35 * ripple * (y - 440) / 72);
  }
  // House: wall, roof (slanted edges), door and windows.
  if (in_rect(x, y, 40, 250, 170, 345)) {
    c = mix({214, 196, 160}, {170, 150, 120}, (x - 40) / 130);
    if (in_rect(x, y, 58, 270, 88, 300) || in_rect(x, y, 122, 270, 152, 300)) {
      c = {70, 96, 128};
      if (std::fabs(x - 73) < 1.2 || std::fabs(x - 137) < 1.2 || std::fabs(y - 285) < 1.2) c = {235, 235, 228};
    }
    if (in_rect(x, y, 94, 300, 116, 345)) c = {96, 58, 36};
  }
  if (y >= 190 && y < 250 && std::fabs(x - 105) < (y - 190) * 80.0 / 60 + 2) {
    const bool tile = static_cast<int>(std::floor(y / 6)) % 2 == 0;
    c = tile ? Colour{150, 52, 40} : Colour{128, 42, 34};
  }
  // Balls.
  Colour b;
  if (ball(x, y, 110, 400, 44, {200, 40, 36}, &b)) c = b;
  if (ball(x, y, 200, 418, 30, {230, 190, 40}, &b)) c = b;
  if (ball(x, y, 250, 376, 20, {60, 110, 210}, &b)) c = b;
  // Sheet of text with a dark border.
  if (in_rect(x, y, 300, 330, 500, 500)) {
    c = mix({240, 236, 222}, {214, 208, 192}, (y - 330) / 170);
    if (!in_rect(x, y, 303, 333, 497, 497)) c = {40, 40, 48};
    if (ink(x, y)) c = {28, 30, 44};
  }
  return c;
}

}  // namespace

Image make_test_picture(int width, int height) {
  Image img(width, height, 3, 8);
  const double sx = 512.0 / width, sy = 512.0 / height;
  constexpr int kSub = 3;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      Colour sum{0, 0, 0};
      for (int j = 0; j < kSub; ++j)
        for (int i = 0; i < kSub; ++i) {
          const Colour c = shade((x + (i + 0.5) / kSub) * sx, (y + (j + 0.5) / kSub) * sy);
          sum = {sum.r + c.r, sum.g + c.g, sum.b + c.b};
        }
      std::uint8_t* p = &img.data[(static_cast<std::size_t>(y) * width + x) * 3];
      const double n = kSub * kSub;
      p[0] = static_cast<std::uint8_t>(std::clamp(std::floor(sum.r / n + 0.5), 0.0, 255.0));
      p[1] = static_cast<std::uint8_t>(std::clamp(std::floor(sum.g / n + 0.5), 0.0, 255.0));
      p[2] = static_cast<std::uint8_t>(std::clamp(std::floor(sum.b / n + 0.5), 0.0, 255.0));
    }
  return img;
}

}  // namespace cdn::tools
