// test_stream_stabilized.cpp: the variance-stabilising stage in the stream
// (issue 37 item 2; stream/noise_stage.h, noise/stabilizing_tables.h), CPU
// backend: the tables (monotone, inverse of the forward within a code where the
// counts are large, the stabilised noise of one std at every intensity, 10-bit
// and unfiltered components), the model's settings and their conflicts, the
// flat model (given or estimated from white noise) giving today's bytes,
// push/pop giving process()'s bytes, luma-only leaving chroma, and the given
// model's report. What the transform gains in quality is measured by
// test_stream_stabilized_quality.cpp (suite 'slow').
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise_profile.h"
#include "cudadenoise/stream_denoiser.h"
#include "noise/stabilizing_tables.h"
#include "stabilized_test_support.h"
#include "test_support.h"

namespace cdn {
namespace {

using test::clean_frame;
using test::noisy_copy;
using test::process;
using test::stream_psnr;
using test::with_signal_model;
using test::estimated_signal_model;
constexpr int kW = test::kStabilizedW, kH = test::kStabilizedH;

// These tests compare bytes along two paths, which any profile shows: BM3D's
// rapid profile (the product's default) keeps them quick, where the paper's
// (DenoiseSettings' default, the quality suite's) is about six times slower.
DenoiseSettings bm3d(double sigma = 0) {
  DenoiseSettings s = test::bm3d(sigma);
  s.bm3d.profile = Bm3dProfile::Rapid;
  return s;
}

NoiseModel affine(double a, double b) {
  NoiseModel m;
  m.a = a;
  m.b = b;
  m.usable = true;
  return m;
}

TEST(StabilizingTables, FlatModelIsTheIdentityWithItsSigma) {
  const StabilizingTables t(PixelFormat::GRAY8, NoiseModelKind::Signal, {affine(0, 49)}, {true});
  EXPECT_TRUE(t.identity());
  ASSERT_EQ(t.sigma().size(), 1u);
  EXPECT_DOUBLE_EQ(t.sigma()[0], 7.0);
}

TEST(StabilizingTables, MonotoneAndInverseOfTheForwardWhereCountsAreLarge) {
  for (const PixelFormat f : {PixelFormat::GRAY8, PixelFormat::P010_10LE}) {
    const StabilizingTables t(f, NoiseModelKind::Signal,
                              std::vector<NoiseModel>(format_info(f).components, affine(0.5, 4)),
                              std::vector<bool>(format_info(f).components, true));
    ASSERT_FALSE(t.identity());
    const ComponentTables& c = t.components()[0];
    const int max_code = (1 << format_info(f).bit_depth) - 1;
    ASSERT_EQ(static_cast<int>(c.forward.size()), max_code + 1);
    EXPECT_EQ(c.forward.front(), 0);
    EXPECT_EQ(c.forward.back(), max_code);  // the range fills the code values
    for (int x = 1; x <= max_code; ++x) {
      ASSERT_GE(c.forward[x], c.forward[x - 1]) << format_name(f) << " x " << x;
      ASSERT_GE(c.inverse[x], c.inverse[x - 1]) << format_name(f) << " d " << x;
    }
    // From 64 (8-bit) up the unbiased inverse's correction is below half a code.
    const int step = std::max(1, max_code / 255);
    for (int x = 64 * step; x <= max_code - 8 * step; x += step)
      EXPECT_NEAR(c.inverse[c.forward[x]], x, 1.0 * step) << format_name(f) << " x " << x;
  }
}

TEST(StabilizingTables, StabilisedNoiseHasOneStdAtEveryIntensity) {
  const double a = 0.5, b = 4;
  const StabilizingTables t(PixelFormat::GRAY8, NoiseModelKind::Signal, {affine(a, b)}, {true});
  const ComponentTables& c = t.components()[0];
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0.0, 1.0);
  for (const double level : {24.0, 64.0, 128.0, 200.0}) {
    double s = 0, s2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const long v = std::clamp(std::lround(level + std::sqrt(a * level + b) * z(rng)), 0L, 255L);
      const double d = c.forward[v];
      s += d;
      s2 += d * d;
    }
    const double sd = std::sqrt(s2 / n - (s / n) * (s / n));
    // Gaussian (not Poisson) noise of that variance: the GAT stabilises it to
    // within a few % from level 24 up; rounding adds 1/12 code^2 on both sides.
    EXPECT_NEAR(sd / t.sigma()[0], 1.0, 0.05) << "level " << level;
  }
}

