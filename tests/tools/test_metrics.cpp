// test_metrics.cpp: PSNR and SSIM (kernels/include/cudadenoise/metrics.h) against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "image.h"
#include "test_picture.h"

namespace {

using cdn::tools::Image;

Image flat(int w, int h, int value, int depth = 8) {
  Image img(w, h, 1, depth);
  const cdn::PlaneView v = img.channel(0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) v.set(x, y, value);
  return img;
}

// The luma-like green channel of the test picture: smooth areas, edges, texture.
Image picture_gray() {
  const Image rgb = cdn::tools::make_test_picture(128, 128);
  Image g(128, 128, 1, 8);
  for (int y = 0; y < 128; ++y)
    for (int x = 0; x < 128; ++x) g.channel(0).set(x, y, rgb.channel(1).get(x, y));
  return g;
}

TEST(Metrics, IdenticalPlanesHaveInfinitePsnrAndSsimOne) {
  const Image a = picture_gray();
  EXPECT_EQ(cdn::mse(a.channel(0), a.channel(0)), 0.0);
  EXPECT_TRUE(std::isinf(cdn::psnr(a.channel(0), a.channel(0))));
  EXPECT_GT(cdn::psnr(a.channel(0), a.channel(0)), 0);
  EXPECT_NEAR(cdn::ssim(a.channel(0), a.channel(0)), 1.0, 1e-12);
}

TEST(Metrics, KnownMse) {
  // Every sample off by exactly 10: MSE 100, PSNR 10 log10(255^2 / 100) = 28.1308 dB.
  const Image a = flat(40, 30, 100);
  Image b = flat(40, 30, 100);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) b.channel(0).set(x, y, (x + y) % 2 ? 110 : 90);
  EXPECT_DOUBLE_EQ(cdn::mse(a.channel(0), b.channel(0)), 100.0);
  EXPECT_NEAR(cdn::psnr(a.channel(0), b.channel(0)), 28.1308, 1e-4);
  // 16-bit: peak 65535.
  const Image c = flat(16, 16, 1000, 16), d = flat(16, 16, 1256, 16);
  EXPECT_NEAR(cdn::psnr(c.channel(0), d.channel(0)), 10 * std::log10(65535.0 * 65535.0 / (256.0 * 256.0)), 1e-9);
}

TEST(Metrics, SsimOfFlatPlanesMatchesTheFormula) {
  // No variance: SSIM reduces to the luminance term (2 p q + C1) / (p^2 + q^2 + C1).
  const double c1 = (0.01 * 255) * (0.01 * 255);
  const Image a = flat(20, 20, 100), b = flat(20, 20, 140);
  EXPECT_NEAR(cdn::ssim(a.channel(0), b.channel(0)), (2 * 100.0 * 140 + c1) / (100.0 * 100 + 140.0 * 140 + c1), 1e-9);
}

TEST(Metrics, SsimFallsAsNoiseRises) {
  const Image clean = picture_gray();
  double last = 1.0;
  for (double sigma : {5.0, 15.0, 30.0, 60.0}) {
    Image noisy = clean;
    cdn::add_gaussian_noise(noisy.channel(0), sigma, 7);
    const double s = cdn::ssim(clean.channel(0), noisy.channel(0));
    EXPECT_LT(s, last) << "sigma " << sigma;
    EXPECT_GT(s, 0.0);
    last = s;
  }
}

TEST(Metrics, SmallPlanesGiveNanSsimAndMismatchesThrow) {
  const Image a = flat(10, 40, 1), b = flat(10, 40, 2);
  EXPECT_TRUE(std::isnan(cdn::ssim(a.channel(0), b.channel(0))));
  const Image c = flat(11, 40, 1);
  EXPECT_THROW(cdn::mse(a.channel(0), c.channel(0)), cdn::InvalidArgument);
  cdn::PlaneView dev = a.channel(0);
  dev.memory = cdn::MemoryKind::Device;
  EXPECT_THROW(cdn::mse(dev, dev), cdn::InvalidArgument);
}

TEST(Metrics, InterleavedChannelsAndPooling) {
  // R differs by 10 everywhere, G and B are equal: pooled MSE = 100 / 3.
  Image a(16, 16, 3, 8), b(16, 16, 3, 8);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) b.channel(0).set(x, y, 10);
  EXPECT_DOUBLE_EQ(cdn::mse(a.channel(0), b.channel(0)), 100.0);
  EXPECT_DOUBLE_EQ(cdn::mse(a.channel(1), b.channel(1)), 0.0);
  const cdn::Quality q = cdn::quality(a.colour_views(), b.colour_views());
  EXPECT_NEAR(q.psnr, cdn::psnr_from_mse(100.0 / 3, 255), 1e-9);
}

TEST(Metrics, FrameQualityCoversEveryComponent) {
  cdn::HostFrame a(cdn::PixelFormat::I420, 64, 48), b(cdn::PixelFormat::I420, 64, 48);
  EXPECT_TRUE(std::isinf(cdn::frame_quality(a.view(), b.view()).psnr));
  // Change one chroma sample by 32: SSE 1024 over 64*48 + 2*32*24 samples.
  cdn::components(b.view())[2].set(3, 4, 32);
  EXPECT_NEAR(cdn::frame_quality(a.view(), b.view()).psnr, cdn::psnr_from_mse(1024.0 / (64 * 48 + 2 * 32 * 24), 255),
              1e-9);
}

}  // namespace
