// test_noise_tracker_interval.cpp: NoiseTrackerSettings::interval
// (kernels/include/cudadenoise/noise_tracker.h, "Which frames are estimated"):
// one frame in `interval` is estimated from the first on, chosen by its index
// alone, so the foreground and background
// schedules estimate the same frames from the same values (the background's
// worker has until the next estimated frame for each); each estimate
// stands for `interval` frames, so steady noise reads as with every frame and
// small changes keep the time constant in frames; a step is followed after
// step_frames estimated frames; set_interval() changes it mid-stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"
#include "noise_test_support.h"

namespace cdn {
namespace {

constexpr int kW = 320, kH = 240;

const test::LumaSource& camera() {
  static const test::LumaSource s = test::photo_luma("camera.png");
  return s;
}

HostFrame gray_frame(int t, double sigma) { return test::pan_frame(camera(), PixelFormat::GRAY8, t, {sigma}, kW, kH); }

NoiseTrackerSettings with_interval(int interval, bool background = false) {
  NoiseTrackerSettings s;
  s.interval = interval;
  s.background = background;
  return s;
}

// Frames 0 .. n-1 with noise sigma_at(i); the tracked luma sigma after each observe().
template <typename SigmaAt>
std::vector<double> run(NoiseTracker& t, int n, SigmaAt sigma_at) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    t.observe(gray_frame(i, sigma_at(i)).view());
    out.push_back(t.sigma()[0]);
  }
  return out;
}

// The frames of 0 .. n-1 that the tracker estimates.
int estimated_frames(int n, int interval) {
  int k = 0;
  for (int i = 0; i < n; ++i) k += i % interval == 0;
  return k;
}

TEST(NoiseTrackerInterval, OneFrameInIntervalIsEstimatedFromTheFirstOn) {
  const int n = 50;
  for (const bool background : {false, true}) {
    SCOPED_TRACE(background ? "background" : "foreground");
    NoiseTracker t(with_interval(4, background));
    std::vector<std::int64_t> folded;
    for (int i = 0; i < n; ++i) {
      t.observe(gray_frame(i, 8).view());
      folded.push_back(t.folded());
    }
    t.flush();
    EXPECT_EQ(t.frames(), n);
    EXPECT_EQ(t.folded(), estimated_frames(n, 4));  // frames 0, 4, .., 48
    EXPECT_EQ(t.usable_frames(), t.folded());
    // The first frame is folded in at once. Later, an estimated frame s is
    // folded in at observe(s + 1) on the foreground schedule; on the background
    // one the worker has it from observe(s + 1) and it is folded in at
    // observe(s + 4), the next estimated frame.
    EXPECT_EQ(folded[0], 1);
    const int fold_at = background ? 0 : 1, first_fold = background ? 8 : 5;
    for (int i = 1; i < n; ++i)
      EXPECT_EQ(folded[i] - folded[i - 1], i >= first_fold && i % 4 == fold_at ? 1 : 0) << "frame " << i;
  }
  NoiseTracker every(with_interval(1));
  for (int i = 0; i < n; ++i) every.observe(gray_frame(i, 8).view());
  every.flush();
  EXPECT_EQ(every.folded(), n);
}

// With the model too, one frame in `interval` is estimated, and sigma() is
// the tracker's without the model, bit for bit, on both schedules (a step of
// the noise included): white noise gives the constant model's bytes.
TEST(NoiseTrackerInterval, TheModelMeasuresTheSameFramesAndLeavesSigmaAsWithout) {
  const int n = 40;
  for (const bool background : {false, true}) {
    SCOPED_TRACE(background ? "background" : "foreground");
    NoiseTrackerSettings s = with_interval(4, background);
    const NoiseTrackerSettings plain = s;
    s.model = true;
    NoiseTracker model(s), without(plain);
    for (int i = 0; i < n; ++i) {
      const HostFrame f = gray_frame(i, i < 6 ? 8 : 20);
      model.observe(f.view());
      without.observe(f.view());
      EXPECT_EQ(model.sigma(), without.sigma()) << "frame " << i;
    }
    model.flush();
    without.flush();
    EXPECT_EQ(model.sigma(), without.sigma());
    EXPECT_NEAR(model.sigma()[0], 20, 2);
    EXPECT_EQ(model.folded(), estimated_frames(n, 4));
    EXPECT_EQ(without.folded(), estimated_frames(n, 4));
  }
}

