// test_vbm3d_stream.cpp: the video mode `vbm3d` through the front door
// (stream_denoiser.h) on the CPU backend. Centred window: frames out equal
// frames in, and every output frame equals the V-BM3D reference over the whole
// clip whatever the chunk size (the output does not depend on chunk borders),
// with and without motion, gray and NV12. Causal window (window=causal): the
// latency is 0 frames, each frame comes out at the push that brought it, it
// equals the reference's causal V-BM3D over the frames up to it, and changing
// later frames changes nothing before them. Flush (reset) mid-stream, then the
// clip again, gives a fresh stream's output; the end of the stream drains.
#include <gtest/gtest.h>

#include <vector>

#include "cudadenoise/stream_pump.h"
#include "test_support.h"
#include "vbm3d/vbm3d_reference.h"
#include "video_support.h"

namespace cdn {
namespace {

DenoiseSettings vbm3d(int chunk, bool causal = false) {
  DenoiseSettings s;
  s.mode = Mode::Vbm3d;
  s.vbm3d.radius = 2;
  s.vbm3d.window = 7;
  s.vbm3d.step = 4;
  s.vbm3d.chunk = chunk;
  if (causal) s.window = TemporalWindow::Causal;
  s.sigma = 20;
  return s;
}

std::vector<HostFrame> through(const DenoiseSettings& s, const std::vector<HostFrame>& in) {
  const FrameView& v = in[0].view();
  auto d = StreamDenoiser::create(Backend::Cpu, s, v.format, v.width, v.height);
  return test::run_clip(*d, in);
}

// The reference over frames [0, last] of the clip, output frame t.
HostFrame reference_frame(const DenoiseSettings& s, const std::vector<HostFrame>& in, int last, int t) {
  std::vector<FrameView> window;
  for (int f = 0; f <= last; ++f) window.push_back(in[f].view());
  const FrameView& v = in[0].view();
  HostFrame out(v.format, v.width, v.height);
  const int nc = format_info(v.format).components;
  vbm3d_frame_reference(window, t, out.view(), nc, vbm3d_params(s.vbm3d, s.window == TemporalWindow::Causal), std::vector<double>(nc, s.sigma));
  return out;
}

test::TestClip moving(PixelFormat f, int frames, std::uint64_t seed) {
  return test::moving_clip(test::load_photo_444("astronaut.png"), f, 100, 120, 48, 32, frames, 3, -2, 20, seed);
}

TEST(Vbm3dStream, CentredOutputIsTheReferenceForAnyChunk) {
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12}) {
    const test::TestClip clip = moving(f, 9, 5);
    const int n = static_cast<int>(clip.noisy.size());
    std::vector<HostFrame> want;
    for (int t = 0; t < n; ++t) want.push_back(reference_frame(vbm3d(1), clip.noisy, n - 1, t));
    for (int chunk : {1, 2, 4, 50}) {
      const std::vector<HostFrame> out = through(vbm3d(chunk), clip.noisy);
      ASSERT_EQ(out.size(), clip.noisy.size()) << "frames out == frames in, chunk " << chunk;
      for (int t = 0; t < n; ++t)
        EXPECT_TRUE(test::same_samples(out[t].view(), want[t].view())) << format_name(f) << " chunk " << chunk << " frame " << t;
    }
  }
}

TEST(Vbm3dStream, MotionOffAndOnePhaseGoThroughTheStreamToo) {
  const test::TestClip clip = moving(PixelFormat::GRAY8, 6, 9);
  DenoiseSettings s = vbm3d(2);
  s.vbm3d.motion = 0;
  s.vbm3d.phases = 1;
  const std::vector<HostFrame> out = through(s, clip.noisy);
  ASSERT_EQ(out.size(), 6u);
  for (int t = 0; t < 6; ++t) EXPECT_TRUE(test::same_samples(out[t].view(), reference_frame(s, clip.noisy, 5, t).view())) << t;
}

