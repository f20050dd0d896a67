// test_noise_tracker_model_quality.cpp: how well the noise model over frames
// (NoiseTracker with NoiseTrackerSettings::model) follows the truth on real
// photos with fresh noise of variance a x + b every frame (issue 37's
// protocol): a and the free curve after 32 frames (issue 37's target), and the
// measurement behind flat_ratio's default. Suite 'slow' (kernels/meson.build):
// left out of the sanitizer leg of CI; test_noise_tracker_model.cpp runs the
// same code there.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "cudadenoise/noise_tracker.h"
#include "tracker_model_test_support.h"

namespace cdn {
namespace {

using test::kWidePhotos;
using test::photo;
using test::track;
using test::usable_levels;
using test::with_model;

constexpr double kRounding = test::kRoundingVariance;
using test::curve_rms_error;

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
TEST(NoiseTrackerModelQuality, FlatRuleSeparatesWhiteFromSignalDependentNoise) {
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
TEST(NoiseTrackerModelQuality, FollowsAAndTheCurveOnRealPhotos) {
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

}  // namespace
}  // namespace cdn
