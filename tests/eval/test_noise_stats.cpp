// test_noise_stats.cpp: what `cudadenoise-eval prepare` reports of the noise it
// added (tools/eval/noise_stats.h): the true mean sigma of var = a x + b over
// the clean luma (exact on a frame of known values, 8 and 16 bit), and the
// residual noisy - clean: its RMS, and var = a x + b fitted by level sets, which
// finds the a and b of signal-dependent noise and a flat model for AWGN.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "cudadenoise/noise.h"
#include "noise_stats.h"

namespace {

using namespace cdn;
using namespace cdn::eval;

// Luma: a ramp over lo..lo + span - 1 in 8-bit units (scaled to the depth), each value as often; chroma 128.
HostFrame ramp(PixelFormat f, int w, int h, int lo = 16, int span = 224) {
  HostFrame fr(f, w, h);
  const auto c = components(fr.view());
  for (std::size_t k = 0; k < c.size(); ++k) {
    const int scale = 1 << (c[k].bit_depth - 8);
    for (int y = 0; y < c[k].height; ++y)
      for (int x = 0; x < c[k].width; ++x) c[k].set(x, y, (k ? 128 : lo + (x * span) / c[k].width) * scale);
  }
  return fr;
}

std::vector<HostFrame> copies(const std::vector<HostFrame>& v) {
  std::vector<HostFrame> out;
  for (const HostFrame& f : v) {
    out.emplace_back(f.view().format, f.view().width, f.view().height);
    copy_host_frame(f.view(), out.back().view());
  }
  return out;
}

TEST(NoiseStats, ModelMeanSigmaIsTheRootOfTheMeanVarianceOverTheLuma) {
  for (PixelFormat f : {PixelFormat::I420, PixelFormat::GRAY16_LE}) {
    std::vector<HostFrame> clean;
    clean.push_back(ramp(f, 224, 8));
    clean.push_back(ramp(f, 224, 8));
    // the luma takes 16..239 once per row: mean x = 127.5; chroma (128) does not count
    EXPECT_NEAR(model_mean_sigma(clean, 0.5, 4), std::sqrt(0.5 * 127.5 + 4), 1e-9) << format_name(f);
    EXPECT_NEAR(model_mean_sigma(clean, 0, 9), 3, 1e-12);
    EXPECT_NEAR(model_mean_sigma(clean, 0, -1000), 0, 1e-12);   // negative variance counts as none
  }
}

TEST(NoiseStats, ResidualFitFindsTheSignalModel) {
  // 16..175: at least 4.6 std from 0 and 255 (var 0.5 x + 4), so clipping does not bend the variance
  std::vector<HostFrame> clean;
  for (int i = 0; i < 4; ++i) clean.push_back(ramp(PixelFormat::I420, 640, 256, 16, 160));
  std::vector<HostFrame> noisy = copies(clean);
  for (std::size_t i = 0; i < noisy.size(); ++i) add_signal_dependent_noise(noisy[i].view(), 0.5, 4, 10 + i);
  const ResidualNoise r = residual_noise(clean, noisy);
  ASSERT_TRUE(r.fit.usable);
  EXPECT_NEAR(r.fit.a, 0.5, 0.02);
  EXPECT_NEAR(r.fit.b, 4 + 1.0 / 12, 1);   // rounding adds 1/12
  EXPECT_NEAR(r.rms, std::sqrt(0.5 * 95.5 + 4 + 1.0 / 12), 0.01 * std::sqrt(0.5 * 95.5 + 4));
  int levels = 0;
  for (const NoiseModelLevel& l : r.fit.levels) levels += l.usable();
  EXPECT_EQ(levels, 6);   // 16..175: level sets 0 (16..31) to 5 (160..175)
}

TEST(NoiseStats, ResidualOfAwgnIsFlat) {
  std::vector<HostFrame> clean;
  clean.push_back(ramp(PixelFormat::GRAY8, 1024, 512));
  std::vector<HostFrame> noisy = copies(clean);
  add_gaussian_noise(noisy[0].view(), 10, 3);
  const ResidualNoise r = residual_noise(clean, noisy);
  ASSERT_TRUE(r.fit.usable);
  EXPECT_NEAR(r.fit.a, 0, 0.02);
  EXPECT_NEAR(r.fit.a * 127.5 + r.fit.b, 100 + 1.0 / 12, 2);
  EXPECT_NEAR(r.rms, 10, 0.1);
}

TEST(NoiseStats, ResidualNeedsMatchingFrames) {
  std::vector<HostFrame> a, b;
  a.push_back(ramp(PixelFormat::GRAY8, 64, 8));
  b.push_back(ramp(PixelFormat::GRAY8, 32, 8));
  EXPECT_THROW(residual_noise(a, b), std::invalid_argument);
  b.clear();
  EXPECT_THROW(residual_noise(a, b), std::invalid_argument);
}

}  // namespace
