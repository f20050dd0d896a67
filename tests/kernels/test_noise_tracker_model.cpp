// test_noise_tracker_model.cpp: the noise model followed over frames
// (NoiseTracker with NoiseTrackerSettings::model, kernels/include/cudadenoise/noise_tracker.h):
// real photos as static frames with fresh noise of variance a x + b every frame
// (issue 37's protocol, noise_test_support.h): a and the free curve after 32
// frames, AWGN comes out flat (a = 0 exactly), a step of the model is
// followed, the constant model when no fit is usable, the schedule (host
// frames a frame late, as device frames), and sigma() unchanged by the model.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"
#include "noise_test_support.h"
#include "test_support.h"

namespace cdn {
namespace {

using test::LumaSource;

constexpr double kRounding = 1.0 / 12.0;  // rounding to integers adds 1/12 to every variance

const LumaSource& photo(const std::string& file) {
  static std::vector<std::pair<std::string, LumaSource>> cache;
  for (const auto& [name, s] : cache)
    if (name == file) return s;
  cache.emplace_back(file, test::photo_luma(file));
  return cache.back().second;
}

// Frame t: the photo as it is, noise of variance a x + b drawn afresh.
HostFrame noisy_frame(const LumaSource& src, double a, double b, int t, PixelFormat format = PixelFormat::GRAY8) {
  HostFrame f(format, src.width & ~1, src.height & ~1);
  const auto comps = components(f.view());
  for (std::size_t c = 0; c < comps.size(); ++c) {
    const LumaSource window = c == 0 ? src : test::crop(src, 0, 0, comps[c].width, comps[c].height);
    test::render_signal_dependent(window, a, b, 1000 * t + 17 * c + 5, comps[c]);
  }
  return f;
}

NoiseTrackerSettings with_model() {
  NoiseTrackerSettings s;
  s.model = true;
  return s;
}

// The luma model after `frames` frames of var = a x + b (flushed: every frame in).
NoiseModel track(const LumaSource& src, double a, double b, int frames, NoiseTracker& t) {
  for (int i = 0; i < frames; ++i) t.observe(noisy_frame(src, a, b, i).view());
  t.flush();
  return t.model()[0];
}

// The fit of `m`'s levels before the flat rule, and how much its variance grows
// over the levels' span (the quantity the flat rule compares with flat_ratio).
double growth(const NoiseModel& m, double* a_fitted) {
  NoiseModel fit = m;
  fit_noise_model(&fit);
  double lo = 256, hi = 0;
  for (const NoiseModelLevel& l : fit.levels)
    if (l.usable()) {
      lo = std::min(lo, l.mean);
      hi = std::max(hi, l.mean);
    }
  *a_fitted = fit.a;
  return (fit.a * hi + fit.b) / (fit.a * lo + fit.b) - 1;
}

int usable_levels(const NoiseModel& m) {
  int n = 0;
  for (const NoiseModelLevel& l : m.levels) n += l.usable();
  return n;
}

// The free curve's RMS relative error over the usable levels, against sqrt(a x + b).
double curve_rms_error(const NoiseModel& m, double a, double b) {
  double e2 = 0;
  int n = 0;
  for (const NoiseModelLevel& l : m.levels) {
    if (!l.usable()) continue;
    e2 += std::pow(m.sigma_curve(l.mean) / std::sqrt(a * l.mean + b + kRounding) - 1.0, 2);
    n++;
  }
  return n ? std::sqrt(e2 / n) : 1.0;
}

// The photos whose populated intensities span most of the range (the others,
// moon, brick and text, populate two or three level sets next to each other).
const char* const kWidePhotos[] = {"astronaut.png", "coffee.png", "chelsea.png", "camera.png"};

// The true model's growth over the span of `m`'s usable levels.
double true_growth(const NoiseModel& m, double a, double b) {
  double lo = 256, hi = 0;
  for (const NoiseModelLevel& l : m.levels)
    if (l.usable()) {
      lo = std::min(lo, l.mean);
      hi = std::max(hi, l.mean);
    }
  return (a * hi + b + kRounding) / (a * lo + b + kRounding) - 1;
}

// The measurement behind flat_ratio's default (docs/NOISE.md, "The model over
// frames"): how much the fitted variance grows over its levels' span after 32
// frames, on AWGN of sigma 2 to 40 (true growth 0) and on three
// signal-dependent models, on every photo but the two of pure texture. Every
// AWGN case comes out flat; every signal-dependent case whose true growth over
// the span is at least twice flat_ratio keeps its fitted slope.
TEST(NoiseTrackerModel, FlatRuleSeparatesWhiteFromSignalDependentNoise) {
  const double flat = NoiseTrackerSettings{}.flat_ratio;
  double awgn_max = 0, sd_min = 1e9;
  for (const char* file : {"astronaut.png", "coffee.png", "chelsea.png", "camera.png", "moon.png", "brick.png",
                           "text.png"}) {
    std::printf("%-14s", file);
    for (double sigma : {2.0, 5.0, 10.0, 20.0, 40.0}) {
      NoiseTracker t(with_model());
      const NoiseModel m = track(photo(file), 0, sigma * sigma, 32, t);
      EXPECT_EQ(m.a, 0.0) << file << " sigma " << sigma;
      if (!m.usable) {
        std::printf(" | s%-2.0f (%d level)", sigma, usable_levels(m));
        continue;
      }
      double a = 0;
      const double g = growth(m, &a);
      std::printf(" | s%-2.0f a %.4f g %.2f", sigma, a, g);
      awgn_max = std::max(awgn_max, g);
      EXPECT_LT(g, flat) << file << " sigma " << sigma;
    }
    for (const std::array<double, 2>& c : {std::array<double, 2>{0.5, 4}, std::array<double, 2>{2, 2},
                                           std::array<double, 2>{0.1, 2}}) {
      NoiseTracker t(with_model());
      const NoiseModel m = track(photo(file), c[0], c[1], 32, t);
      if (!m.usable) {  // moon.png at 0.1 x + 2: one level set usable
        std::printf(" | %.1fx+%.0f (%d level)", c[0], c[1], usable_levels(m));
        continue;
      }
      double a = 0;
      const double g = growth(m, &a), truth = true_growth(m, c[0], c[1]);
      std::printf(" | %.1fx+%.0f a %.3f g %.2f (true %.2f)", c[0], c[1], m.a, g, truth);
      if (truth >= 2 * flat) {
        sd_min = std::min(sd_min, g);
        EXPECT_GT(g, flat) << file << " a " << c[0];
        EXPECT_EQ(m.a, a) << file << " a " << c[0] << ": the rule keeps the slope";
      }
    }
    std::printf("\n");
  }
  std::printf("largest growth on AWGN %.3f, smallest on signal-dependent noise that grows by >= %.1f: %.3f\n",
              awgn_max, 2 * flat, sd_min);
}

// Issue 37's target, tracked: a within 15 % after 32 frames, and the free curve
// within 10 % RMS over the levels the frames populate. camera.png's level at
// 150 reads its texture as noise (+14 % in sigma at a = 2): its a is printed,
// not held to 15 % (docs/NOISE.md).
TEST(NoiseTrackerModel, FollowsAAndTheCurveOnRealPhotos) {
  for (const char* file : kWidePhotos) {
    for (const std::array<double, 2>& c : {std::array<double, 2>{0.5, 4.0}, std::array<double, 2>{2.0, 2.0}}) {
      SCOPED_TRACE(std::string(file) + " a " + std::to_string(c[0]) + " b " + std::to_string(c[1]));
      NoiseTracker t(with_model());
      const NoiseModel m = track(photo(file), c[0], c[1], 32, t);
      const double rms = curve_rms_error(m, c[0], c[1]);
      std::printf("%s %.1fx+%.0f: a %.3f b %.2f, %d levels, curve RMS error %.1f %%\n", file, c[0], c[1], m.a, m.b,
                  usable_levels(m), 100 * rms);
      ASSERT_TRUE(m.usable);
      EXPECT_GE(usable_levels(m), 4);
      if (std::string(file) == "camera.png") continue;
      EXPECT_NEAR(m.a, c[0], 0.15 * c[0]);
      EXPECT_LT(rms, 0.10);
    }
  }
}

// AWGN comes out exactly flat (a = 0), with b the tracked sigma's square within
// the tracker's tolerance (10 %, test_noise_tracker.cpp).
TEST(NoiseTrackerModel, WhiteNoiseIsExactlyFlat) {
  for (const char* file : kWidePhotos)
    for (double sigma : {5.0, 10.0, 20.0}) {
      SCOPED_TRACE(std::string(file) + " sigma " + std::to_string(sigma));
      NoiseTracker t(with_model());
      const NoiseModel m = track(photo(file), 0, sigma * sigma, 32, t);
      ASSERT_TRUE(m.usable);
      EXPECT_EQ(m.a, 0.0);
      EXPECT_NEAR(std::sqrt(m.b), sigma, 0.1 * sigma);
      EXPECT_NEAR(std::sqrt(m.b), t.sigma()[0], 0.1 * sigma);
    }
}

// A step of the model (0.5 x + 4 -> 2 x + 2) is followed: a within 15 % of the
// new value from a bounded number of frames after the step on (the values as
// observe() returns them, a frame late).
TEST(NoiseTrackerModel, FollowsAStepOfTheModel) {
  const int step = 32, frames = 80, bound = kNoiseModelLevels + 4;
  for (const char* file : {"astronaut.png", "coffee.png", "chelsea.png"}) {
    NoiseTracker t(with_model());
    std::vector<double> a;
    for (int i = 0; i < frames; ++i) {
      t.observe(noisy_frame(photo(file), i < step ? 0.5 : 2.0, i < step ? 4.0 : 2.0, i).view());
      a.push_back(t.model()[0].a);
    }
    int settled = frames;  // the first frame from which a stays within 15 % of 2
    while (settled > 0 && std::fabs(a[settled - 1] - 2.0) <= 0.3) --settled;
    std::printf("%s: a before the step %.3f, after %d frames %.3f; within 15 %% from %d frames after the step on\n",
                file, a[step - 1], frames - step, a.back(), settled - step);
    EXPECT_NEAR(a[step - 1], 0.5, 0.075) << file;
    EXPECT_LE(settled - step, bound) << file;
  }
}

// No usable fit: the constant model of sigma(), never zero noise. Model off
// (the default), before two levels are known, and on flat frames.
TEST(NoiseTrackerModel, WithoutAFitItIsTheConstantModelOfSigma) {
  const LumaSource& src = photo("chelsea.png");
  NoiseTracker off;
  NoiseTracker on(with_model());
  EXPECT_TRUE(on.model().empty());
  HostFrame black(PixelFormat::GRAY8, 64, 64);
  on.observe(black.view());  // nothing to measure: the default sigma
  ASSERT_EQ(on.model().size(), 1u);
  EXPECT_FALSE(on.model()[0].usable);
  EXPECT_EQ(on.model()[0].a, 0.0);
  EXPECT_EQ(on.model()[0].b, NoiseTrackerSettings{}.default_sigma * NoiseTrackerSettings{}.default_sigma);
  on.reset();
  for (int i = 0; i < 12; ++i) {
    const HostFrame f = noisy_frame(src, 0.5, 4, i);
    off.observe(f.view());
    on.observe(f.view());
    const NoiseModel m = off.model()[0];
    EXPECT_FALSE(m.usable);
    EXPECT_EQ(m.a, 0.0);
    EXPECT_EQ(m.b, off.sigma()[0] * off.sigma()[0]);
    EXPECT_EQ(usable_levels(m), 0);
    const NoiseModel n = on.model()[0];
    if (i == 0) {  // the first frame has estimated one level set
      EXPECT_LE(usable_levels(n), 1);
      EXPECT_FALSE(n.usable);
      EXPECT_EQ(n.a, 0.0);
      EXPECT_EQ(n.b, on.sigma()[0] * on.sigma()[0]);
    }
  }
  EXPECT_TRUE(on.model()[0].usable);
  EXPECT_GT(on.model()[0].a, 0.0);
}

// The model costs sigma() nothing: with it on, off, or a tracker of default
// settings, the same sigma() and last() bit for bit on every frame.
TEST(NoiseTrackerModel, ModelLeavesSigmaAsItIs) {
  NoiseTrackerSettings off;
  off.model = false;
  NoiseTracker defaults, without(off), with(with_model());
  for (int i = 0; i < 20; ++i) {
    const HostFrame f = noisy_frame(photo("coffee.png"), i < 10 ? 0.5 : 2.0, i < 10 ? 4.0 : 2.0, i, PixelFormat::I420);
    defaults.observe(f.view());
    without.observe(f.view());
    with.observe(f.view());
    EXPECT_EQ(without.sigma(), defaults.sigma()) << "frame " << i;
    EXPECT_EQ(with.sigma(), defaults.sigma()) << "frame " << i;
    for (std::size_t c = 0; c < 3; ++c) {
      EXPECT_EQ(with.last()[c].sigma, defaults.last()[c].sigma) << "frame " << i;
      EXPECT_EQ(with.last()[c].selected, defaults.last()[c].selected) << "frame " << i;
    }
  }
}

// Host frames follow the device path's schedule for the model too: after
// observe(frame t), t >= 1, model() is that of a tracker that has folded in
// frames 0 .. t - 1.
TEST(NoiseTrackerModel, EveryFrameButTheFirstIsFoldedInAFrameLate) {
  NoiseTracker lagged(with_model()), at_once(with_model());
  std::vector<std::vector<NoiseModel>> through;
  auto same = [](const std::vector<NoiseModel>& x, const std::vector<NoiseModel>& y, int frame) {
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t c = 0; c < x.size(); ++c) {
      EXPECT_EQ(x[c].a, y[c].a) << "frame " << frame;
      EXPECT_EQ(x[c].b, y[c].b) << "frame " << frame;
      EXPECT_EQ(x[c].usable, y[c].usable) << "frame " << frame;
      for (int k = 0; k < kNoiseModelLevels; ++k) {
        EXPECT_EQ(x[c].levels[k].mean, y[c].levels[k].mean) << "frame " << frame;
        EXPECT_EQ(x[c].levels[k].variance, y[c].levels[k].variance) << "frame " << frame;
      }
    }
  };
  for (int i = 0; i < 14; ++i) {
    const HostFrame f = noisy_frame(photo("chelsea.png"), i < 7 ? 0.5 : 2.0, i < 7 ? 4.0 : 2.0, i);
    lagged.observe(f.view());
    at_once.observe(f.view());
    at_once.flush();
    through.push_back(at_once.model());
    same(lagged.model(), through[i == 0 ? 0 : i - 1], i);
  }
  lagged.flush();
  same(lagged.model(), through.back(), 14);
}

// Every component has its own model: luma signal-dependent, chroma AWGN (flat).
TEST(NoiseTrackerModel, EveryComponentHasItsOwnModel) {
  const LumaSource& src = photo("astronaut.png");
  NoiseTracker t(with_model());
  for (int i = 0; i < 32; ++i) {
    HostFrame f(PixelFormat::I420, 512, 512);
    const auto comps = components(f.view());
    test::render_signal_dependent(src, 0.5, 4, 3 * i + 1, comps[0]);
    for (int c = 1; c < 3; ++c)
      test::render_signal_dependent(test::crop(src, 0, 0, 256, 256), 0, c == 1 ? 16 : 64, 3 * i + 1 + c, comps[c]);
    t.observe(f.view());
  }
  t.flush();
  const auto m = t.model();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_NEAR(m[0].a, 0.5, 0.075);
  EXPECT_EQ(m[1].a, 0.0);
  EXPECT_NEAR(std::sqrt(m[1].b), 4, 0.4);
  EXPECT_EQ(m[2].a, 0.0);
  EXPECT_NEAR(std::sqrt(m[2].b), 8, 0.8);
}

TEST(NoiseTrackerModel, RejectsBadSettings) {
  NoiseTrackerSettings s = with_model();
  s.model_time_constant = 0;
  EXPECT_THROW(NoiseTracker{s}, InvalidArgument);
  s = with_model();
  s.flat_ratio = -0.1;
  EXPECT_THROW(NoiseTracker{s}, InvalidArgument);
}

}  // namespace
}  // namespace cdn
