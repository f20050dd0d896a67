// test_noise_tracker.cpp: the stream's noise level (kernels/include/cudadenoise/noise_tracker.h) on
// clips made of a real photo panning under the camera (2 pixels a frame) with
// AWGN of a known sigma per frame: a clean clip, black and flat frames, a step
// from 5 to 30 and back, the time constant, one odd frame, changed(), formats,
// and when a frame counts (the first at once, every later one a frame late:
// the device path's schedule, for host frames too).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/frame.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"
#include "noise_test_support.h"
#include "test_support.h"

namespace cdn {
namespace {

using test::LumaSource;

constexpr int kW = 320, kH = 240;

const LumaSource& camera() {
  static const LumaSource s = test::photo_luma("camera.png");
  return s;
}

HostFrame pan_frame(const LumaSource& src, PixelFormat format, int t, const std::vector<double>& sigma) {
  return test::pan_frame(src, format, t, sigma, kW, kH);
}

HostFrame gray_frame(int t, double sigma) { return pan_frame(camera(), PixelFormat::GRAY8, t, {sigma}); }

HostFrame flat_frame(int value) {
  HostFrame f(PixelFormat::GRAY8, kW, kH);
  const PlaneView p = components(f.view())[0];
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) p.set(x, y, value);
  return f;
}

double luma(const NoiseTracker& t) { return t.sigma()[0]; }

TEST(NoiseTracker, CleanClipGivesASmallPositiveSigma) {
  const NoiseTrackerSettings defaults;
  NoiseTracker t;
  for (int i = 0; i < 20; ++i) {
    t.observe(gray_frame(i, 0).view());
    ASSERT_TRUE(t.known());
    // camera.png's own noise reads about 0.45: above the floor, never 0.
    EXPECT_GE(luma(t), defaults.floor);
    EXPECT_LT(luma(t), 1.0) << "frame " << i;
  }
  // Clean synthetic content (flat areas, sharp edges, no noise at all): the floor.
  NoiseTracker s;
  HostFrame f(PixelFormat::GRAY8, kW, kH);
  const PlaneView p = components(f.view())[0];
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) p.set(x, y, ((x / 40 + y / 30) & 1) ? 190 : 60 + x / 8);
  for (int i = 0; i < 3; ++i) s.observe(f.view());
  EXPECT_TRUE(s.known());
  EXPECT_EQ(luma(s), defaults.floor);
}

TEST(NoiseTracker, BlackAndFlatFramesDoNotMoveTheEstimate) {
  const NoiseTrackerSettings defaults;
  NoiseTracker t;
  // A clip that opens on black (full-range 0 and limited-range 16) and grey.
  for (int v : {0, 0, 16, 16, 128}) {
    t.observe(flat_frame(v).view());
    EXPECT_FALSE(t.known());
    EXPECT_EQ(luma(t), defaults.default_sigma);
    EXPECT_FALSE(t.changed());
  }
  EXPECT_EQ(t.usable_frames(), 0);
  // The first usable frame is taken as it is, a frame late (it is not the
  // stream's first): at the next observe() or flush().
  t.observe(gray_frame(0, 10).view());
  EXPECT_FALSE(t.known());
  t.flush();
  EXPECT_TRUE(t.known());
  EXPECT_NEAR(luma(t), 10, 1.0);
  for (int i = 1; i < 10; ++i) t.observe(gray_frame(i, 10).view());
  t.flush();
  const double before = luma(t);
  EXPECT_NEAR(before, 10, 1.0);
  // Black frames in the middle (a fade, a cut to black): no change at all.
  for (int v : {0, 16, 255}) {
    t.observe(flat_frame(v).view());
    EXPECT_EQ(luma(t), before);
  }
  EXPECT_EQ(t.frames(), 18);
  EXPECT_EQ(t.usable_frames(), 10);
}

// The per-frame sigma of a clip: `sigma_at(i)` for frame i; returns the tracked
// luma sigma after each observe() (after frame i: the value through frame i - 1).
std::vector<double> run_clip(NoiseTracker& t, int frames, const std::function<double(int)>& sigma_at, int first = 0) {
  std::vector<double> out;
  for (int i = first; i < first + frames; ++i) {
    t.observe(gray_frame(i, sigma_at(i)).view());
    out.push_back(luma(t));
  }
  return out;
}