TEST(Vbm3dStream, CausalWindowGivesEachFrameAtItsPushFromPastFramesOnly) {
  const test::TestClip clip = moving(PixelFormat::NV12, 8, 11);
  test::TestClip other = moving(PixelFormat::NV12, 8, 77);  // other noise from frame 5 on
  for (int t = 0; t < 5; ++t) copy_host_frame(clip.noisy[t].view(), other.noisy[t].view());
  const DenoiseSettings s = vbm3d(50, true);
  EXPECT_EQ(StreamDenoiser::latency_frames_for(s), 0);
  const FrameView& v = clip.noisy[0].view();
  auto d = StreamDenoiser::create(Backend::Cpu, s, v.format, v.width, v.height);
  EXPECT_EQ(d->latency_frames(), 0);
  std::vector<HostFrame> out;
  for (int t = 0; t < 8; ++t) {
    d->push(clip.noisy[t].view());
    out.emplace_back(v.format, v.width, v.height);
    ASSERT_TRUE(d->pop(out.back().view())) << "frame " << t << " comes out at its own push";
    EXPECT_TRUE(test::same_samples(out[t].view(), reference_frame(s, clip.noisy, t, t).view())) << "frame " << t;
  }
  const std::vector<HostFrame> alt = through(s, other.noisy);
  for (int t = 0; t < 5; ++t) EXPECT_TRUE(test::same_samples(out[t].view(), alt[t].view())) << "later frames changed frame " << t;
  EXPECT_FALSE(test::same_samples(out[6].view(), alt[6].view())) << "the test's change reaches frame 6";
  // The causal window is a different filter from the centred one (it reads no later frame).
  const std::vector<HostFrame> centred = through(vbm3d(50), clip.noisy);
  EXPECT_FALSE(test::same_samples(out[3].view(), centred[3].view()));
}

TEST(Vbm3dStream, FlushMidStreamThenTheClipAgainIsAFreshStream) {
  const test::TestClip clip = moving(PixelFormat::GRAY8, 7, 3);
  const DenoiseSettings s = vbm3d(3);
  const FrameView& v = clip.noisy[0].view();
  auto d = StreamDenoiser::create(Backend::Cpu, s, v.format, v.width, v.height);
  for (int t = 0; t < 5; ++t) d->push(clip.noisy[t].view());
  d->reset();
  EXPECT_TRUE(d->idle());
  const std::vector<HostFrame> out = test::run_clip(*d, clip.noisy), want = through(s, clip.noisy);
  ASSERT_EQ(out.size(), 7u);
  for (int t = 0; t < 7; ++t) EXPECT_TRUE(test::same_samples(out[t].view(), want[t].view())) << t;
}

TEST(Vbm3dStream, LatencyIsTheWindowsAndParametersRestartIt) {
  DenoiseSettings s = vbm3d(4);
  // reach 8 (radius 2, two phases, the group aggregation: 2 x (2 + 2)): chunk - 1 + 8.
  EXPECT_EQ(StreamDenoiser::latency_frames_for(s), 4 - 1 + 8);
  DenoiseSettings frame = s;
  frame.vbm3d.aggregation = static_cast<int>(Vbm3dAggregation::Frame);
  EXPECT_EQ(StreamDenoiser::latency_frames_for(frame), 4 - 1 + 4) << "the frame aggregation: 2 + 2";
  EXPECT_TRUE(restarts_stream(s, frame));
  DenoiseSettings t = s;
  t.vbm3d.radius = 3;
  EXPECT_TRUE(restarts_stream(s, t));
  t = s;
  t.nlm.temporal_radius = 1;
  EXPECT_FALSE(restarts_stream(s, t)) << "another mode's parameter";
  t = s;
  t.sigma = 30;
  EXPECT_TRUE(restarts_stream(s, t)) << "sigma belongs to vbm3d";
}

}  // namespace
}  // namespace cdn
