// test_noise_tracker_background.cpp: the tracker's background schedule
// (NoiseTrackerSettings::background, kernels/include/cudadenoise/noise_tracker.h;
// what StreamDenoiser uses): after observe(frame t), t >= 2, the value is that
// through frame t - 2 (the first frame at once, after frame 1 through frame 0);
// flush() folds in every frame; the per-frame estimates (sigma, the model's
// level sets) are the foreground schedule's, frame for frame, bit for bit, just
// folded a frame later; so a step of the noise is followed one frame later
// than on the foreground schedule, and no more. What the worker throws reaches
// the caller at the next observe() or flush(), and the tracker goes on;
// destroying or resetting a tracker with an estimate in flight is clean.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/background_worker.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"
#include "noise_test_support.h"
#include "test_support.h"

namespace cdn {

// The tracker's worker (a friend of NoiseTracker): the tests hand it a job of
// their own in place of an estimate.
struct NoiseTrackerTesting {
  static BackgroundWorker* worker(NoiseTracker& t) { return t.worker_.get(); }
};

namespace {

using test::LumaSource;

constexpr int kW = 320, kH = 240;

const LumaSource& camera() {
  static const LumaSource s = test::photo_luma("camera.png");
  return s;
}

HostFrame pan_frame(PixelFormat format, int t, const std::vector<double>& sigma, int w = kW, int h = kH) {
  return test::pan_frame(camera(), format, t, sigma, w, h);
}

NoiseTrackerSettings schedule(bool background, bool model = false) {
  NoiseTrackerSettings s;
  s.background = background;
  s.model = model;
  return s;
}

// What a tracker reports: sigma(), the raw estimates last folded in, the
// model and its last level estimates, the counts.
struct Reported {
  std::vector<double> sigma;
  std::vector<NoiseLevel> last;
  std::vector<std::vector<NoiseLevel>> last_models;
  std::vector<std::vector<int>> last_model_levels;
  std::vector<NoiseModel> model;
  std::int64_t usable = 0;
};

Reported reported(const NoiseTracker& t) {
  return {t.sigma(), t.last(), t.last_models(), t.last_model_levels(), t.model(), t.usable_frames()};
}

void expect_same(const Reported& x, const Reported& y, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(x.sigma, y.sigma);
  EXPECT_EQ(x.usable, y.usable);
  ASSERT_EQ(x.last.size(), y.last.size());
  for (std::size_t c = 0; c < x.last.size(); ++c) {
    EXPECT_EQ(x.last[c].sigma, y.last[c].sigma) << "component " << c;
    EXPECT_EQ(x.last[c].usable, y.last[c].usable) << "component " << c;
    EXPECT_EQ(x.last[c].selected, y.last[c].selected) << "component " << c;
    EXPECT_EQ(x.last[c].candidates, y.last[c].candidates) << "component " << c;
    EXPECT_EQ(x.last_model_levels[c], y.last_model_levels[c]) << "component " << c;
    ASSERT_EQ(x.last_models[c].size(), y.last_models[c].size()) << "component " << c;
    for (std::size_t k = 0; k < x.last_models[c].size(); ++k)
      EXPECT_EQ(x.last_models[c][k].sigma, y.last_models[c][k].sigma) << "component " << c;
  }
  ASSERT_EQ(x.model.size(), y.model.size());
  for (std::size_t c = 0; c < x.model.size(); ++c) {
    EXPECT_EQ(x.model[c].a, y.model[c].a) << "component " << c;
    EXPECT_EQ(x.model[c].b, y.model[c].b) << "component " << c;
    EXPECT_EQ(x.model[c].usable, y.model[c].usable) << "component " << c;
    ASSERT_EQ(x.model[c].levels.size(), y.model[c].levels.size());
    for (std::size_t k = 0; k < x.model[c].levels.size(); ++k) {
      EXPECT_EQ(x.model[c].levels[k].mean, y.model[c].levels[k].mean) << "component " << c << " level " << k;
      EXPECT_EQ(x.model[c].levels[k].variance, y.model[c].levels[k].variance) << "component " << c << " level " << k;
    }
  }
}

// After observe(frame t): a tracker flushed after every frame (every frame at
// once) through frame 0 for t <= 1, through frame t - 2 from then on; flush()
// folds in the rest.
TEST(NoiseTrackerBackground, AfterFrameTTheValueIsThroughFrameTMinus2) {
  NoiseTracker background(schedule(true)), at_once(schedule(false));
  std::vector<Reported> through;  // at_once after frames 0 .. i
  for (int i = 0; i < 12; ++i) {
    const HostFrame f = pan_frame(PixelFormat::NV12, i, i < 6 ? std::vector<double>{6, 3, 9} : std::vector<double>{20, 8, 4});
    background.observe(f.view());
    at_once.observe(f.view());
    at_once.flush();
    through.push_back(reported(at_once));
    const int folded = i < 2 ? 0 : i - 2;
    expect_same(reported(background), through[folded], "frame " + std::to_string(i));
    EXPECT_EQ(background.frames(), i + 1);
    EXPECT_EQ(background.usable_frames(), folded + 1);
  }
  background.flush();
  expect_same(reported(background), through.back(), "after flush");
  background.flush();  // nothing left: no change
  expect_same(reported(background), through.back(), "after a second flush");
  // The tracker goes on after a flush: frame 12 is then the only one pending.
  const HostFrame f = pan_frame(PixelFormat::NV12, 12, {20, 8, 4});
  background.observe(f.view());
  expect_same(reported(background), through.back(), "frame 12, after the flush");
  background.flush();
  at_once.observe(f.view());
  at_once.flush();
  expect_same(reported(background), reported(at_once), "frame 12 flushed");
}

// The background schedule's estimates are the foreground schedule's, frame for
// frame (each starts from the value through the frame before it), folded a
// frame later: after observe(t), t >= 1, what the foreground tracker reported
// after observe(t - 1). With the model (its level sets chosen from the same
// state) and a step of the noise half way; GRAY8 and a 4:2:0 format.
TEST(NoiseTrackerBackground, EstimatesAreTheForegroundsFoldedAFrameLater) {
  for (PixelFormat format : {PixelFormat::GRAY8, PixelFormat::I420}) {
    SCOPED_TRACE(format_name(format));
    NoiseTracker background(schedule(true, true)), foreground(schedule(false, true));
    std::vector<Reported> fg;  // foreground after observe(frame i)
    for (int i = 0; i < 16; ++i) {
      const HostFrame f = pan_frame(format, i, i < 8 ? std::vector<double>{5, 3} : std::vector<double>{15, 6});
      background.observe(f.view());
      foreground.observe(f.view());
      fg.push_back(reported(foreground));
      expect_same(reported(background), fg[i == 0 ? 0 : i - 1], "frame " + std::to_string(i));
    }
    background.flush();
    foreground.flush();
    expect_same(reported(background), reported(foreground), "after flush");
  }
}

// A step 5 -> 30 and back, step_frames 2: the foreground schedule has the new
// value after observe(step + 2) (the second frame at 30, folded a frame late),
// the background schedule after observe(step + 3), one frame later, and both
// keep it from then on.
TEST(NoiseTrackerBackground, AStepIsFollowedOneFrameLaterThanInTheForeground) {
  const NoiseTrackerSettings defaults;
  ASSERT_EQ(defaults.step_frames, 2);
  const int step = 12, back = 30, frames = 42;
  auto sigma_at = [&](int i) { return i < step ? 5.0 : i < back ? 30.0 : 5.0; };
  NoiseTracker background(schedule(true)), foreground(schedule(false));
  std::vector<double> bg, fg;
  for (int i = 0; i < frames; ++i) {
    const HostFrame f = pan_frame(PixelFormat::GRAY8, i, {sigma_at(i)});
    background.observe(f.view());
    foreground.observe(f.view());
    bg.push_back(background.sigma()[0]);
    fg.push_back(foreground.sigma()[0]);
  }
  // The first frame after which each has the new level (within 10 %).
  auto first_near = [&](const std::vector<double>& s, int from, double level) {
    for (int i = from; i < frames; ++i)
      if (std::fabs(s[i] - level) < 0.1 * level) return i;
    return -1;
  };
  EXPECT_EQ(first_near(fg, step, 30), step + defaults.step_frames);
  EXPECT_EQ(first_near(bg, step, 30), step + defaults.step_frames + 1);
  EXPECT_EQ(first_near(fg, back, 5), back + defaults.step_frames);
  EXPECT_EQ(first_near(bg, back, 5), back + defaults.step_frames + 1);
  for (int i = step + defaults.step_frames + 1; i <= back + 1; ++i) EXPECT_NEAR(bg[i], 30, 3) << "frame " << i;
  for (int i = back + defaults.step_frames + 1; i < frames; ++i) EXPECT_NEAR(bg[i], 5, 0.5) << "frame " << i;
  // Every value is the foreground's a frame later.
  for (int i = 1; i < frames; ++i) EXPECT_EQ(bg[i], fg[i - 1]) << "frame " << i;
}

// What the worker throws (here a job of the test's own in place of frame 1's
// estimate) reaches the caller at the next observe(), with its type and
// message; that frame is not folded in, observe() did not take its frame, and
// the tracker goes on. The same through flush().
TEST(NoiseTrackerBackground, WhatTheWorkerThrowsReachesTheCaller) {
  for (bool through_flush : {false, true}) {
    SCOPED_TRACE(through_flush ? "flush()" : "observe()");
    NoiseTracker t(schedule(true));
    for (int i = 0; i < 3; ++i) t.observe(pan_frame(PixelFormat::GRAY8, i, {10}).view());
    BackgroundWorker* w = NoiseTrackerTesting::worker(t);
    ASSERT_NE(w, nullptr);
    ASSERT_TRUE(w->busy()) << "frame 1's estimate in flight";
    w->wait();
    w->run([] { throw InvalidArgument("noise estimate: failed on the worker"); });
    const std::vector<double> before = t.sigma();
    try {
      if (through_flush)
        t.flush();
      else
        t.observe(pan_frame(PixelFormat::GRAY8, 3, {10}).view());
      ADD_FAILURE() << "nothing thrown";
    } catch (const InvalidArgument& e) {
      EXPECT_STREQ(e.what(), "noise estimate: failed on the worker");
    }
    EXPECT_EQ(t.sigma(), before);
    EXPECT_EQ(t.frames(), 3);
    EXPECT_EQ(t.usable_frames(), 1);  // frame 0; frame 1's estimate is lost
    // It goes on: frames 2 (staged) and 3, 4 are folded in.
    for (int i = 3; i < 5; ++i) t.observe(pan_frame(PixelFormat::GRAY8, i, {10}).view());
    t.flush();
    EXPECT_EQ(t.frames(), 5);
    EXPECT_EQ(t.usable_frames(), 4);
    EXPECT_NEAR(t.sigma()[0], 10, 1);
  }
}

// Destroying a tracker while an estimate runs on its worker waits for it (the
// job reads the tracker's staging buffers and estimators); the same for
// reset(), after which the tracker starts a new stream (its first frame at once).
TEST(NoiseTrackerBackground, DestroyingOrResettingWithAnEstimateInFlightIsClean) {
  {
    NoiseTracker t(schedule(true, true));
    for (int i = 0; i < 3; ++i) t.observe(pan_frame(PixelFormat::NV12, i, {10, 5, 5}, 1920, 1080).view());
    ASSERT_TRUE(NoiseTrackerTesting::worker(t)->busy());
  }  // frame 1's estimate (1080p, with the model) likely still running
  auto finished = std::make_shared<std::atomic<bool>>(false);
  {
    NoiseTracker t(schedule(true));
    for (int i = 0; i < 3; ++i) t.observe(pan_frame(PixelFormat::GRAY8, i, {10}).view());
    BackgroundWorker* w = NoiseTrackerTesting::worker(t);
    w->wait();
    w->run([finished] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      *finished = true;
    });
  }
  EXPECT_TRUE(*finished) << "the destructor returned before the job in flight ended";
  NoiseTracker t(schedule(true));
  for (int i = 0; i < 3; ++i) t.observe(pan_frame(PixelFormat::GRAY8, i, {10}).view());
  ASSERT_TRUE(NoiseTrackerTesting::worker(t)->busy());
  t.reset();
  EXPECT_FALSE(NoiseTrackerTesting::worker(t)->busy());
  EXPECT_FALSE(t.known());
  EXPECT_EQ(t.frames(), 0);
  t.observe(pan_frame(PixelFormat::GRAY8, 5, {20}).view());  // a new stream: its first frame at once
  EXPECT_TRUE(t.known());
  EXPECT_NEAR(t.sigma()[0], 20, 2);
  EXPECT_EQ(t.usable_frames(), 1);
  // A new size starts again too, with frame 1's estimate of the old size in flight.
  t.observe(pan_frame(PixelFormat::GRAY8, 6, {20}).view());
  t.observe(pan_frame(PixelFormat::GRAY8, 7, {20}).view());
  t.observe(pan_frame(PixelFormat::GRAY8, 0, {8}, 256, 192).view());
  EXPECT_EQ(t.frames(), 1);
  EXPECT_NEAR(t.sigma()[0], 8, 0.8);
}

}  // namespace
}  // namespace cdn