// Both schedules estimate the same frames and start each estimate from the
// value through the last estimated frame before it: after flush(), bit for bit.
TEST(NoiseTrackerInterval, BothSchedulesGiveTheSameValueBitForBit) {
  auto sigma_at = [](int i) { return i < 30 ? 6.0 : i < 55 ? 18.0 : 7.5; };
  for (const int interval : {2, 3, 4, 7}) {
    SCOPED_TRACE(interval);
    NoiseTracker fg(with_interval(interval, false)), bg(with_interval(interval, true));
    for (int i = 0; i < 70; ++i) {
      const HostFrame f = gray_frame(i, sigma_at(i));
      fg.observe(f.view());
      bg.observe(f.view());
    }
    fg.flush();
    bg.flush();
    EXPECT_EQ(fg.sigma(), bg.sigma());
    EXPECT_EQ(fg.last()[0].sigma, bg.last()[0].sigma);
    EXPECT_EQ(fg.folded(), bg.folded());
  }
}

TEST(NoiseTrackerInterval, SteadyNoiseReadsAsWithEveryFrame) {
  for (const double sigma : {3.0, 10.0, 25.0}) {
    SCOPED_TRACE(sigma);
    NoiseTracker every(with_interval(1)), fourth(with_interval(4));
    const auto a = run(every, 80, [&](int) { return sigma; });
    const auto b = run(fourth, 80, [&](int) { return sigma; });
    // From frame 20 on, each frame's value within 2 % of the every-frame one
    // (the estimator's per-frame scatter is 1-3 %; the average absorbs it).
    double worst = 0;
    for (int i = 20; i < 80; ++i) {
      EXPECT_NEAR(b[i], a[i], 0.02 * a[i]) << "frame " << i;
      worst = std::max(worst, std::fabs(b[i] / a[i] - 1));
    }
    std::printf("sigma %.0f: every frame %.3f, one in 4 %.3f at the end; largest difference %.2f %%\n", sigma, a.back(),
                b.back(), 100 * worst);
  }
}

// 10 -> 12, inside the step ratio: with interval 4 the gap closes by 4/N per
// estimate, one estimate in 4 frames. After observe(frame 40 + N + 1) the
// estimates of frames 40, 44, .., 40 + N are in: (1 - 4/N)^(N/4 + 1) = 0.24 of
// the gap left (every frame: (1 - 1/N)^N, e^-1; test_noise_tracker.cpp).
TEST(NoiseTrackerInterval, SmallChangesKeepTheTimeConstantInFrames) {
  const int n = NoiseTrackerSettings{}.time_constant;
  NoiseTracker t(with_interval(4));
  const auto s = run(t, 41 + 5 * n, [](int i) { return i < 40 ? 10.0 : 12.0; });
  const double from = s[40];
  const double target = std::exp(std::log(from) + std::log(1.2));
  const double left = std::log(target / s[41 + n]) / std::log(target / from);
  std::printf("interval 4: before %.3f, after %d frames %.3f (gap left %.2f, e^-1 = 0.37), after %d frames %.3f\n", from,
              n, s[41 + n], left, 5 * n, s.back());
  EXPECT_GT(left, 0.1);
  EXPECT_LT(left, 0.4);
  EXPECT_NEAR(s.back(), 12, 12 * 0.06);
}

// A step 5 -> 30 at frame 40 is taken at the second estimated frame at 30 (40
// and 44 with interval 4), folded in a frame later: within 10 % from frame 46
// on, and not before frame 44.
TEST(NoiseTrackerInterval, AStepIsFollowedAfterStepFramesEstimatedFrames) {
  NoiseTracker t(with_interval(4));
  const int step = 40;
  const auto s = run(t, 70, [&](int i) { return i < step ? 5.0 : 30.0; });
  for (int i = 0; i <= step + 4; ++i) EXPECT_NEAR(s[i], 5, 0.5) << "frame " << i;
  for (int i = step + 5; i < 70; ++i) EXPECT_NEAR(s[i], 30, 3) << "frame " << i;
}

TEST(NoiseTrackerInterval, SetIntervalTakesEffectAtTheNextFrame) {
  NoiseTracker t(with_interval(1));
  for (int i = 0; i < 24; ++i) t.observe(gray_frame(i, 8).view());
  t.set_interval(6);
  for (int i = 24; i < 48; ++i) t.observe(gray_frame(i, 8).view());
  t.flush();
  EXPECT_EQ(t.folded(), 24 + 4);  // 24, 30, 36, 42
  EXPECT_THROW(t.set_interval(0), InvalidArgument);
  EXPECT_THROW(NoiseTracker{with_interval(0)}, InvalidArgument);
}

}  // namespace
}  // namespace cdn
