// test_support.h: helpers shared by the kernels/ tests: owned host planes,
// deterministic random content, real test images, and the GPU skip rule.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "denoiser.h"
#include "plane.h"

namespace cdn::test {

// An owned host plane of 8- or 16-bit samples with a padded pitch.
struct HostPlane {
  std::vector<std::uint8_t> bytes;
  PlaneView view;
  HostPlane(int w, int h, int bytes_per_sample, int bit_depth, int pad = 13) {
    view.width = w;
    view.height = h;
    view.bytes_per_sample = bytes_per_sample;
    view.bit_depth = bit_depth;
    view.pitch = static_cast<std::size_t>(w) * bytes_per_sample + pad * bytes_per_sample;
    bytes.assign(view.pitch * h, 0xAB);  // poison: every output sample must be written
    view.data = bytes.data();
  }
};

// Deterministic pseudo-random samples in [0, max] (splitmix64).
inline void fill_random(const PlaneView& p, std::uint64_t seed) {
  std::uint64_t s = seed;
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) {
      s += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = s;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      p.set(x, y, static_cast<int>(z % static_cast<std::uint64_t>(p.max_value() + 1)));
    }
}

// Directory of the real test images (scripts/fetch-test-data.sh).
inline std::string test_data_dir() {
  const char* d = std::getenv("CDN_TEST_DATA");
  return d ? d : ".testdata";
}

#define CDN_REQUIRE_GPU()                                                           \
  do {                                                                              \
    std::string cdn_why_;                                                           \
    if (!::cdn::cuda_available(&cdn_why_)) GTEST_SKIP() << "needs a CUDA GPU: " << cdn_why_; \
  } while (0)

}  // namespace cdn::test
