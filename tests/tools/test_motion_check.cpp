// test_motion_check.cpp: tools/motion/motion_check.h, the measures of
// cudadenoise-motion-check (issue 38 item 1): field agreement (cells off by more
// than a pixel, mean end-point error, grids that differ refused) and the
// motion-compensated prediction error (exact where the field is the true shift,
// away from the clamped border; far larger with no motion).
#include <gtest/gtest.h>

#include <cmath>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "motion_check.h"

namespace cdn {
namespace {

TEST(MotionCheck, CompareFieldsCountsCellsOffByMoreThanAPixel) {
  MotionField truth(32, 16, 8), test(32, 16, 8);  // 4 x 2 cells
  ASSERT_EQ(truth.v.size(), 8u);
  test.at_cell(0, 0) = {1, 1};    // within a pixel: not off; EPE sqrt(2)
  test.at_cell(1, 0) = {2, 0};    // off; EPE 2
  test.at_cell(2, 1) = {0, -3};   // off; EPE 3
  truth.at_cell(3, 1) = {-4, 0};  // the truth moves, the test does not: off; EPE 4
  const motion_check::Agreement a = motion_check::compare_fields(truth, test);
  EXPECT_EQ(a.cells, 8);
  EXPECT_EQ(a.off, 3);
  EXPECT_DOUBLE_EQ(a.off_fraction(), 3.0 / 8);
  EXPECT_NEAR(a.epe, (std::sqrt(2.0) + 2 + 3 + 4) / 8, 1e-12);
  EXPECT_THROW(motion_check::compare_fields(truth, MotionField(32, 24, 8)), InvalidArgument);
  EXPECT_THROW(motion_check::compare_fields(truth, MotionField(32, 16, 4)), InvalidArgument);
}

TEST(MotionCheck, CompensationIsExactThroughTheTrueShift) {
  const int w = 64, h = 48, dx = 3, dy = -2;
  auto texture = [](int x, int y) { return (x * 37 + y * 91 + ((x * y) % 17) * 5) % 256; };
  HostFrame from(PixelFormat::GRAY8, w, h), to(PixelFormat::GRAY8, w, h);
  const PlaneView f = components(from.view()).front(), t = components(to.view()).front();
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      f.set(x, y, texture(x, y));
      t.set(x, y, texture(x - dx, y - dy));  // the content of (x, y) in `from` is at (x + dx, y + dy) in `to`
    }
  MotionField shift(w, h, 8), none(w, h, 8);
  for (auto& v : shift.v) v = {dx, dy};
  // Exact except where (x + dx, y + dy) leaves the frame and is clamped: the last
  // dx columns and the first -dy rows.
  double border = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (x + dx >= w || y + dy < 0) {
        const double d = texture(x, y) - t.get(std::min(x + dx, w - 1), std::max(y + dy, 0));
        border += d * d;
      }
  const double mse = motion_check::compensation_mse(f, t, shift);
  EXPECT_NEAR(mse, border / (w * h), 1e-9);
  EXPECT_GT(motion_check::compensation_mse(f, t, none), 10 * mse);
  EXPECT_EQ(motion_check::compensation_mse(f, f, none), 0);
  EXPECT_THROW(motion_check::compensation_mse(f, t, MotionField(w, h + 8, 8)), InvalidArgument);
}

}  // namespace
}  // namespace cdn
