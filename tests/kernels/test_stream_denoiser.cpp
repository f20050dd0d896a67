// test_stream_denoiser.cpp: the front door (stream_denoiser.h) and its loop
// (stream_pump.h) on the CPU backend: per-frame modes through process() and
// through push()/pop() give the same frames; settings apply from the next frame
// or at the next stream start as restarts_stream() (from the parameter table)
// says, with the latency and QoS answers that go with it; a sink that declines a
// frame leaves the rest ready, the next feed() catches them up, drain() drops
// what follows a declined frame.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_pump.h"
#include "test_support.h"

namespace cdn {
namespace {

constexpr int kW = 20, kH = 14;

std::vector<HostFrame> clip(int frames, std::uint64_t seed) {
  std::vector<HostFrame> c;
  for (int i = 0; i < frames; ++i) {
    c.emplace_back(PixelFormat::GRAY8, kW, kH);
    const PlaneView p = components(c.back().view())[0];
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) p.set(x, y, 128 + int(50 * std::sin(0.4 * (x + i) + 0.3 * y)));
    add_gaussian_noise(p, 12.0, seed + i);
  }
  return c;
}

DenoiseSettings nlm(int chunk) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.nlm = nlm_paper_params();  // cubes: the latencies below count their frames
  s.nlm.search_radius = 2;
  s.nlm.temporal_radius = 1;
  s.nlm.patch_radius = 1;
  s.nlm.chunk_size = chunk;
  s.sigma = 12;
  return s;
}

// The frames of `in` through a fresh stream with settings `s`.
std::vector<HostFrame> through(const DenoiseSettings& s, const std::vector<HostFrame>& in) {
  auto d = StreamDenoiser::create(Backend::Cpu, s, PixelFormat::GRAY8, kW, kH);
  return test::run_clip(*d, in);
}

TEST(StreamDenoiser, PerFrameProcessAndPushPopGiveTheSameFrames) {
  const auto in = clip(3, 1);
  auto d = StreamDenoiser::create(Backend::Cpu, DenoiseSettings(), PixelFormat::GRAY8, kW, kH);
  EXPECT_TRUE(d->per_frame());
  EXPECT_TRUE(d->may_drop_frames());
  EXPECT_EQ(d->latency_frames(), 0);
  std::vector<HostFrame> direct;
  for (const auto& f : in) {
    direct.emplace_back(PixelFormat::GRAY8, kW, kH);
    d->process(f.view(), direct.back().view());
  }
  // push() filters into a frame of the stream's own; pop() copies it out, in order.
  for (const auto& f : in) d->push(f.view());
  EXPECT_EQ(d->held(), 3);
  HostFrame out(PixelFormat::GRAY8, kW, kH), other(PixelFormat::GRAY8, kW, kH);
  EXPECT_THROW(d->process(in[0].view(), other.view()), InvalidArgument) << "frames wait: pop them first";
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(d->pop(out.view()));
    EXPECT_TRUE(test::same_samples(out.view(), direct[i].view())) << "frame " << i;
  }
  EXPECT_FALSE(d->pop(out.view()));
  EXPECT_FALSE(test::same_samples(direct[0].view(), in[0].view())) << "the frame was filtered";
}

TEST(StreamDenoiser, PerFrameSettingsApplyFromTheNextFrame) {
  const auto in = clip(1, 2);
  auto d = StreamDenoiser::create(Backend::Cpu, DenoiseSettings(), PixelFormat::GRAY8, kW, kH);
  DenoiseSettings hybrid;
  hybrid.mode = Mode::Hybrid;
  d->set_settings(hybrid);
  EXPECT_EQ(d->settings().mode, Mode::Hybrid);
  HostFrame got(PixelFormat::GRAY8, kW, kH), want(PixelFormat::GRAY8, kW, kH);
  d->process(in[0].view(), got.view());
  test::denoise_frame(Backend::Cpu, hybrid, in[0].view(), want.view());
  EXPECT_TRUE(test::same_samples(got.view(), want.view()));
  DenoiseSettings bad = hybrid;
  bad.pipd.thickness = 2;
  EXPECT_THROW(d->set_settings(bad), InvalidArgument);
  EXPECT_EQ(d->settings().pipd.thickness, 1);
  // Idle: a temporal mode starts at once.
  d->set_settings(nlm(4));
  EXPECT_FALSE(d->per_frame());
  EXPECT_FALSE(d->may_drop_frames());
  EXPECT_EQ(d->latency_frames(), 4 - 1 + 2);
}

TEST(StreamDenoiser, WindowSettingsWaitForTheNextStream) {
  const auto in = clip(9, 3), next = clip(5, 30);
  auto d = StreamDenoiser::create(Backend::Cpu, nlm(3), PixelFormat::GRAY8, kW, kH);
  std::vector<HostFrame> out;
  FunctionSink sink(
      [&] {
        out.emplace_back(PixelFormat::GRAY8, kW, kH);
        return out.back().view();
      },
      [] { return true; });
  for (int i = 0; i < 9; ++i) {
    feed(*d, in[i].view(), sink);
    if (i == 4) {
      // Mid-stream: a longer window and then a per-frame mode wait for the end.
      DenoiseSettings longer = nlm(3);
      longer.nlm.temporal_radius = 2;
      d->set_settings(longer);
      EXPECT_EQ(d->latency_frames(), 3 - 1 + 3) << "the larger of the window in use and the one asked for";
      DenoiseSettings pipd;
      d->set_settings(pipd);
      EXPECT_FALSE(d->per_frame());
      EXPECT_FALSE(d->may_drop_frames()) << "the window still needs every frame";
      EXPECT_EQ(d->settings().mode, Mode::Nlm3d);
    }
  }
  drain(*d, sink);
  ASSERT_EQ(out.size(), 9u);
  const auto want = through(nlm(3), in);
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(test::same_samples(out[i].view(), want[i].view())) << "frame " << i;
  // The stream has ended: the next frame starts a per-frame stream.
  EXPECT_TRUE(d->idle());
  EXPECT_TRUE(d->per_frame());
  EXPECT_EQ(d->latency_frames(), 0);
  out.clear();
  for (const auto& f : next) feed(*d, f.view(), sink);
  const auto want_pipd = through(DenoiseSettings(), next);
  ASSERT_EQ(out.size(), 5u) << "per-frame: every frame out at its feed";
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(test::same_samples(out[i].view(), want_pipd[i].view())) << "frame " << i;
}

