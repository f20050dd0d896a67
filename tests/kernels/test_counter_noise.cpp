// test_counter_noise.cpp: the counter-based AWGN on the CPU (kernels/include/cudadenoise/counter_noise.h):
// Philox4x32 against the authors' known-answer vectors; the Gaussian deviates'
// moments, tails and independence; every format's output against the documented
// formula written out again here with the standard library; what must not
// change the noise (pitch, layout, threads, in place) and what must (seed,
// component, frame); clamping, P010's padding bits, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cudadenoise/counter_noise.h"
#include "noise/counter_noise_sample.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "noise/philox.h"
#include "test_support.h"

namespace cdn {
namespace {

// ---- Philox4x32 ------------------------------------------------------------------

struct Kat {
  int rounds;
  Philox4x32 counter;
  std::uint32_t key0, key1;
  Philox4x32 expected;
};

// Random123's tests/kat_vectors (D. E. Shaw Research), the philox4x32 lines:
// counter (4 words), key (2 words), expected output (4 words).
const Kat kKats[] = {
    {10, {{0x00000000, 0x00000000, 0x00000000, 0x00000000}}, 0x00000000, 0x00000000,
     {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
    {10, {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, 0xffffffff, 0xffffffff,
     {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
    {10, {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0,
     {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
    {7, {{0x00000000, 0x00000000, 0x00000000, 0x00000000}}, 0x00000000, 0x00000000,
     {{0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}}},
    {7, {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, 0xffffffff, 0xffffffff,
     {{0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}}},
    {7, {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0,
     {{0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}}},
};

TEST(Philox4x32, KnownAnswerVectors) {
  for (const Kat& k : kKats) {
    const Philox4x32 got = k.rounds == 10 ? philox4x32<10>(k.counter, k.key0, k.key1)
                                          : philox4x32<7>(k.counter, k.key0, k.key1);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(got.v[i], k.expected.v[i]) << k.rounds << " rounds, counter word " << k.counter.v[0] << ", word " << i;
  }
}

TEST(Philox4x32, EveryCounterWordAndKeyWordMatters) {
  const Philox4x32 base{{1, 2, 3, 4}};
  const Philox4x32 ref = philox4x32(base, 5, 6);
  for (int w = 0; w < 6; ++w) {
    Philox4x32 c = base;
    std::uint32_t k0 = 5, k1 = 6;
    if (w < 4) c.v[w] ^= 1u;
    else (w == 4 ? k0 : k1) ^= 1u;
    const Philox4x32 got = philox4x32(c, k0, k1);
    int same = 0;
    for (int i = 0; i < 4; ++i) same += got.v[i] == ref.v[i];
    EXPECT_EQ(same, 0) << "input word " << w;
  }
}

// ---- uniforms and Gaussians ------------------------------------------------------

TEST(CounterNoise, UniformIsOpenAndExact) {
  EXPECT_EQ(counter_uniform(0), std::ldexp(1.0, -33));
  EXPECT_EQ(counter_uniform(0xffffffffu), 1.0 - std::ldexp(1.0, -33));
  EXPECT_EQ(counter_uniform(0x80000000u), 0.5 + std::ldexp(1.0, -33));
}

TEST(CounterNoise, GaussianMomentsTailsAndIndependence) {
  const int blocks = 1 << 18;  // 2^20 deviates
  double sum = 0, sum2 = 0, sum4 = 0, lane_cross = 0, pair_cross = 0, max_abs = 0;
  long long over[4] = {0, 0, 0, 0};  // |z| > 1, 2, 3, 4
  for (int b = 0; b < blocks; ++b) {
    const Gaussian4 g = counter_gaussians(12345, 0, static_cast<std::uint64_t>(b));
    for (double z : g.z) {
      sum += z;
      sum2 += z * z;
      sum4 += z * z * z * z;
      max_abs = std::max(max_abs, std::abs(z));
      for (int k = 0; k < 4; ++k) over[k] += std::abs(z) > k + 1;
    }
    lane_cross += g.z[0] * g.z[1] + g.z[2] * g.z[3];  // cos and sin of one pair
    pair_cross += g.z[0] * g.z[2] + g.z[1] * g.z[3];  // the two pairs of a block
  }
  const double n = 4.0 * blocks;
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_LT(std::abs(mean), 5 / std::sqrt(n));
  EXPECT_LT(std::abs(var - 1), 5 * std::sqrt(2 / n));
  EXPECT_LT(std::abs(sum4 / n - 3), 5 * std::sqrt(96 / n));  // kurtosis 3; var(z^4) = 96
  EXPECT_LT(std::abs(lane_cross / (n / 2)), 5 / std::sqrt(n / 2));
  EXPECT_LT(std::abs(pair_cross / (n / 2)), 5 / std::sqrt(n / 2));
  const double tail[4] = {0.31731050786291415, 0.04550026389635842, 0.0026997960632601866, 6.334248366623996e-05};
  for (int k = 0; k < 4; ++k)
    EXPECT_LT(std::abs(over[k] / n - tail[k]), 5 * std::sqrt(tail[k] * (1 - tail[k]) / n) + 1 / n) << "|z| > " << k + 1;
  EXPECT_LE(max_abs, std::sqrt(66 * std::log(2.0)) + 1e-12);  // the cut at u = 2^-33
}

// ---- frames ---------------------------------------------------------------------

// A host frame with a pitch of our choosing (row bytes + pad), filled with a
// ramp in every component.
struct PitchedFrame {
  std::vector<std::vector<std::uint8_t>> planes;
  FrameView view;
  PitchedFrame(PixelFormat f, int w, int h, int pad) {
    view.format = f;
    view.width = w;
    view.height = h;
    const int n = format_info(f).planes;
    planes.resize(n);
    for (int p = 0; p < n; ++p) {
      view.pitch[p] = static_cast<std::size_t>(plane_row_bytes(f, w, p) + pad);
      planes[p].assign(view.pitch[p] * plane_height(f, h, p), 0x5A);
      view.data[p] = planes[p].data();
    }
  }
};

void fill_picture(const FrameView& f) {
  int c = 0;
  for (const PlaneView& p : components(f)) {
    test::fill_random(p, 100 + c);
    ++c;
  }
}

void copy_samples(const FrameView& from, const FrameView& to) {
  const auto a = components(from), b = components(to);
  for (std::size_t c = 0; c < a.size(); ++c)
    for (int y = 0; y < a[c].height; ++y)
      for (int x = 0; x < a[c].width; ++x) b[c].set(x, y, a[c].get(x, y));
}

// Samples (value, shift removed) that differ between two frames of one geometry.
long long differing(const FrameView& a, const FrameView& b) {
  long long n = 0;
  const auto ca = components(a), cb = components(b);
  for (std::size_t c = 0; c < ca.size(); ++c)
    for (int y = 0; y < ca[c].height; ++y)
      for (int x = 0; x < ca[c].width; ++x) n += ca[c].get(x, y) != cb[c].get(x, y);
  return n;
}

// The documented formula (counter_noise_sample.h), written out again with the
// standard library: sample i of component c.
int formula(std::uint64_t seed, int c, std::uint64_t i, int value, double sigma, int depth) {
  const std::uint64_t b = i / 4;
  const Philox4x32 w = philox4x32<10>(Philox4x32{{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32),
                                                  static_cast<std::uint32_t>(c), 0u}},
                                      static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  const int pair = static_cast<int>(i % 4) / 2;
  const double u_r = (w.v[2 * pair] + 0.5) / 4294967296.0, u_theta = (w.v[2 * pair + 1] + 0.5) / 4294967296.0;
  const double r = std::sqrt(-2 * std::log(u_r)), theta = 2 * M_PI * u_theta;
  const double z = i % 2 == 0 ? r * std::cos(theta) : r * std::sin(theta);
  const double t = std::floor(std::fma(sigma * std::pow(2.0, depth - 8), z, value + 0.5));
  return static_cast<int>(std::clamp(t, 0.0, std::pow(2.0, depth) - 1));
}

const PixelFormat kFormats[] = {PixelFormat::GRAY8, PixelFormat::GRAY16_LE, PixelFormat::NV12, PixelFormat::I420,
                                PixelFormat::P010_10LE, PixelFormat::P016_LE, PixelFormat::Y444};

TEST(CounterNoise, EveryFormatFollowsTheFormula) {
  for (PixelFormat f : kFormats) {
    SCOPED_TRACE(format_name(f));
    const int w = 37, h = 23;  // odd: rows start and end inside Philox blocks
    HostFrame in(f, w, h), out(f, w, h);
    fill_picture(in.view());
    const std::uint64_t seed = 0x0123456789abcdefull;
    add_counter_noise(in.view(), out.view(), 17.5, seed);
    const auto ci = components(in.view()), co = components(out.view());
    long long wrong = 0, changed = 0;
    for (int c = 0; c < static_cast<int>(ci.size()); ++c)
      for (int y = 0; y < ci[c].height; ++y)
        for (int x = 0; x < ci[c].width; ++x) {
          const std::uint64_t i = static_cast<std::uint64_t>(y) * ci[c].width + x;
          const int want = formula(seed, c, i, ci[c].get(x, y), 17.5, ci[c].bit_depth);
          wrong += co[c].get(x, y) != want;
          changed += co[c].get(x, y) != ci[c].get(x, y);
        }
    EXPECT_EQ(wrong, 0);
    EXPECT_GT(changed, 0);
  }
}

// Flat mid-grey: per component, the noise has mean 0 and the standard deviation
// of sigma scaled to the depth (plus the rounding's 1/12), neighbours and
// components uncorrelated.
TEST(CounterNoise, FrameNoiseStatistics) {
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::Y444}) {
    SCOPED_TRACE(format_name(f));
    const int w = 640, h = 480;
    const double sigma = 10;
    HostFrame in(f, w, h), out(f, w, h);
    const auto ci = components(in.view());
    for (const PlaneView& p : ci)
      for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x) p.set(x, y, (p.max_value() + 1) / 2);
    add_counter_noise(in.view(), out.view(), sigma, 7);
    const auto co = components(out.view());
    std::vector<std::vector<double>> noise(co.size());
    for (std::size_t c = 0; c < co.size(); ++c) {
      const PlaneView& p = co[c];
      const double mid = (p.max_value() + 1) / 2;
      double sum = 0, sum2 = 0, lag = 0;
      for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x) {
          const double e = p.get(x, y) - mid;
          noise[c].push_back(e);
          sum += e;
          sum2 += e * e;
          if (x > 0) lag += e * (p.get(x - 1, y) - mid);
        }
      const double n = static_cast<double>(noise[c].size());
      const double s = std::ldexp(sigma, p.bit_depth - 8);
      const double want_sd = std::sqrt(s * s + 1.0 / 12);
      const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
      EXPECT_LT(std::abs(mean), 5 * s / std::sqrt(n)) << "component " << c;
      EXPECT_LT(std::abs(sd - want_sd), 5 * want_sd / std::sqrt(2 * n)) << "component " << c;
      EXPECT_LT(std::abs(lag / (n - p.height) / (sd * sd)), 5 / std::sqrt(n)) << "component " << c;
    }
    for (std::size_t c = 1; c < co.size(); ++c) {  // U against V, and Y's first samples against U
      const std::vector<double>& a = noise[c - 1];
      const std::vector<double>& b = noise[c];
      const std::size_t n = std::min(a.size(), b.size());
      double cross = 0, aa = 0, bb = 0;
      for (std::size_t i = 0; i < n; ++i) {
        cross += a[i] * b[i];
        aa += a[i] * a[i];
        bb += b[i] * b[i];
      }
      EXPECT_LT(std::abs(cross / std::sqrt(aa * bb)), 5 / std::sqrt(double(n))) << "components " << c - 1 << ", " << c;
    }
  }
}

TEST(CounterNoise, PitchLayoutThreadsAndInPlaceChangeNothing) {
  for (PixelFormat f : kFormats) {
    SCOPED_TRACE(format_name(f));
    const int w = 65, h = 31;
    HostFrame in(f, w, h), ref(f, w, h);
    fill_picture(in.view());
    add_counter_noise(in.view(), ref.view(), 25, 99, 1);
    for (int threads : {0, 2, 7}) {
      HostFrame out(f, w, h);
      add_counter_noise(in.view(), out.view(), 25, 99, threads);
      EXPECT_EQ(differing(ref.view(), out.view()), 0) << threads << " threads";
    }
    PitchedFrame padded(f, w, h, 40);
    copy_samples(in.view(), padded.view);
    add_counter_noise(padded.view, padded.view, 25, 99);  // in place, another pitch
    EXPECT_EQ(differing(ref.view(), padded.view), 0);
  }
  // NV12 and I420 of one picture: the same noise per component.
  HostFrame nv12(PixelFormat::NV12, 64, 48), i420(PixelFormat::I420, 64, 48);
  fill_picture(nv12.view());
  copy_samples(nv12.view(), i420.view());
  add_counter_noise(nv12.view(), nv12.view(), 20, 5);
  add_counter_noise(i420.view(), i420.view(), 20, 5);
  EXPECT_EQ(differing(nv12.view(), i420.view()), 0);
}

TEST(CounterNoise, SeedAndComponentChangeTheNoise) {
  const int w = 128, h = 64;
  HostFrame in(PixelFormat::Y444, w, h);  // three full-size components of one value
  for (const PlaneView& p : components(in.view()))
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) p.set(x, y, 128);
  auto noisy = [&](std::uint64_t seed) {
    auto f = std::make_unique<HostFrame>(PixelFormat::Y444, w, h);
    add_counter_noise(in.view(), f->view(), 20, seed);
    return f;
  };
  const auto a = noisy(1), b = noisy(2), c = noisy(1 + (std::uint64_t{1} << 32)), again = noisy(1);
  EXPECT_EQ(differing(a->view(), again->view()), 0);
  const long long n = 3LL * w * h;
  // Two independent roundings of N(128, 20) agree with probability ~ 1 / (2 sqrt(pi) 20) = 1.4 %.
  EXPECT_GT(differing(a->view(), b->view()), n * 9 / 10) << "seed + 1";
  EXPECT_GT(differing(a->view(), c->view()), n * 9 / 10) << "the seed's high word";
  const auto comps = components(a->view());
  long long same_yu = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) same_yu += comps[0].get(x, y) == comps[1].get(x, y);
  EXPECT_LT(same_yu, w * h / 10) << "Y and U must not share their noise";
}

TEST(CounterNoise, ZeroSigmaIsTheIdentityAndClampingHolds) {
  HostFrame in(PixelFormat::P010_10LE, 40, 20), out(PixelFormat::P010_10LE, 40, 20);
  fill_picture(in.view());
  add_counter_noise(in.view(), out.view(), 0, 3);
  EXPECT_EQ(differing(in.view(), out.view()), 0);

  HostFrame black(PixelFormat::GRAY8, 200, 100), white(PixelFormat::GRAY8, 200, 100);
  const PlaneView b = components(black.view())[0], wh = components(white.view())[0];
  for (int y = 0; y < 100; ++y)
    for (int x = 0; x < 200; ++x) {
      b.set(x, y, 0);
      wh.set(x, y, 255);
    }
  add_counter_noise(black.view(), black.view(), 50, 4);
  add_counter_noise(white.view(), white.view(), 50, 4);
  long long zeros = 0, tops = 0;
  for (int y = 0; y < 100; ++y)
    for (int x = 0; x < 200; ++x) {
      zeros += b.get(x, y) == 0;
      tops += wh.get(x, y) == 255;
    }
  // Half of the noise is negative (clamped to 0), plus the rounding's (-0.5, 0.5) band.
  EXPECT_NEAR(zeros / 20000.0, 0.504, 0.02);
  EXPECT_NEAR(tops / 20000.0, 0.504, 0.02);
}

TEST(CounterNoise, P010PaddingBitsStayZero) {
  HostFrame in(PixelFormat::P010_10LE, 34, 18), out(PixelFormat::P010_10LE, 34, 18);
  for (int p = 0; p < 2; ++p) {  // values with garbage in the 6 padding bits
    auto* row0 = static_cast<std::uint8_t*>(in.view().data[p]);
    for (int y = 0; y < plane_height(PixelFormat::P010_10LE, 18, p); ++y) {
      auto* s = reinterpret_cast<std::uint16_t*>(row0 + y * in.view().pitch[p]);
      for (int x = 0; x < 34; ++x) s[x] = static_cast<std::uint16_t>(((x * 29 + y * 7) % 1024) << 6 | 0x2B);
    }
  }
  add_counter_noise(in.view(), out.view(), 30, 8);
  long long dirty = 0;
  for (int p = 0; p < 2; ++p) {
    const auto* row0 = static_cast<const std::uint8_t*>(out.view().data[p]);
    for (int y = 0; y < plane_height(PixelFormat::P010_10LE, 18, p); ++y) {
      const auto* s = reinterpret_cast<const std::uint16_t*>(row0 + y * out.view().pitch[p]);
      for (int x = 0; x < 34; ++x) dirty += (s[x] & 0x3F) != 0;
    }
  }
  EXPECT_EQ(dirty, 0);
}

TEST(CounterNoise, ClearErrors) {
  HostFrame a(PixelFormat::NV12, 32, 16), b(PixelFormat::NV12, 32, 16), c(PixelFormat::I420, 32, 16),
      d(PixelFormat::NV12, 34, 16);
  EXPECT_THROW(add_counter_noise(a.view(), b.view(), -1, 0), InvalidArgument);
  EXPECT_THROW(add_counter_noise(a.view(), b.view(), std::numeric_limits<double>::quiet_NaN(), 0), InvalidArgument);
  EXPECT_THROW(add_counter_noise(a.view(), b.view(), std::numeric_limits<double>::infinity(), 0), InvalidArgument);
  EXPECT_THROW(add_counter_noise(a.view(), c.view(), 5, 0), InvalidArgument);
  EXPECT_THROW(add_counter_noise(a.view(), d.view(), 5, 0), InvalidArgument);
  FrameView dev = a.view();
  dev.memory = MemoryKind::Device;
  EXPECT_THROW(add_counter_noise(dev, dev, 5, 0), InvalidArgument);
#ifndef CDN_HAVE_CUDA
  EXPECT_THROW(CounterNoiseCuda::create(), Error);
#endif
}

}  // namespace
}  // namespace cdn
