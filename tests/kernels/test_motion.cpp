// test_motion.cpp: block motion estimation (motion_reference.h) on a real photo
// (camera.png) shifted by known whole-pixel displacements: small ones, ones
// larger than any single search window (found through the pyramid), with AWGN
// up to sigma 40, at 8 and 10 bits, both directions. Scored on the cells where
// motion is defined: their matching window holds structure above the noise
// (the clean window's standard deviation is at least max(8, sigma) code values;
// in flat sky every vector matches as well) and its content is in both frames (not the border cells the
// content enters by). Of those, nearly all must hold the exact shift.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "motion/motion_reference.h"
#include "video_support.h"

namespace cdn {
namespace {

struct Score {
  int exact = 0, close = 0, total = 0;  // close: within one pixel in x and y
};

// Standard deviation of the window [x0, x1) x [y0, y1) of a plane, 8-bit units.
double window_std(const PlaneView& p, int x0, int y0, int x1, int y1) {
  double s = 0, s2 = 0;
  const double unit = 1 << (p.bit_depth - 8);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const double v = p.get(x, y) / unit;
      s += v;
      s2 += v * v;
    }
  const double n = double(x1 - x0) * (y1 - y0);
  return std::sqrt(std::max(0.0, s2 / n - (s / n) * (s / n)));
}

// The field from `a` to `b`, where b shows a's content moved by (dx, dy);
// `clean` is a without noise.
Score score_shift(const PlaneView& a, const PlaneView& b, const PlaneView& clean, int dx, int dy, double sigma,
                  const MotionParams& p) {
  const MotionField f = estimate_motion(build_pyramid(a, p), build_pyramid(b, p), p);
  EXPECT_EQ(f.cols, (a.width + p.cell - 1) / p.cell);
  EXPECT_EQ(f.rows, (a.height + p.cell - 1) / p.cell);
  Score s;
  // Interior: the cell's content is in b (with its matching window's margin).
  const int m = p.margin + 1;
  for (int cy = 0; cy < f.rows; ++cy)
    for (int cx = 0; cx < f.cols; ++cx) {
      const int x0 = cx * p.cell - m, x1 = (cx + 1) * p.cell + m, y0 = cy * p.cell - m, y1 = (cy + 1) * p.cell + m;
      if (x0 + dx < 0 || y0 + dy < 0 || x1 + dx > a.width || y1 + dy > a.height || x0 < 0 || y0 < 0 ||
          x1 > a.width || y1 > a.height)
        continue;
      if (window_std(clean, x0 + 1, y0 + 1, x1 - 1, y1 - 1) < std::max(8.0, sigma)) continue;
      const MotionVector v = f.at_cell(cx, cy);
      ++s.total;
      s.exact += v.dx == dx && v.dy == dy;
      s.close += std::abs(v.dx - dx) <= 1 && std::abs(v.dy - dy) <= 1;
    }
  return s;
}

struct Case {
  int dx, dy;
  double sigma;
  double min_exact, min_close;  // shares of the interior cells
};

void run(PixelFormat format, const Case& c, bool backward = false) {
  const HostFrame photo = test::load_photo_444("camera.png");
  const int w = 320, h = 240, x0 = 100, y0 = 120;
  // b shows a's content moved by (dx, dy): b's region starts (dx, dy) earlier.
  HostFrame a = test::crop_as(photo, format, x0, y0, w, h);
  HostFrame b = test::crop_as(photo, format, x0 - c.dx, y0 - c.dy, w, h);
  const HostFrame a_clean = test::crop_as(photo, format, x0, y0, w, h);
  const HostFrame b_clean = test::crop_as(photo, format, x0 - c.dx, y0 - c.dy, w, h);
  if (c.sigma > 0) {
    add_gaussian_noise(a.view(), c.sigma, 11);
    add_gaussian_noise(b.view(), c.sigma, 12);
  }
  const MotionParams p;
  // Backward: the field from b to a, which shows b's content moved by (-dx, -dy).
  const PlaneView la = components(a.view())[0], lb = components(b.view())[0];
  const Score s = backward ? score_shift(lb, la, components(b_clean.view())[0], -c.dx, -c.dy, c.sigma, p)
                           : score_shift(la, lb, components(a_clean.view())[0], c.dx, c.dy, c.sigma, p);
  ASSERT_GT(s.total, 150);
  EXPECT_GE(s.exact, c.min_exact * s.total) << "shift (" << c.dx << ", " << c.dy << ") sigma " << c.sigma << ": "
                                           << s.exact << " of " << s.total << " cells exact";
  EXPECT_GE(s.close, c.min_close * s.total) << "shift (" << c.dx << ", " << c.dy << ") sigma " << c.sigma << ": "
                                           << s.close << " of " << s.total << " cells within 1 pixel";
}

TEST(Motion, PyramidIsTheRoundedMeanOfEach2x2Block) {
  test::HostPlane p(7, 5, 1, 8);
  test::fill_random(p.view, 3);
  MotionParams mp;
  mp.min_coarse_size = 2;
  mp.max_levels = 2;
  const LumaPyramid pyr = build_pyramid(p.view, mp);
  ASSERT_EQ(pyr.levels.size(), 3u);
  EXPECT_EQ(pyr.levels[1].width, 4);
  EXPECT_EQ(pyr.levels[1].height, 3);
  EXPECT_EQ(pyr.levels[2].width, 2);
  EXPECT_EQ(pyr.levels[2].height, 2);
  const PlaneView& v = p.view;
  // (3, 2) of level 1 reads x 6 (7 clamps to 6) and y 4 (5 clamps to 4).
  EXPECT_EQ(pyr.levels[1].at(3, 2), (2 * v.get(6, 4) + 2 * v.get(6, 4) + 2) >> 2);
  EXPECT_EQ(pyr.levels[1].at(1, 0), (v.get(2, 0) + v.get(3, 0) + v.get(2, 1) + v.get(3, 1) + 2) >> 2);
}

TEST(Motion, LevelsStopAtTheCoarseSize) {
  MotionParams p;
  EXPECT_EQ(pyramid_levels(1920, 1080, p), 5);  // 1080 -> 540 -> 270 -> 135 -> 68 -> 34
  EXPECT_EQ(pyramid_levels(320, 240, p), 2);    // 240 -> 120 -> 60 (-> 30 < 32)
  EXPECT_EQ(pyramid_levels(40, 40, p), 0);
}

TEST(Motion, ZeroShiftOfANoisyFrame) { run(PixelFormat::GRAY8, {0, 0, 20, 0.9, 0.97}); }
TEST(Motion, SmallShiftClean) { run(PixelFormat::GRAY8, {3, -2, 0, 0.97, 0.99}); }
TEST(Motion, SmallShiftNoisy) { run(PixelFormat::GRAY8, {-5, 4, 20, 0.85, 0.95}); }
// Larger than the coarsest search (4 pixels at level 2, i.e. 16) and than any
// predictive window: found by the coarse level plus the refinements.
TEST(Motion, LargeShiftNoisy) { run(PixelFormat::GRAY8, {17, -11, 20, 0.85, 0.95}); }
TEST(Motion, LargeShiftVeryNoisy) { run(PixelFormat::GRAY8, {-14, 9, 40, 0.6, 0.9}); }
TEST(Motion, TenBitNoisy) { run(PixelFormat::P010_10LE, {6, 5, 20, 0.85, 0.95}); }

// The other direction of the same noisy pair: the negated shift.
TEST(Motion, BackwardFieldOfANoisyPair) { run(PixelFormat::GRAY8, {-7, 3, 20, 0.85, 0.95}, true); }

}  // namespace
}  // namespace cdn
