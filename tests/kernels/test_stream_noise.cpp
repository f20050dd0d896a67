// test_stream_noise.cpp: sigma = auto through the front door (StreamDenoiser,
// CPU backend): every frame is observed by the noise tracker before it is
// filtered, on the tracker's background schedule (noise_tracker.h: frame t is
// filtered with the value through frame t - 2), the denoiser gets strength x
// the tracked sigma (the same output as that sigma given), the estimate
// follows a step of the noise from 5 to 30 mid stream, a clip that opens on black frames is not blurred, and on a clean clip
// the modes that take a sigma keep PSNR >= 40 dB against their input (issue 16
// item 1). Frames: real photos (noise_test_support.h), small for time; crops of
// mixed content (a 160x120 crop of pure grass reads its texture as noise of
// about 6.8: docs/NOISE.md, "What it cannot do").
#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise_tracker.h"
#include "cudadenoise/stream_denoiser.h"
#include "noise_test_support.h"
#include "test_support.h"

namespace cdn {
namespace {

constexpr int kW = 160, kH = 120;

HostFrame frame_of(const test::LumaSource& src, int x0, int y0, double sigma, std::uint64_t seed,
                   PixelFormat f = PixelFormat::GRAY8) {
  HostFrame h(f, kW, kH);
  for (const PlaneView& p : components(h.view())) test::render(test::crop(src, x0, y0, p.width, p.height), sigma, seed, p);
  return h;
}

DenoiseSettings bm3d_auto(double strength = 1.0) {
  DenoiseSettings s;
  s.mode = Mode::Bm3d;
  s.bm3d.profile = Bm3dProfile::Draft;
  s.strength = strength;
  return s;
}

void fill(const FrameView& f, int v) {
  for (const PlaneView& p : components(f))
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) p.set(x, y, v);
}

double luma_psnr(const FrameView& a, const FrameView& b) { return psnr(components(a)[0], components(b)[0]); }

TEST(StreamNoise, AutoSigmaIsTheTrackersEstimateOfEveryFrameTimesStrength) {
  const test::LumaSource camera = test::photo_luma("camera.png");
  for (double strength : {1.0, 1.5}) {
    SCOPED_TRACE(strength);
    auto stream = StreamDenoiser::create(Backend::Cpu, bm3d_auto(strength), PixelFormat::GRAY8, kW, kH);
    NoiseTrackerSettings background;  // the stream's schedule: after frame t, the value through t - 2
    background.background = true;
    background.interval = DenoiseSettings{}.noise_interval;  // and its frames
    NoiseTracker tracker(background);
    for (int t = 0; t < 5; ++t) {
      const HostFrame in = frame_of(camera, 100 + 3 * t, 40, 10, 7 + t);
      HostFrame out(PixelFormat::GRAY8, kW, kH), given_out(PixelFormat::GRAY8, kW, kH);
      tracker.observe(in.view());
      stream->process(in.view(), out.view());
      ASSERT_EQ(stream->noise_sigma().size(), 1u);
      EXPECT_DOUBLE_EQ(stream->noise_sigma()[0], tracker.sigma()[0]) << "frame " << t;
      EXPECT_TRUE(stream->noise_estimated());
      // The same output as that sigma x strength given.
      DenoiseSettings given = bm3d_auto();
      given.sigma = tracker.sigma()[0] * strength;
      auto fixed = StreamDenoiser::create(Backend::Cpu, given, PixelFormat::GRAY8, kW, kH);
      fixed->process(in.view(), given_out.view());
      EXPECT_TRUE(test::same_samples(out.view(), given_out.view())) << "frame " << t;
      EXPECT_NEAR(stream->noise_sigma()[0], 10.0, 1.0) << "frame " << t;
    }
  }
}

TEST(StreamNoise, FollowsAStepFrom5To30MidStream) {
  const test::LumaSource camera = test::photo_luma("camera.png");
  auto stream = StreamDenoiser::create(Backend::Cpu, bm3d_auto(), PixelFormat::GRAY8, kW, kH);
  // The frames measured are those of the default noise-interval k. The step at
  // frame 5 is taken at the second measured frame at 30 (step_frames), and
  // counts from the next measured frame on (the background schedule: at least
  // two frames late): k 4, taken at frame 12, from frame 16 on (k 1: 6, 8).
  const int k = bm3d_auto().noise_interval, first = (5 + k - 1) / k * k, taken = first + k;
  const int counts_from = taken + std::max(k, 2);
  int changes = 0;
  for (int t = 0; t < counts_from + 3; ++t) {
    const double sigma = t < 5 ? 5.0 : 30.0;
    const HostFrame in = frame_of(camera, 100 + 2 * t, 40, sigma, 100 + t);
    const HostFrame clean = frame_of(camera, 100 + 2 * t, 40, 0, 0);
    HostFrame out(PixelFormat::GRAY8, kW, kH);
    stream->process(in.view(), out.view());
    changes += stream->noise_changed();
    const double est = stream->noise_sigma()[0];
    std::printf("frame %d true sigma %4.1f tracked %5.2f  PSNR noisy %.2f denoised %.2f\n", t, sigma, est,
                luma_psnr(in.view(), clean.view()), luma_psnr(out.view(), clean.view()));
    // Frames 5 to counts_from - 1 are filtered at the old sigma.
    if (t == 4 || t == counts_from - 1) {
      EXPECT_NEAR(est, 5.0, 0.5) << "frame " << t;
    }
    if (t >= counts_from) {
      EXPECT_NEAR(est, sigma, 0.1 * sigma) << "frame " << t;
      EXPECT_GT(luma_psnr(out.view(), clean.view()), luma_psnr(in.view(), clean.view()) + 3.0);
    }
  }
  EXPECT_GE(changes, 2) << "the first estimate and the step";
}

TEST(StreamNoise, BlackFirstFramesDoNotBlurTheCleanClipThatFollows) {
  const test::LumaSource camera = test::photo_luma("camera.png");
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::P010_10LE}) {
    SCOPED_TRACE(format_name(f));
    auto stream = StreamDenoiser::create(Backend::Cpu, bm3d_auto(), f, kW, kH);
    for (int t = 0; t < 6; ++t) {
      HostFrame in = t < 3 ? HostFrame(f, kW, kH) : frame_of(camera, 100 + 2 * t, 40, 0, 0, f);
      if (t < 3) fill(in.view(), 0);
      HostFrame out(f, kW, kH);
      stream->process(in.view(), out.view());
      const std::vector<double> s = stream->noise_sigma();
      for (double v : s) EXPECT_GE(v, 0.5) << "never 0: frame " << t;
      if (t < 3) {
        EXPECT_DOUBLE_EQ(s[0], 0.5) << "no information yet: the floor";
      }
      const double db = luma_psnr(out.view(), in.view());
      std::printf("%s frame %d sigma %.2f  PSNR against the input %.1f dB\n", format_name(f), t, s[0], db);
      EXPECT_GE(db, 40.0) << "frame " << t;
    }
  }
}

