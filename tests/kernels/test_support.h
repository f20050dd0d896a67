// test_support.h: helpers shared by the kernels/ tests: owned host planes,
// deterministic random content, byte comparison of host frames, real test
// images, one frame through the front door, and the GPU skip rule.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/plane.h"
#include "cudadenoise/stream_pump.h"

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

// Every sample of every component equal (host frames of one format and size).
// A sinusoidal pattern moving 2 pixels a frame in every component, with
// Gaussian noise of sigma 18 (frame i's noise from seed + i): the GPU stream
// tests' clip.
inline std::vector<HostFrame> moving_noisy_clip(PixelFormat f, int frames, int w, int h, std::uint64_t seed) {
  std::vector<HostFrame> c;
  for (int i = 0; i < frames; ++i) {
    c.emplace_back(f, w, h);
    int k = 0;
    for (const auto& p : components(c.back().view())) {
      const int scale = 1 << (p.bit_depth - 8);
      for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x)
          p.set(x, y, scale * (128 + int(70 * std::sin(0.25 * (x + 2 * i) + 0.15 * y + k))));
      ++k;
    }
    add_gaussian_noise(c.back().view(), 18.0, seed + i);
  }
  return c;
}

inline bool same_samples(const FrameView& a, const FrameView& b) {
  const auto pa = components(a), pb = components(b);
  for (std::size_t c = 0; c < pa.size(); ++c)
    for (int y = 0; y < pa[c].height; ++y)
      for (int x = 0; x < pa[c].width; ++x)
        if (pa[c].get(x, y) != pb[c].get(x, y)) return false;
  return true;
}

// Directory of the real test images (scripts/fetch-test-data.sh).
inline std::string test_data_dir() {
  const char* d = std::getenv("CDN_TEST_DATA");
  return d ? d : ".testdata";
}

// One frame through a stream of its own format and size, for every mode (the
// window of a temporal mode then holds just that frame).
inline void denoise_frame(Backend backend, const DenoiseSettings& s, const FrameView& in, const FrameView& out) {
  auto d = StreamDenoiser::create(backend, s, in.format, in.width, in.height);
  int n = 0;
  FunctionSink sink([&] { return out; }, [&] { return ++n > 0; });
  feed(*d, in, sink);
  drain(*d, sink);
  if (n != 1) throw Error("denoise_frame: " + std::to_string(n) + " frames out for one");
}

// A clip through the front door's loop (feed every frame, then drain): the
// outputs in order. `after_feed`, if given, runs after each feed().
inline std::vector<HostFrame> run_clip(StreamDenoiser& d, const std::vector<HostFrame>& clip,
                                       const std::function<void()>& after_feed = {}) {
  std::vector<HostFrame> out;
  FunctionSink sink(
      [&] {
        out.emplace_back(d.format(), d.width(), d.height());
        return out.back().view();
      },
      [] { return true; });
  for (const HostFrame& f : clip) {
    feed(d, f.view(), sink);
    if (after_feed) after_feed();
  }
  drain(d, sink);
  return out;
}

#define CDN_REQUIRE_GPU()                                                           \
  do {                                                                              \
    std::string cdn_why_;                                                           \
    if (!::cdn::cuda_available(&cdn_why_)) GTEST_SKIP() << "needs a CUDA GPU: " << cdn_why_; \
  } while (0)

}  // namespace cdn::test
