// test_quality.cpp: the harness's measurements: per-plane clip scores
// (clip_quality.h) and the expected PSNR of a noisy input (expected_noise.h),
// checked against definitions and against noise.h's actual noise.
#include <gtest/gtest.h>

#include <cmath>

#include "clip_quality.h"
#include "cudadenoise/error.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "expected_noise.h"

namespace {

using namespace cdn;
using namespace cdn::eval;

HostFrame flat(PixelFormat f, int w, int h, int v) {
  HostFrame fr(f, w, h);
  for (const PlaneView& p : components(fr.view()))
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) p.set(x, y, v);
  return fr;
}

double psnr_db(double mse) { return 10 * std::log10(255.0 * 255.0 / mse); }

TEST(ExpectedNoise, WithoutClippingItIsSigmaSquaredPlusRounding) {
  const HostFrame f = flat(PixelFormat::GRAY8, 32, 32, 128);
  const PlaneView p = components(f.view())[0];
  for (double s : {5.0, 10.0, 25.0})  // rounding adds 1/12 (a uniform error of one code value)
    EXPECT_NEAR(expected_noisy_mse(p, s), s * s + 1.0 / 12, 0.02 * s * s) << s;
  EXPECT_NEAR(expected_noisy_mse(p, 0), 0, 1e-12);
}

TEST(ExpectedNoise, ClippingAtZeroHalvesTheError) {
  // At 0 only the positive half of the noise survives: E = sigma^2 / 2 (plus rounding).
  const HostFrame f = flat(PixelFormat::GRAY8, 16, 16, 0);
  EXPECT_NEAR(expected_noisy_mse(components(f.view())[0], 25), 625.0 / 2, 3.0);
}

TEST(ExpectedNoise, MatchesTheNoiseActuallyAdded) {
  // A plane with dark, mid and bright thirds, so clipping matters: noise.h's noise must
  // give the PSNR predicted, to 0.05 dB on 768x512 samples.
  HostFrame clean(PixelFormat::GRAY8, 768, 512);
  const PlaneView c = components(clean.view())[0];
  for (int y = 0; y < 512; ++y)
    for (int x = 0; x < 768; ++x) c.set(x, y, x < 256 ? 8 + x / 32 : x < 512 ? 128 : 250);
  for (double s : {10.0, 25.0, 40.0}) {
    HostFrame noisy(PixelFormat::GRAY8, 768, 512);
    copy_host_frame(clean.view(), noisy.view());
    add_gaussian_noise(noisy.view(), s, 7);
    const double measured = psnr(c, components(noisy.view())[0]);
    const double expected = psnr_db(expected_noisy_mse(c, s));
    EXPECT_NEAR(measured, expected, 0.05) << "sigma " << s;
    EXPECT_GT(expected, 20 * std::log10(255 / s) + 0.3) << "clipping must raise the PSNR here";
  }
}

TEST(ClipScore, PerPlaneMeansAndPooling) {
  std::vector<HostFrame> a, b;
  for (int i = 0; i < 3; ++i) {
    a.push_back(flat(PixelFormat::I420, 8, 8, 100));
    b.push_back(flat(PixelFormat::I420, 8, 8, 100));
  }
  // frame 1: luma off by 2 everywhere (MSE 4), frame 2: Cb off by 4 (MSE 16).
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) components(b[1].view())[0].set(x, y, 102);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) components(b[2].view())[1].set(x, y, 96);
  const ClipScore s = score_clip(a, b, {});
  EXPECT_EQ(s.frames, 3);
  ASSERT_EQ(s.planes.size(), 3u);
  EXPECT_DOUBLE_EQ(s.planes[0].mse, 4.0 / 3);
  EXPECT_DOUBLE_EQ(s.planes[1].mse, 16.0 / 3);
  EXPECT_DOUBLE_EQ(s.planes[2].mse, 0);
  EXPECT_NEAR(s.planes[0].psnr, psnr_db(4.0 / 3), 1e-9);
  EXPECT_TRUE(std::isinf(s.planes[2].psnr));
  // pooled over samples: 64 luma, 16 + 16 chroma
  EXPECT_NEAR(s.all.mse, (64 * 4.0 / 3 + 16 * 16.0 / 3) / 96, 1e-12);
  // frames 0 and 2 only
  const ClipScore t = score_clip(a, b, {0, 2});
  EXPECT_EQ(t.frames, 2);
  EXPECT_DOUBLE_EQ(t.planes[0].mse, 0);
  EXPECT_DOUBLE_EQ(t.planes[1].mse, 8);
  EXPECT_THROW(score_clip(a, b, {3}), InvalidArgument);
  std::vector<HostFrame> gray;
  gray.push_back(flat(PixelFormat::GRAY8, 8, 8, 100));
  EXPECT_THROW(score_clip(a, gray, {0}), InvalidArgument);
}

// The two conventions of a clip's PSNR: from the mean MSE, and the mean of the frames' PSNRs.
TEST(ClipScore, FramePsnrIsTheMeanOfTheFramesPsnrs) {
  std::vector<HostFrame> a, b;
  for (int off : {1, 4}) {
    a.push_back(flat(PixelFormat::GRAY8, 8, 8, 100));
    b.push_back(flat(PixelFormat::GRAY8, 8, 8, 100 + off));  // MSE 1, then 16
  }
  const ClipScore s = score_clip(a, b, {});
  EXPECT_NEAR(s.planes[0].psnr, psnr_db(8.5), 1e-9);
  EXPECT_NEAR(s.planes[0].frame_psnr, (psnr_db(1) + psnr_db(16)) / 2, 1e-9);
  EXPECT_GT(s.planes[0].frame_psnr, s.planes[0].psnr + 1) << "not the same figure";
  EXPECT_TRUE(std::isinf(score_clip(a, a, {}).planes[0].frame_psnr)) << "identical frames";
}

TEST(ClipScore, ExpectedNoisyPsnrPerPlane) {
  std::vector<HostFrame> a;
  a.push_back(flat(PixelFormat::Y444, 16, 16, 128));
  const ClipScore s = score_clip(a, a, {}, 10);
  for (const PlaneScore& p : s.planes) EXPECT_NEAR(p.expected_noisy_psnr, psnr_db(100 + 1.0 / 12), 0.01);
  EXPECT_NEAR(s.all.expected_noisy_psnr, psnr_db(100 + 1.0 / 12), 0.01);
}

}  // namespace
