// test_figures.cpp: the canvas, the bitmap font, the plot's axes and layout and
// the montage's layout (tools/eval raster.h, plot.h, montage.h).
#include <gtest/gtest.h>

#include <cmath>

#include "font_6x13.h"
#include "montage.h"
#include "plot.h"
#include "raster.h"

namespace {

using namespace cdn::eval;

int count(const Canvas& c, Rgb8 col, int x0 = 0, int y0 = 0, int x1 = -1, int y1 = -1) {
  if (x1 < 0) x1 = c.width();
  if (y1 < 0) y1 = c.height();
  int n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const Rgb8 p = c.get(x, y);
      n += p.r == col.r && p.g == col.g && p.b == col.b;
    }
  return n;
}

TEST(Font, CoversAsciiAndTheSymbolsTheReportUses) {
  int ascii = 0;
  bool sigma = false;
  for (const Glyph& g : kFontGlyphs) {
    ascii += g.code >= 32 && g.code < 127;
    sigma |= g.code == 0x3c3;
  }
  EXPECT_EQ(ascii, 95);
  EXPECT_TRUE(sigma);
}

TEST(Canvas, TextDrawsInkOnlyWhereItSaysAndMeasuresItself) {
  Canvas c(100, 40, {255, 255, 255});
  const int end = c.text(5, 5, "Ab σ", {0, 0, 0});
  EXPECT_EQ(end, 5 + 4 * kFontWidth);
  EXPECT_EQ(text_width("Ab σ"), 4 * kFontWidth);  // UTF-8: sigma is one glyph
  const int ink = count(c, {0, 0, 0});
  EXPECT_GT(ink, 20);
  EXPECT_EQ(count(c, {0, 0, 0}, 0, 5 + kFontHeight, 100, 40), 0);  // nothing below the line
  Canvas d(100, 40, {255, 255, 255});
  d.text(5, 5, "Ab σ", {0, 0, 0}, 2);
  EXPECT_EQ(count(d, {0, 0, 0}), 4 * ink);  // scale 2: every pixel a 2x2 block
}

TEST(Canvas, PasteZoomsByRepeatingPixels) {
  cdn::tools::Image img(2, 1, 3, 8);
  img.data = {10, 20, 30, 40, 50, 60};
  Canvas c(10, 10, {0, 0, 0});
  c.paste(img, 1, 1, 3);
  EXPECT_EQ(count(c, {10, 20, 30}), 9);
  EXPECT_EQ(count(c, {40, 50, 60}), 9);
  EXPECT_EQ(c.get(4, 3).r, 40);
}

TEST(Plot, AxesCoverTheData) {
  EXPECT_EQ(log_ticks(0.3, 250), (std::vector<double>{0.1, 1, 10, 100, 1000}));
  const std::vector<double> t = linear_ticks(19.6, 31.2, 8);
  EXPECT_LE(t.front(), 19.6);
  EXPECT_GE(t.back(), 31.2);
  EXPECT_LE(t.size(), 10u);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 2.0);
  EXPECT_THROW(log_ticks(0, 1), std::invalid_argument);
}

TEST(Plot, PointsLandWhereTheirValuesSay) {
  PlotSpec s;
  s.title = "t";
  s.points = {{"fast", "A", 1.0, 20.0}, {"slow", "B", 100.0, 30.0}};
  s.hlines = {{18.0, "noisy"}};
  const Canvas c = render_plot(s);
  EXPECT_EQ(c.width(), 960);
  // The series colours (first two of the palette) appear: dots, labels and the legend.
  EXPECT_GT(count(c, {0, 114, 178}), 40);
  EXPECT_GT(count(c, {213, 94, 0}), 40);
  // The slow, better point is right of and above the fast one.
  int ax = 0, ay = 0, bx = 0, by = 0, na = 0, nb = 0;
  for (int y = 0; y < c.height() - 60; ++y)
    for (int x = 0; x < c.width(); ++x) {
      const Rgb8 p = c.get(x, y);
      if (p.r == 0 && p.g == 114 && p.b == 178) ax += x, ay += y, ++na;
      if (p.r == 213 && p.g == 94 && p.b == 0) bx += x, by += y, ++nb;
    }
  ASSERT_GT(na, 0);
  ASSERT_GT(nb, 0);
  EXPECT_GT(bx / nb, ax / na);
  EXPECT_LT(by / nb, ay / na);
  s.points.push_back({"bad", "C", 0.0, 25.0});
  EXPECT_THROW(render_plot(s), std::invalid_argument);
}

TEST(Montage, LaysOutTilesLabelsOverviewAndFooter) {
  MontageSpec m;
  m.title = "title";
  m.footer = {"GPU: x", "CPU: y"};
  m.zoom = 2;
  m.columns = 3;
  for (int i = 0; i < 4; ++i) {
    cdn::tools::Image t(16, 16, 3, 8);
    for (auto& b : t.data) b = static_cast<std::uint8_t>(40 * (i + 1));
    m.tiles.push_back({t, {"name", "PSNR"}});
  }
  m.overview = cdn::tools::Image(64, 32, 3, 8);
  m.region_x = 8, m.region_y = 8, m.region_w = 16, m.region_h = 16;
  const Canvas c = render_montage(m);
  // 5 cells (overview + 4 tiles) in 3 columns: 2 rows of 32-pixel tiles.
  EXPECT_GE(c.width(), 3 * 32);
  for (int i = 0; i < 4; ++i) {
    const std::uint8_t v = static_cast<std::uint8_t>(40 * (i + 1));
    EXPECT_EQ(count(c, {v, v, v}), 32 * 32) << i;  // each tile whole, zoomed 2x
  }
  EXPECT_GT(count(c, {230, 30, 30}), 20);  // the region's frame on the overview
  m.tiles[1].rgb = cdn::tools::Image(8, 8, 3, 8);
  EXPECT_THROW(render_montage(m), std::invalid_argument);
}

}  // namespace