TEST(StreamNoise, CleanClipEveryModeWithAutoSigmaKeepsTheInput) {
  const test::LumaSource astronaut = test::photo_luma("astronaut.png");
  for (Mode m : all_modes()) {
    if (!uses_sigma(m)) continue;  // pipd and hybrid take no sigma
    SCOPED_TRACE(mode_name(m));
    DenoiseSettings s;
    s.mode = m;
    s.bm3d.profile = Bm3dProfile::Rapid;
    s.nlm.temporal_radius = 1;
    s.nlm.chunk_size = 2;
    auto stream = StreamDenoiser::create(Backend::Cpu, s, PixelFormat::GRAY8, kW, kH);
    std::vector<HostFrame> inputs;
    for (int t = 0; t < 4; ++t) inputs.push_back(frame_of(astronaut, 180 + 2 * t, 80, 0, 0));
    int t_out = 0;
    auto check_out = [&](const HostFrame& out) {
      const double db = luma_psnr(out.view(), inputs[t_out].view());
      std::printf("%s clean frame %d: %.1f dB against the input (sigma %.2f)\n", mode_name(m), t_out, db,
                  stream->noise_sigma()[0]);
      EXPECT_GE(db, 40.0) << "frame " << t_out;
      ++t_out;
    };
    for (const HostFrame& in : inputs) {
      stream->push(in.view());
      for (HostFrame out(PixelFormat::GRAY8, kW, kH); stream->pop(out.view());) check_out(out);
    }
    stream->finish();
    for (HostFrame out(PixelFormat::GRAY8, kW, kH); stream->pop(out.view());) check_out(out);
    EXPECT_EQ(t_out, 4);
  }
}

TEST(StreamNoise, AGivenSigmaIsUsedAsItIs) {
  DenoiseSettings s = bm3d_auto();
  s.sigma = 7;
  auto stream = StreamDenoiser::create(Backend::Cpu, s, PixelFormat::NV12, kW, kH);
  HostFrame in(PixelFormat::NV12, kW, kH), out(PixelFormat::NV12, kW, kH);
  fill(in.view(), 128);
  stream->process(in.view(), out.view());
  EXPECT_EQ(stream->noise_sigma(), std::vector<double>(3, 7.0));
  EXPECT_FALSE(stream->noise_estimated());
  EXPECT_FALSE(stream->noise_changed());
  s.mode = Mode::Pipd;
  stream->set_settings(s);
  EXPECT_TRUE(stream->noise_sigma().empty()) << "pipd takes no sigma";
}

}  // namespace
}  // namespace cdn
