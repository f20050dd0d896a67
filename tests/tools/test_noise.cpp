// test_noise.cpp: the deterministic AWGN generator (kernels/include/cudadenoise/noise.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "cudadenoise/error.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "image.h"

namespace {

using cdn::tools::Image;

Image flat(int w, int h, int value, int depth = 8) {
  Image img(w, h, 1, depth);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img.channel(0).set(x, y, value);
  return img;
}

std::uint64_t fnv1a(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

TEST(Noise, Sigma25OnMidGrayGivesTheExpectedPsnr) {
  const Image clean = flat(512, 512, 128);
  Image noisy = clean;
  cdn::add_gaussian_noise(noisy.channel(0), 25, 1);
  EXPECT_NEAR(cdn::psnr(clean.channel(0), noisy.channel(0)), 20 * std::log10(255.0 / 25), 0.2);
}

TEST(Noise, SameSeedSameImageOtherSeedOtherImage) {
  Image a = flat(64, 64, 100), b = flat(64, 64, 100), c = flat(64, 64, 100);
  cdn::add_gaussian_noise(a.channel(0), 10, 42);
  cdn::add_gaussian_noise(b.channel(0), 10, 42);
  cdn::add_gaussian_noise(c.channel(0), 10, 43);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, c.data);
}

TEST(Noise, GeneratorIsPinned) {
  // The generator is ours (xoshiro256** from splitmix64, Box-Muller): these
  // values must not change between platforms or releases.
  cdn::NoiseRng rng(1);
  EXPECT_EQ(rng.next_u64(), 0xb3f2af6d0fc710c5ull);
  EXPECT_EQ(rng.next_u64(), 0x853b559647364ceaull);
  Image img = flat(64, 64, 128);
  cdn::add_gaussian_noise(img.channel(0), 25, 1);
  EXPECT_EQ(fnv1a(img.data), 0x818c098e506163d5ull) << std::hex << fnv1a(img.data);
}

TEST(Noise, DeeperPlanesScaleSigma) {
  // 16-bit: sigma 25 becomes 25 * 256 = 6400; measure the std.
  const Image clean = flat(256, 256, 32768, 16);
  Image noisy = clean;
  cdn::add_gaussian_noise(noisy.channel(0), 25, 3);
  const double mse = cdn::mse(clean.channel(0), noisy.channel(0));
  EXPECT_NEAR(std::sqrt(mse), 6400, 6400 * 0.02);
}

TEST(Noise, TenBitShiftedPlanesKeepTheirPaddingBitsZero) {
  Image img = flat(32, 32, 512 << 6, 16);  // P010-style: 10-bit values in the top bits
  cdn::PlaneView v = img.channel(0);
  v.shift = 6;
  v.bit_depth = 10;
  cdn::add_gaussian_noise(v, 25, 5);
  const auto* s = reinterpret_cast<const std::uint16_t*>(img.data.data());
  int changed = 0;
  for (int i = 0; i < 32 * 32; ++i) {
    EXPECT_EQ(s[i] & 0x3f, 0);
    changed += (s[i] >> 6) != 512;
  }
  EXPECT_GT(changed, 900);
}

TEST(Noise, ClampsAndRejectsBadInput) {
  Image img = flat(64, 64, 250);
  cdn::add_gaussian_noise(img.channel(0), 100, 9);
  int saturated = 0;
  for (std::uint8_t b : img.data) saturated += b == 255;
  EXPECT_GT(saturated, 64 * 64 * 4 / 10);  // about half: z > 0.05 (wrapping would scatter them)
  EXPECT_THROW(cdn::add_gaussian_noise(img.channel(0), -1, 9), cdn::InvalidArgument);
  cdn::PlaneView dev = img.channel(0);
  dev.memory = cdn::MemoryKind::Device;
  EXPECT_THROW(cdn::add_gaussian_noise(dev, 1, 9), cdn::InvalidArgument);
}

}  // namespace
