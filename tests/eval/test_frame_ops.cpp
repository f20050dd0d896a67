// test_frame_ops.cpp: crops, luma, gray to neutral 4:2:0, the pan clip and the
// display conversion of tools/eval (frame_ops.h, pan.h, frame_rgb.h).
#include <gtest/gtest.h>

#include "convert.h"
#include "cudadenoise/error.h"
#include "frame_ops.h"
#include "frame_rgb.h"
#include "pan.h"
#include "test_picture.h"

namespace {

using namespace cdn;
using namespace cdn::eval;

HostFrame ramp(PixelFormat f, int w, int h) {
  HostFrame fr(f, w, h);
  const auto c = components(fr.view());
  for (std::size_t k = 0; k < c.size(); ++k)
    for (int y = 0; y < c[k].height; ++y)
      for (int x = 0; x < c[k].width; ++x) c[k].set(x, y, (x * 7 + y * 13 + 50 * static_cast<int>(k)) & 255);
  return fr;
}

TEST(FrameOps, CropTakesTheRegionInEveryPlane) {
  const HostFrame f = ramp(PixelFormat::I420, 40, 30);
  const HostFrame c = crop_frame(f.view(), {10, 6, 16, 12});
  const auto a = components(f.view()), b = components(c.view());
  EXPECT_EQ(b[0].width, 16);
  EXPECT_EQ(b[1].width, 8);
  EXPECT_EQ(b[0].get(3, 2), a[0].get(13, 8));
  EXPECT_EQ(b[1].get(3, 2), a[1].get(8, 5));
  EXPECT_EQ(b[2].get(7, 5), a[2].get(12, 8));
  EXPECT_THROW(crop_frame(f.view(), {9, 6, 16, 12}), InvalidArgument);   // odd x in 4:2:0
  EXPECT_THROW(crop_frame(f.view(), {30, 6, 16, 12}), InvalidArgument);  // leaves the frame
  const HostFrame g = crop_frame(ramp(PixelFormat::GRAY8, 40, 30).view(), {9, 5, 3, 3});  // gray: any region
  EXPECT_EQ(components(g.view())[0].get(0, 0), (9 * 7 + 5 * 13) & 255);
}

TEST(FrameOps, LumaAndGrayToI420KeepTheLuma) {
  const HostFrame f = ramp(PixelFormat::Y444, 20, 10);
  const HostFrame l = luma_frame(f.view());
  EXPECT_EQ(l.view().format, PixelFormat::GRAY8);
  const HostFrame i = gray_to_i420(l.view());
  const auto a = components(f.view()), b = components(i.view());
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 20; ++x) ASSERT_EQ(b[0].get(x, y), a[0].get(x, y));
  EXPECT_EQ(b[1].get(4, 3), 128);
  EXPECT_EQ(b[2].get(9, 4), 128);
  EXPECT_THROW(gray_to_i420(f.view()), InvalidArgument);
  EXPECT_THROW(gray_to_i420(ramp(PixelFormat::GRAY8, 21, 10).view()), InvalidArgument);
}

TEST(Pan, FramesAreShiftedWindowsOfThePhoto) {
  const tools::Image photo = tools::make_test_picture(200, 150);
  const HostFrame full = tools::image_to_frame(photo);  // Y444
  PanSpec s;
  s.width = 64, s.height = 48, s.frames = 5, s.x0 = 10, s.y0 = 20, s.dx = 3, s.dy = 2;
  const std::vector<HostFrame> clip = make_pan(photo, s);
  ASSERT_EQ(clip.size(), 5u);
  EXPECT_EQ(clip[0].view().format, PixelFormat::I420);
  const auto src = components(full.view());
  for (int f = 0; f < 5; ++f) {
    const auto p = components(clip[f].view());
    EXPECT_EQ(p[0].get(5, 7), src[0].get(10 + 3 * f + 5, 20 + 2 * f + 7)) << f;
    // chroma: the rounded mean of the 2x2 block
    const int x = 10 + 3 * f + 2 * 4, y = 20 + 2 * f + 2 * 3;
    const int sum = src[1].get(x, y) + src[1].get(x + 1, y) + src[1].get(x, y + 1) + src[1].get(x + 1, y + 1);
    EXPECT_EQ(p[1].get(4, 3), (sum + 2) / 4) << f;
  }
  s.frames = 50;  // the window would leave the photo
  EXPECT_THROW(make_pan(photo, s), std::invalid_argument);
}

TEST(FrameRgb, FullRangeMatchesConvertAndLimitedRangeIsExpanded) {
  HostFrame f(PixelFormat::Y444, 4, 4);
  const auto c = components(f.view());
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) c[0].set(x, y, 16 + 50 * x), c[1].set(x, y, 100 + 10 * y), c[2].set(x, y, 150);
  const tools::Image full = frame_region_rgb(f.view(), Range::Full, {1, 1, 2, 2});
  const tools::Rgb want = tools::yuv_to_rgb({66, 110, 150});
  EXPECT_EQ(full.data[0], want.r);
  EXPECT_EQ(full.data[1], want.g);
  EXPECT_EQ(full.data[2], want.b);
  // Limited range: Y 16 is black, Y 235 white.
  HostFrame g(PixelFormat::GRAY8, 2, 1);
  components(g.view())[0].set(0, 0, 16);
  components(g.view())[0].set(1, 0, 235);
  const tools::Image lim = frame_region_rgb(g.view(), Range::Limited, {0, 0, 2, 1});
  EXPECT_EQ(lim.data[0], 0);
  EXPECT_EQ(lim.data[3], 255);
  EXPECT_EQ(frame_region_rgb(g.view(), Range::Unknown, {0, 0, 2, 1}).data, lim.data);  // unmarked video: limited
  EXPECT_THROW(frame_region_rgb(g.view(), Range::Full, {1, 0, 2, 1}), std::invalid_argument);
}

}  // namespace