TEST(NoiseTracker, FollowsAStepFrom5To30AndBack) {
  const NoiseTrackerSettings defaults;  // step_frames = 2
  NoiseTracker t;
  const int step = 30, back = 60;
  const auto s = run_clip(t, 90, [&](int i) { return i < step ? 5.0 : i < back ? 30.0 : 5.0; });
  for (int i = 0; i < 90; ++i) std::printf("%s%5.2f", i % 15 ? " " : "\n", s[i]);
  std::printf("\n");
  for (int i = 0; i <= step; ++i) EXPECT_NEAR(s[i], 5, 0.5) << "frame " << i;
  // The first frame at 30 is not taken (one odd frame is not a step) ...
  EXPECT_NEAR(s[step + 1], 5, 0.5);
  // ... the second is, one frame late (folded in when frame step + 2 is
  // observed): within 10 % from then on.
  for (int i = step + defaults.step_frames; i <= back; ++i) EXPECT_NEAR(s[i], 30, 3) << "frame " << i;
  for (int i = back + defaults.step_frames; i < 90; ++i) EXPECT_NEAR(s[i], 5, 0.5) << "frame " << i;
}

TEST(NoiseTracker, SmallChangesFollowTheTimeConstant) {
  // 10 -> 12 (within step_ratio): log(sigma) closes the gap by 1/N per frame,
  // so after N frames (1 - 1/N)^N ~ e^-1 of it is left.
  const NoiseTrackerSettings defaults;  // time_constant = 16
  const int n = defaults.time_constant;
  NoiseTracker t;
  const auto s = run_clip(t, 41 + 5 * n, [](int i) { return i < 40 ? 10.0 : 12.0; });
  // s[i]: the value through frame i - 1 (frames are folded in a frame late).
  const double from = s[40];
  const double target = std::exp(std::log(from) + std::log(1.2));  // the estimator's own bias cancels
  const double left = std::log(target / s[40 + n]) / std::log(target / from);
  std::printf("before %.3f, after %d frames %.3f, after %d frames %.3f; gap left after N: %.2f (e^-1 = 0.37)\n",
              from, n, s[40 + n], 5 * n, s.back(), left);
  EXPECT_GT(left, 0.2);
  EXPECT_LT(left, 0.55);
  EXPECT_NEAR(s.back(), 12, 12 * 0.06);
}

TEST(NoiseTracker, OneOddFrameDoesNotMoveIt) {
  NoiseTracker t;
  run_clip(t, 20, [](int) { return 10.0; });
  t.flush();
  const double before = luma(t);
  t.observe(gray_frame(20, 30).view());  // a flash of noise, a cut to heavy texture
  EXPECT_EQ(luma(t), before);
  t.observe(gray_frame(21, 10).view());  // the flash is folded in now: no move
  EXPECT_EQ(luma(t), before);
  t.flush();
  EXPECT_NEAR(luma(t), before, 0.02 * before);
}

TEST(NoiseTracker, ChangedFiresOnTheFirstEstimateAndOnSteps) {
  NoiseTracker t;
  EXPECT_FALSE(t.changed());
  t.observe(gray_frame(0, 8).view());
  EXPECT_TRUE(t.changed());
  EXPECT_FALSE(t.changed());
  int fired = 0;
  for (int i = 1; i < 20; ++i) {
    t.observe(gray_frame(i, 8).view());
    fired += t.changed();
  }
  EXPECT_EQ(fired, 0);  // steady: per-frame scatter stays under change_ratio
  for (int i = 20; i < 23; ++i) {
    t.observe(gray_frame(i, 20).view());
    fired += t.changed();
  }
  EXPECT_EQ(fired, 1);
}

