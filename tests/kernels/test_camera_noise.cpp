// test_camera_noise.cpp: camera-model test noise (camera_noise.h): the BT.709
// curve and its inverse; on flat grey frames the luma's noise variance is what
// the model predicts through the transfer curve and the matrix, grows with the
// light in linear terms and not in code values as AWGN would; chroma noise
// too; deterministic for a seed; other formats refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cudadenoise/camera_noise.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"

namespace cdn {
namespace {

// A flat frame of luma y (and neutral chroma).
HostFrame flat(PixelFormat f, int w, int h, int y) {
  HostFrame frame(f, w, h);
  const std::vector<PlaneView> c = components(frame.view());
  for (std::size_t k = 0; k < c.size(); ++k)
    for (int py = 0; py < c[k].height; ++py)
      for (int px = 0; px < c[k].width; ++px) c[k].set(px, py, k == 0 ? y : 128);
  return frame;
}

struct Stats {
  double mean = 0, var = 0;
};
Stats stats(const PlaneView& p) {
  double s = 0, s2 = 0;
  const double n = double(p.width) * p.height;
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) {
      s += p.get(x, y);
      s2 += double(p.get(x, y)) * p.get(x, y);
    }
  return {s / n, s2 / n - (s / n) * (s / n)};
}

TEST(CameraNoise, Bt709CurveInverts) {
  for (double l : {0.0, 0.005, 0.018, 0.1, 0.5, 1.0}) EXPECT_NEAR(bt709_inverse_oetf(bt709_oetf(l)), l, 1e-12);
  EXPECT_NEAR(bt709_oetf(1.0), 1.0, 1e-12);
  EXPECT_NEAR(bt709_oetf(0.018), 0.081, 1e-3);  // the two pieces meet
}

TEST(CameraNoise, ReadFollowsBrooksLine) {
  const CameraNoise n = camera_noise_for_shot(0.01);
  EXPECT_NEAR(std::log(n.read), 2.18 * std::log(0.01) + 1.20, 1e-12);
  EXPECT_THROW(camera_noise_for_shot(0), InvalidArgument);
}

// Grey R' = G' = B' = Y': each channel's noise is OETF'(L) sqrt(shot L + read)
// in [0, 1]; luma sums the three with the BT.709 weights, in 219 code values.
TEST(CameraNoise, LumaVarianceFollowsTheModelThroughTheCurve) {
  const CameraNoise n = camera_noise_for_shot(kCameraShotBright);
  double previous_linear = 0;
  for (int level : {60, 120, 180}) {
    SCOPED_TRACE(level);
    const HostFrame in = flat(PixelFormat::I420, 256, 256, level);
    HostFrame out(PixelFormat::I420, 256, 256);
    add_camera_noise(in.view(), out.view(), n, 1);
    const Stats s = stats(components(out.view())[0]);
    const double v = (level - 16.0) / 219.0, l = bt709_inverse_oetf(v);
    const double slope = 1.099 * 0.45 * std::pow(l, 0.45 - 1.0);  // OETF'(L), above 0.018
    const double w2 = 0.2126 * 0.2126 + 0.7152 * 0.7152 + 0.0722 * 0.0722;
    const double predicted = w2 * slope * slope * (n.shot * l + n.read) * 219.0 * 219.0 + 1.0 / 12.0;
    EXPECT_NEAR(s.mean, level, 0.5);
    EXPECT_NEAR(s.var, predicted, 0.06 * predicted);
    // In linear light the variance grows with L (shot noise): divided by the
    // curve's slope squared it must rise from level to level.
    const double linear = (s.var - 1.0 / 12.0) / (slope * slope);
    EXPECT_GT(linear, previous_linear);
    previous_linear = linear;
  }
}

TEST(CameraNoise, ChromaGetsNoiseAndLowLightIsNoisier) {
  const HostFrame in = flat(PixelFormat::NV12, 128, 96, 100);
  HostFrame bright(PixelFormat::NV12, 128, 96), dark(PixelFormat::NV12, 128, 96);
  add_camera_noise(in.view(), bright.view(), camera_noise_for_shot(kCameraShotBright), 3);
  add_camera_noise(in.view(), dark.view(), camera_noise_for_shot(kCameraShotLowLight), 3);
  const std::vector<PlaneView> b = components(bright.view()), d = components(dark.view());
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    EXPECT_GT(stats(b[k]).var, 0.25);
    EXPECT_GT(stats(d[k]).var, 4 * stats(b[k]).var);
  }
}

TEST(CameraNoise, DeterministicInPlaceAndFormatsChecked) {
  const HostFrame in = flat(PixelFormat::Y444, 64, 48, 90);
  HostFrame a(PixelFormat::Y444, 64, 48);
  HostFrame b = flat(PixelFormat::Y444, 64, 48, 90);
  add_camera_noise(in.view(), a.view(), camera_noise_for_shot(1e-3), 9);
  add_camera_noise(b.view(), b.view(), camera_noise_for_shot(1e-3), 9);  // in place
  EXPECT_EQ(std::memcmp(a.view().data[0], b.view().data[0], a.size_bytes()), 0);
  const HostFrame gray(PixelFormat::GRAY8, 16, 16);
  HostFrame g2(PixelFormat::GRAY8, 16, 16);
  EXPECT_THROW(add_camera_noise(gray.view(), g2.view(), camera_noise_for_shot(1e-3), 1), InvalidArgument);
  HostFrame other(PixelFormat::Y444, 32, 48);
  EXPECT_THROW(add_camera_noise(in.view(), other.view(), camera_noise_for_shot(1e-3), 1), InvalidArgument);
}

}  // namespace
}  // namespace cdn