TEST(StabilizingTables, UnfilteredComponentsPassThrough) {
  const auto filtered = filtered_components(PixelFormat::NV12, PlaneSelection::Luma);
  ASSERT_EQ(filtered, (std::vector<bool>{true, false, false}));
  const StabilizingTables t(PixelFormat::NV12, NoiseModelKind::Signal, std::vector<NoiseModel>(3, affine(0.5, 4)),
                            filtered);
  EXPECT_FALSE(t.components()[0].identity);
  EXPECT_TRUE(t.components()[1].identity);
  EXPECT_TRUE(t.components()[2].identity);
}

TEST(StabilizingTables, FlatCurveIsTheIdentity) {
  NoiseModel m;
  m.levels = {{40, 25.0, 1000}, {200, 25.2, 1000}};
  m.usable = true;
  EXPECT_TRUE(StabilizingTables(PixelFormat::GRAY8, NoiseModelKind::Curve, {m}, {true}).identity());
  m.levels[1].variance = 100;
  EXPECT_FALSE(StabilizingTables(PixelFormat::GRAY8, NoiseModelKind::Curve, {m}, {true}).identity());
}

TEST(NoiseModelSettings, ConflictsAreNamed) {
  DenoiseSettings s = bm3d();
  s.noise_a = 0.5;
  s.noise_b = 4;
  EXPECT_THROW(validate(s), InvalidArgument);  // a and b with the constant model
  s.noise_model = NoiseModelKind::Signal;
  EXPECT_NO_THROW(validate(s));
  s.sigma = 10;
  EXPECT_THROW(validate(s), InvalidArgument);  // sigma is the constant model's
  s.sigma = 0;
  s.noise_a = -1;  // auto a, given b
  EXPECT_THROW(validate(s), InvalidArgument);
  s.noise_a = 0;
  s.noise_b = -1;  // no noise anywhere
  EXPECT_THROW(validate(s), InvalidArgument);
  s.noise_a = 0.5;
  s.noise_b = 4;
  s.noise_model = NoiseModelKind::Curve;
  EXPECT_THROW(validate(s), InvalidArgument);
  double v = 0;
  const ParamSpec* p = find_param("noise-model");
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(param_value_from_text(*p, "signal", &v));
  EXPECT_EQ(v, 1);
  ASSERT_TRUE(param_value_from_text(*find_param("noise-a"), "auto", &v));
  EXPECT_EQ(v, -1);
}

TEST(NoiseModelSettings, AProfileNeedsAModelForEveryComponent) {
  auto profile = std::make_shared<NoiseProfile>();
  profile->planes = {affine(0.5, 4)};
  DenoiseSettings s = bm3d();
  s.noise_model = NoiseModelKind::Signal;
  s.noise_profile = profile;
  EXPECT_THROW(StreamDenoiser::create(Backend::Cpu, s, PixelFormat::NV12, kW, kH), InvalidArgument);
  EXPECT_NO_THROW(StreamDenoiser::create(Backend::Cpu, s, PixelFormat::GRAY8, kW, kH));
}

TEST(StreamStabilized, FlatSignalModelGivesTheConstantModelsBytes) {
  const HostFrame clean = clean_frame(test::photo_luma("astronaut.png"), PixelFormat::NV12);
  const HostFrame noisy = noisy_copy(clean.view(), 0, 100, 3);
  const HostFrame constant = process(bm3d(10), noisy.view());
  const HostFrame flat = process(with_signal_model(bm3d(), 0, 100), noisy.view());
  EXPECT_TRUE(test::same_samples(constant.view(), flat.view()));
}

