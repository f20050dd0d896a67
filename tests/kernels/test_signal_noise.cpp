// test_signal_noise.cpp: Gaussian noise of variance a x + b (noise.h,
// add_signal_dependent_noise; issue 37's protocol): the variance at each clean
// level is a x + b (8-bit code values, scaled for deeper planes), every
// component of a frame gets it, a seed gives the same frame and another seed
// another, a = 0 gives add_gaussian_noise's samples at sigma sqrt(b), values
// clip at 0 and the maximum without wrapping, and bad arguments are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"

namespace cdn {
namespace {

// Flat bands of the given 8-bit levels (scaled to the plane's depth), each
// `rows` rows high, in every component.
HostFrame bands(PixelFormat f, int w, int rows, const std::vector<int>& levels) {
  HostFrame frame(f, w, rows * static_cast<int>(levels.size()));
  for (const PlaneView& p : components(frame.view())) {
    const int scale = 1 << (p.bit_depth - 8);
    const int band = rows * p.height / frame.view().height;
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) p.set(x, y, levels[y / band] * scale);
  }
  return frame;
}

// Variance of noisy - clean over rows [y0, y1) of a component, in 8-bit units.
double residual_variance(const PlaneView& clean, const PlaneView& noisy, int y0, int y1) {
  const double scale = std::ldexp(1.0, clean.bit_depth - 8);
  double s = 0, ss = 0;
  long n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < clean.width; ++x) {
      const double d = (noisy.get(x, y) - clean.get(x, y)) / scale;
      s += d;
      ss += d * d;
      n++;
    }
  return ss / n - (s / n) * (s / n);
}

bool same_bytes(const HostFrame& a, const HostFrame& b) {
  return a.size_bytes() == b.size_bytes() && std::memcmp(a.view().data[0], b.view().data[0], a.size_bytes()) == 0;
}

HostFrame copy(const HostFrame& f) {
  HostFrame h(f.view().format, f.view().width, f.view().height);
  copy_host_frame(f.view(), h.view());
  return h;
}

const std::vector<int> kLevels = {20, 64, 128, 192};   // away from the clipping at 0 and 255

TEST(SignalNoise, VarianceAtEachLevelIsAXPlusB) {
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{0.5, 4}, {2, 2}, {0, 9}}) {
    const HostFrame clean = bands(PixelFormat::GRAY8, 512, 64, kLevels);
    const HostFrame noisy = copy(clean);
    add_signal_dependent_noise(noisy.view(), a, b, 7);
    const PlaneView c = components(clean.view())[0], n = components(noisy.view())[0];
    for (std::size_t k = 0; k < kLevels.size(); ++k) {
      // rounding to integers adds 1/12; 32768 samples estimate a variance within about 1 % (sd)
      const double want = a * kLevels[k] + b + 1.0 / 12;
      EXPECT_NEAR(residual_variance(c, n, 64 * k, 64 * (k + 1)), want, 0.04 * want)
          << "a " << a << " b " << b << " level " << kLevels[k];
    }
  }
}

TEST(SignalNoise, DeeperPlanesScaleTheLevelAndTheNoise) {
  // 16 bit: level x in 8-bit units is v / 256, the std is 256 sqrt(a x + b); no rounding term at this scale.
  const HostFrame clean = bands(PixelFormat::GRAY16_LE, 256, 64, kLevels);
  const HostFrame noisy = copy(clean);
  add_signal_dependent_noise(noisy.view(), 0.5, 4, 3);
  const PlaneView c = components(clean.view())[0], n = components(noisy.view())[0];
  for (std::size_t k = 0; k < kLevels.size(); ++k) {
    const double want = 0.5 * kLevels[k] + 4;
    EXPECT_NEAR(residual_variance(c, n, 64 * k, 64 * (k + 1)), want, 0.05 * want) << "level " << kLevels[k];
  }
}

