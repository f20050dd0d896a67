// test_convert.cpp: BT.601 full-range RGB <-> YCbCr and image <-> frame copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "convert.h"
#include "cudadenoise/error.h"
#include "test_picture.h"

namespace {

using namespace cdn;  // HostFrame
using namespace cdn::tools;

TEST(Convert, KnownColours) {
  EXPECT_EQ(rgb_to_yuv({0, 0, 0}).y, 0);
  EXPECT_EQ(rgb_to_yuv({255, 255, 255}).y, 255);
  const Yuv white = rgb_to_yuv({255, 255, 255});
  EXPECT_EQ(white.cb, 128);
  EXPECT_EQ(white.cr, 128);
  const Yuv red = rgb_to_yuv({255, 0, 0});  // 0.299 * 255, 128 - 0.168736 * 255, 128 + 127.5
  EXPECT_EQ(red.y, 76);
  EXPECT_EQ(red.cb, 85);
  EXPECT_EQ(red.cr, 255);
}

TEST(Convert, RoundTripIsWithinTwoCodeValues) {
  int worst = 0;
  for (int r = 0; r < 256; r += 5)
    for (int g = 0; g < 256; g += 5)
      for (int b = 0; b < 256; b += 5) {
        const Rgb c = yuv_to_rgb(rgb_to_yuv({r, g, b}));
        worst = std::max({worst, std::abs(c.r - r), std::abs(c.g - g), std::abs(c.b - b)});
      }
  EXPECT_LE(worst, 2);
}

TEST(Convert, ImagesMapToTheRightFormats) {
  EXPECT_EQ(frame_format_for(Image(4, 4, 1, 8)), cdn::PixelFormat::GRAY8);
  EXPECT_EQ(frame_format_for(Image(4, 4, 2, 16)), cdn::PixelFormat::GRAY16_LE);
  EXPECT_EQ(frame_format_for(Image(4, 4, 4, 8)), cdn::PixelFormat::Y444);
  EXPECT_THROW(frame_format_for(Image(4, 4, 3, 16)), cdn::InvalidArgument);
  EXPECT_EQ(frame_format_for(to_8bit(Image(4, 4, 3, 16))), cdn::PixelFormat::Y444);
}

TEST(Convert, GrayRoundTripIsExactAndAlphaIsKept) {
  Image img(13, 7, 2, 16);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 13; ++x) {
      img.channel(0).set(x, y, x * 5000 + y);
      img.channel(1).set(x, y, 1234);
    }
  const HostFrame f = image_to_frame(img);
  EXPECT_EQ(f.view().format, cdn::PixelFormat::GRAY16_LE);
  Image back(13, 7, 2, 16);
  back.channel(1).set(0, 0, 77);
  frame_to_image(f.view(), back);
  EXPECT_EQ(back.channel(0).get(12, 6), 12 * 5000 + 6);
  EXPECT_EQ(back.channel(1).get(0, 0), 77);  // alpha untouched
}

TEST(Convert, ColourPictureSurvivesY444) {
  const Image pic = make_test_picture(64, 64);
  const HostFrame f = image_to_frame(pic);
  Image back = pic;
  frame_to_image(f.view(), back);
  for (std::size_t i = 0; i < pic.data.size(); ++i) ASSERT_LE(std::abs(pic.data[i] - back.data[i]), 2) << i;
}

}  // namespace