TEST(StreamStabilized, PushPopGivesProcessBytesAndTagsInOrder) {
  const HostFrame clean = clean_frame(test::photo_luma("coffee.png"), PixelFormat::I420);
  const DenoiseSettings s = with_signal_model(bm3d(), 0.5, 4);
  auto d = StreamDenoiser::create(Backend::Cpu, s, PixelFormat::I420, kW, kH);
  std::vector<HostFrame> in;
  for (int i = 0; i < 3; ++i) in.push_back(noisy_copy(clean.view(), 0.5, 4, 20 + i));
  for (int i = 0; i < 3; ++i) {
    d->push(in[i].view(), nullptr, std::make_shared<int>(i));
    HostFrame out(PixelFormat::I420, kW, kH);
    FrameTag tag;
    ASSERT_TRUE(d->pop(out.view(), nullptr, &tag));
    EXPECT_EQ(*std::static_pointer_cast<int>(tag), i);
    EXPECT_TRUE(test::same_samples(out.view(), process(s, in[i].view()).view())) << "frame " << i;
  }
}

TEST(StreamStabilized, LumaOnlyLeavesChromaBytes) {
  const HostFrame clean = clean_frame(test::photo_luma("chelsea.png"), PixelFormat::NV12);
  const HostFrame noisy = noisy_copy(clean.view(), 0.5, 4, 5);
  DenoiseSettings s = with_signal_model(bm3d(), 0.5, 4);
  s.planes = PlaneSelection::Luma;
  const HostFrame out = process(s, noisy.view());
  const auto pn = components(noisy.view()), po = components(out.view());
  for (std::size_t c = 1; c < 3; ++c)
    for (int y = 0; y < pn[c].height; ++y)
      for (int x = 0; x < pn[c].width; ++x) ASSERT_EQ(po[c].get(x, y), pn[c].get(x, y)) << c;
}

TEST(StreamStabilized, EstimatedModelOnWhiteNoiseGivesTheConstantModelsBytes) {
  const HostFrame clean = clean_frame(test::photo_luma("coffee.png"), PixelFormat::NV12);
  std::vector<HostFrame> constant, estimated;
  stream_psnr(bm3d(), clean.view(), 0, 64, 6, 0, &constant);
  stream_psnr(estimated_signal_model(bm3d()), clean.view(), 0, 64, 6, 0, &estimated);
  for (int t = 0; t < 6; ++t) EXPECT_TRUE(test::same_samples(constant[t].view(), estimated[t].view())) << "frame " << t;
}

TEST(StreamStabilized, AGivenModelIsReportedOnceAndItsSigmaIsAtMidGrey) {
  const HostFrame clean = clean_frame(test::photo_luma("coffee.png"), PixelFormat::GRAY8);
  auto d = StreamDenoiser::create(Backend::Cpu, with_signal_model(bm3d(), 0.5, 4), PixelFormat::GRAY8, kW, kH);
  HostFrame out(PixelFormat::GRAY8, kW, kH);
  EXPECT_FALSE(d->noise_changed());  // no frame yet
  for (int t = 0; t < 3; ++t) {
    d->process(noisy_copy(clean.view(), 0.5, 4, t).view(), out.view());
    EXPECT_EQ(d->noise_changed(), t == 0) << "frame " << t;
  }
  ASSERT_EQ(d->noise_models().size(), 1u);
  EXPECT_EQ(d->noise_models()[0].a, 0.5);
  EXPECT_DOUBLE_EQ(d->noise_sigma()[0], std::sqrt(0.5 * 128 + 4));
  EXPECT_FALSE(d->noise_estimated());
}

}  // namespace
}  // namespace cdn