TEST(SignalNoise, EveryComponentOfAFrameGetsItsOwnLevelsNoise) {
  const HostFrame clean = bands(PixelFormat::I420, 512, 64, kLevels);
  const HostFrame noisy = copy(clean);
  add_signal_dependent_noise(noisy.view(), 2, 2, 11);
  const auto c = components(clean.view()), n = components(noisy.view());
  for (std::size_t p = 0; p < c.size(); ++p) {
    const int band = c[p].height / static_cast<int>(kLevels.size());
    for (std::size_t k = 0; k < kLevels.size(); ++k) {
      const double want = 2 * kLevels[k] + 2 + 1.0 / 12;
      // chroma: a quarter of the samples, 2 % sd
      EXPECT_NEAR(residual_variance(c[p], n[p], band * k, band * (k + 1)), want, (p ? 0.08 : 0.04) * want)
          << "component " << p << " level " << kLevels[k];
    }
  }
}

TEST(SignalNoise, DeterministicForASeed) {
  const HostFrame clean = bands(PixelFormat::NV12, 64, 16, kLevels);
  HostFrame x = copy(clean), y = copy(clean), z = copy(clean);
  add_signal_dependent_noise(x.view(), 0.5, 4, 42);
  add_signal_dependent_noise(y.view(), 0.5, 4, 42);
  add_signal_dependent_noise(z.view(), 0.5, 4, 43);
  EXPECT_TRUE(same_bytes(x, y));
  EXPECT_FALSE(same_bytes(x, z));
  EXPECT_FALSE(same_bytes(x, clean));
}

TEST(SignalNoise, FlatModelIsTheGaussianNoiseOfSigmaSqrtB) {
  const HostFrame clean = bands(PixelFormat::I420, 64, 16, kLevels);
  HostFrame x = copy(clean), y = copy(clean);
  add_signal_dependent_noise(x.view(), 0, 25, 5);
  add_gaussian_noise(y.view(), 5.0, 5);
  EXPECT_TRUE(same_bytes(x, y));
}

TEST(SignalNoise, ClipsAtBothEndsWithoutWrapping) {
  // var = 2 x + 2 at 250: std 22.4, and a sample rounds to 255 or above when z >= 4.5 / 22.4: 42.0 %; at 3
  // the std is 2.83 and it rounds to 0 or below when z < -2.5 / 2.83: 18.8 %. Wrapping would scatter
  // them across the range.
  const HostFrame clean = bands(PixelFormat::GRAY8, 256, 64, {3, 250});
  const HostFrame noisy = copy(clean);
  add_signal_dependent_noise(noisy.view(), 2, 2, 9);
  const PlaneView n = components(noisy.view())[0];
  int zero = 0, top = 0, far = 0;
  for (int y = 0; y < n.height; ++y)
    for (int x = 0; x < n.width; ++x) {
      const int v = n.get(x, y);
      if (y < 64) {
        zero += v == 0;
        far += v > 3 + 6 * 2.83;   // six std above: none
      } else {
        top += v == 255;
        far += v < 250 - 6 * 22.4;
      }
    }
  const double samples = 256.0 * 64;
  EXPECT_NEAR(top / samples, 0.420, 0.02);
  EXPECT_NEAR(zero / samples, 0.188, 0.02);
  EXPECT_EQ(far, 0);
}

TEST(SignalNoise, RefusesBadArguments) {
  const HostFrame f = bands(PixelFormat::GRAY8, 16, 4, {100});
  EXPECT_THROW(add_signal_dependent_noise(f.view(), -0.1, 4, 1), InvalidArgument);
  EXPECT_THROW(add_signal_dependent_noise(f.view(), std::nan(""), 4, 1), InvalidArgument);
  EXPECT_THROW(add_signal_dependent_noise(f.view(), 0.5, INFINITY, 1), InvalidArgument);
  PlaneView dev = components(f.view())[0];
  dev.memory = MemoryKind::Device;
  NoiseRng rng(1);
  EXPECT_THROW(add_signal_dependent_noise(dev, 0.5, 4, rng), InvalidArgument);
}

}  // namespace
}  // namespace cdn