TEST(StreamDenoiser, ParametersOfOtherModesDoNotRestartAWindow) {
  auto d = StreamDenoiser::create(Backend::Cpu, nlm(3), PixelFormat::GRAY8, kW, kH);
  const auto in = clip(4, 4);
  for (const auto& f : in) d->push(f.view());
  DenoiseSettings s = nlm(3);
  s.pipd.tmax = 2.5;
  s.bm3d.step = 8;
  d->set_settings(s);
  EXPECT_EQ(d->settings().pipd.tmax, 2.5) << "nothing to wait for: no parameter of nlm3d changed";
  EXPECT_EQ(d->latency_frames(), 3 - 1 + 2);
}

TEST(RestartsStream, DecidedFromTheParameterTable) {
  const DenoiseSettings base = nlm(3);
  for (const ParamSpec& p : param_specs()) {
    DenoiseSettings s = base;
    const double v = p.get(base);
    p.set(s, v + (v + 2 <= p.max ? 2 : -2));
    EXPECT_EQ(restarts_stream(base, s), param_group_applies(p.group, Mode::Nlm3d)) << p.name;
    DenoiseSettings per_frame = s, before = base;
    per_frame.mode = before.mode = Mode::Bm3d;
    EXPECT_FALSE(restarts_stream(before, per_frame)) << p.name << ": per-frame modes take it from the next frame";
  }
  DenoiseSettings luma = base;
  luma.planes = PlaneSelection::Luma;
  EXPECT_TRUE(restarts_stream(base, luma));
  DenoiseSettings pipd;
  EXPECT_TRUE(restarts_stream(base, pipd));
  EXPECT_TRUE(restarts_stream(pipd, base));
  EXPECT_FALSE(restarts_stream(base, base));
}

// A sink that declines one frame (the n-th taken) and takes the others.
struct Declining {
  std::vector<HostFrame> out;
  int decline_at;
  FunctionSink sink{[this] {
                      out.emplace_back(PixelFormat::GRAY8, kW, kH);
                      return out.back().view();
                    },
                    [this] { return static_cast<int>(out.size()) != decline_at; }};
  explicit Declining(int n) : decline_at(n) {}
};

TEST(StreamPump, DeclinedFramesStayReadyAndTheNextFeedCatchesUp) {
  const auto in = clip(10, 5);
  auto d = StreamDenoiser::create(Backend::Cpu, nlm(4), PixelFormat::GRAY8, kW, kH);
  Declining k(1);
  int i = 0;
  while (d->ready() == false && i < 10) feed(*d, in[i++].view(), k.sink);
  // The first chunk (4 frames) became ready at frame 6; the sink took one and declined the rest.
  ASSERT_EQ(k.out.size(), 1u);
  EXPECT_TRUE(d->ready());
  EXPECT_EQ(d->held(), 6 - 1);
  feed(*d, in[i++].view(), k.sink);  // catch-up first, then the push
  EXPECT_EQ(k.out.size(), 4u);
  drain(*d, k.sink);
  while (i < 10) feed(*d, in[i++].view(), k.sink);  // a new stream
  drain(*d, k.sink);
  EXPECT_EQ(k.out.size(), 7u + 3u);
  const auto first = through(nlm(4), clip(7, 5));  // the same first 7 frames
  for (int t = 0; t < 7; ++t) EXPECT_TRUE(test::same_samples(k.out[t].view(), first[t].view())) << "frame " << t;
}

TEST(StreamPump, DrainDropsWhatFollowsADeclinedFrame) {
  const auto in = clip(5, 6);
  auto d = StreamDenoiser::create(Backend::Cpu, nlm(8), PixelFormat::GRAY8, kW, kH);
  Declining k(2);
  for (const auto& f : in) feed(*d, f.view(), k.sink);
  EXPECT_EQ(k.out.size(), 0u);
  EXPECT_EQ(drain(*d, k.sink), 2);
  EXPECT_EQ(k.out.size(), 2u);
  EXPECT_EQ(d->held(), 0);
  EXPECT_TRUE(d->idle());
}

TEST(StreamDenoiser, PushAfterFinishStartsANewStream) {
  const auto in = clip(4, 7);
  auto d = StreamDenoiser::create(Backend::Cpu, nlm(2), PixelFormat::GRAY8, kW, kH);
  HostFrame out(PixelFormat::GRAY8, kW, kH);
  d->push(in[0].view());
  d->push(in[1].view());
  d->finish();
  EXPECT_THROW(d->push(in[2].view()), InvalidArgument) << "the ended stream's frames come first";
  while (d->pop(out.view())) {
  }
  EXPECT_TRUE(d->idle());
  d->push(in[2].view());  // frame 0 of a new stream: a one-frame window at its start
  d->finish();
  ASSERT_TRUE(d->pop(out.view()));
  HostFrame alone(PixelFormat::GRAY8, kW, kH);
  test::denoise_frame(Backend::Cpu, nlm(2), in[2].view(), alone.view());
  EXPECT_TRUE(test::same_samples(out.view(), alone.view()));
}

}  // namespace
}  // namespace cdn