// Host frames follow the device path's schedule: after observe(frame t), t >= 1,
// sigma() and last() are those of a tracker that has folded in frames 0 .. t - 1
// (observe() and flush() each frame); the first frame at once; flush() folds
// in the last frame.
TEST(NoiseTracker, EveryFrameButTheFirstIsFoldedInAFrameLate) {
  NoiseTracker lagged, at_once;
  std::vector<std::vector<double>> through;  // at_once's sigma() after frames 0 .. i
  std::vector<double> through_last;          // ... and its last()[0].sigma
  for (int i = 0; i < 12; ++i) {
    const HostFrame f = gray_frame(i, i < 6 ? 6.0 : 20.0);  // a step at frame 6
    lagged.observe(f.view());
    at_once.observe(f.view());
    at_once.flush();
    through.push_back(at_once.sigma());
    through_last.push_back(at_once.last()[0].sigma);
    const int folded = i == 0 ? 0 : i - 1;
    EXPECT_EQ(lagged.sigma(), through[folded]) << "frame " << i;
    EXPECT_EQ(lagged.last()[0].sigma, through_last[folded]) << "frame " << i;
    EXPECT_EQ(lagged.frames(), i + 1);
    EXPECT_EQ(lagged.usable_frames(), folded + 1);
  }
  lagged.flush();
  EXPECT_EQ(lagged.sigma(), through.back());
  EXPECT_EQ(lagged.usable_frames(), 12);
  lagged.flush();  // nothing left: no change
  EXPECT_EQ(lagged.sigma(), through.back());
  // The step (frames 6 and 7 at 20) is in the value through frame 7: what
  // observe(frame 8) returns with, a frame after a tracker flushed every frame.
  EXPECT_NEAR(through[6][0], 6, 0.6);
  EXPECT_NEAR(through[7][0], 20, 2);
}

TEST(NoiseTracker, EveryComponentOnItsOwnAndInItsCodeValues) {
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::I420, PixelFormat::P010_10LE}) {
    NoiseTracker t;
    for (int i = 0; i < 3; ++i) t.observe(pan_frame(camera(), f, i, {12, 4, 25}).view());
    const auto s = t.sigma();
    ASSERT_EQ(s.size(), 3u) << format_name(f);
    EXPECT_NEAR(s[0], 12, 1.2) << format_name(f);
    EXPECT_NEAR(s[1], 4, 0.4) << format_name(f);
    EXPECT_NEAR(s[2], 25, 2.5) << format_name(f);
    const auto code = t.sigma_code_values();
    const double unit = format_info(f).bit_depth == 10 ? 4 : 1;
    for (int c = 0; c < 3; ++c) EXPECT_DOUBLE_EQ(code[c], s[c] * unit);
  }
}

TEST(NoiseTracker, ANewFormatOrSizeStartsAgain) {
  NoiseTracker t;
  run_clip(t, 5, [](int) { return 20.0; });
  EXPECT_NEAR(luma(t), 20, 2);
  t.observe(pan_frame(camera(), PixelFormat::NV12, 0, {6}).view());
  EXPECT_EQ(t.frames(), 1);
  EXPECT_NEAR(t.sigma()[0], 6, 0.6);
  t.reset();
  EXPECT_TRUE(t.sigma().empty());
  EXPECT_FALSE(t.known());
}

TEST(NoiseTracker, RejectsBadSettingsAndFrames) {
  NoiseTrackerSettings s;
  s.time_constant = 0;
  EXPECT_THROW(NoiseTracker{s}, InvalidArgument);
  s = {};
  s.default_sigma = s.floor / 2;
  EXPECT_THROW(NoiseTracker{s}, InvalidArgument);
  s = {};
  s.step_ratio = 1;
  EXPECT_THROW(NoiseTracker{s}, InvalidArgument);
  NoiseTracker t;
  FrameView bad;
  EXPECT_THROW(t.observe(bad), InvalidArgument);
#ifndef CDN_HAVE_CUDA
  HostFrame f(PixelFormat::GRAY8, 64, 64);
  FrameView dev = f.view();
  dev.memory = MemoryKind::Device;
  EXPECT_THROW(t.observe(dev), Error);
#endif
}

}  // namespace
}  // namespace cdn
