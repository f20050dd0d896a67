// test_pipd_reference.cpp: the CPU reference of PI-PD / hybrid on hand-made
// images with exact expectations, and parameter validation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <utility>

#include "cudadenoise/error.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/settings.h"
#include "pipd/binomial_filter.h"
#include "pipd/pipd_reference.h"
#include "test_support.h"

namespace cdn {
namespace {

using test::HostPlane;

struct Case {
  Mode mode;
  int thickness;
  int bytes;
  int prefilter = 0;  // direction-prefilter passes
};

class HandMade : public ::testing::TestWithParam<Case> {
 protected:
  PipdParams params() const {
    PipdParams p;
    p.thickness = GetParam().thickness;
    p.direction_prefilter = GetParam().prefilter;
    return p;
  }
  int depth() const { return GetParam().bytes == 1 ? 8 : 16; }
  int scale() const { return GetParam().bytes == 1 ? 1 : 257; }
};

TEST_P(HandMade, FlatStaysFlat) {
  HostPlane in(37, 29, GetParam().bytes, depth()), out(37, 29, GetParam().bytes, depth());
  for (int y = 0; y < 29; ++y)
    for (int x = 0; x < 37; ++x) in.view.set(x, y, 117 * scale());
  pipd_reference(in.view, out.view, GetParam().mode, params(), 2);
  for (int y = 0; y < 29; ++y)
    for (int x = 0; x < 37; ++x) ASSERT_EQ(out.view.get(x, y), 117 * scale()) << x << "," << y;
}

TEST_P(HandMade, NoiselessStepEdgeStaysSharp) {
  for (int vertical = 0; vertical < 2; ++vertical) {
    HostPlane in(40, 40, GetParam().bytes, depth()), out(40, 40, GetParam().bytes, depth());
    for (int y = 0; y < 40; ++y)
      for (int x = 0; x < 40; ++x) in.view.set(x, y, ((vertical ? x : y) < 17 ? 50 : 200) * scale());
    pipd_reference(in.view, out.view, GetParam().mode, params(), 2);
    for (int y = 0; y < 40; ++y)
      for (int x = 0; x < 40; ++x) ASSERT_EQ(out.view.get(x, y), in.view.get(x, y)) << x << "," << y;
  }
}

TEST_P(HandMade, RampSurvives) {
  // A horizontal ramp: isolines are the columns, so PI-PD keeps every value.
  // Thick isolines also average the columns either side: exact for a linear
  // ramp away from the left and right borders, where the clamp rule makes a flat
  // strip that horizontal thick patterns prefer (within l + 1 columns).
  HostPlane in(64, 48, GetParam().bytes, depth()), out(64, 48, GetParam().bytes, depth());
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) in.view.set(x, y, (60 + 2 * x) * scale());
  pipd_reference(in.view, out.view, GetParam().mode, params(), 2);
  const int margin = GetParam().thickness == 3 ? PipdParams().segment_length + 1 : 0;
  for (int y = 0; y < 48; ++y)
    for (int x = margin; x < 64 - margin; ++x) ASSERT_EQ(out.view.get(x, y), in.view.get(x, y)) << x << "," << y;
}

INSTANTIATE_TEST_SUITE_P(All, HandMade,
                         ::testing::Values(Case{Mode::Pipd, 1, 1}, Case{Mode::Pipd, 3, 1}, Case{Mode::Pipd, 1, 2},
                                           Case{Mode::Hybrid, 1, 1}, Case{Mode::Hybrid, 3, 1},
                                           Case{Mode::Hybrid, 1, 2}, Case{Mode::Pipd, 1, 1, 1},
                                           Case{Mode::Pipd, 3, 1, 1}, Case{Mode::Pipd, 1, 2, 2},
                                           Case{Mode::Hybrid, 3, 1, 2}),
                         [](const auto& info) {
                           return std::string(mode_name(info.param.mode)) + "_t" +
                                  std::to_string(info.param.thickness) + "_" + std::to_string(info.param.bytes * 8) +
                                  "bit" + (info.param.prefilter ? "_prefilter" + std::to_string(info.param.prefilter) : "");
                         });

TEST(BinomialFilter, ImpulseGivesTheRoundedKernel) {
  // [1 2 1]^T [1 2 1] / 16 around a single 160 on 0: 40 / 20 / 10, exact.
  HostPlane in(5, 5, 1, 8);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x) in.view.set(x, y, 0);
  in.view.set(2, 2, 160);
  const int want[3][3] = {{10, 20, 10}, {20, 40, 20}, {10, 20, 10}};
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x) {
      const bool near = std::abs(x - 2) <= 1 && std::abs(y - 2) <= 1;
      EXPECT_EQ(binomial3x3_at(in.view, x, y), near ? want[y - 1][x - 1] : 0) << x << "," << y;
    }
  // Round half up: a corner weight of 8/16 of 1 rounds to 1, 7/16 to 0.
  in.view.set(2, 2, 8);
  EXPECT_EQ(binomial3x3_at(in.view, 1, 1), 1);
  in.view.set(2, 2, 7);
  EXPECT_EQ(binomial3x3_at(in.view, 1, 1), 0);
}

TEST(BinomialFilter, KeepsConstantsAndRampsAndClampsAtTheBorder) {
  HostPlane in(9, 7, 2, 16);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 9; ++x) in.view.set(x, y, 1000 + 300 * x + 7 * y);
  for (int y = 1; y < 6; ++y)
    for (int x = 1; x < 8; ++x) EXPECT_EQ(binomial3x3_at(in.view, x, y), in.view.get(x, y)) << x << "," << y;
  // At x = 0 the clamp reads column 0 twice: (3 * 1000 + 1300) / 4 = 1075, plus the row term.
  EXPECT_EQ(binomial3x3_at(in.view, 0, 3), 1075 + 21);
  HostPlane one(1, 1, 2, 16);
  one.view.set(0, 0, 65535);
  EXPECT_EQ(binomial3x3_at(one.view, 0, 0), 65535);  // every tap is the one sample; no overflow
}

TEST(PipdReference, FollowsALineAcrossSegments) {
  // A one-pixel bright horizontal line on black with a few noisy pixels: the
  // pixel at the line's left end averages along the line (all 25 + 1 pixels are 200).
  HostPlane in(60, 21, 1, 8), out(60, 21, 1, 8);
  for (int y = 0; y < 21; ++y)
    for (int x = 0; x < 60; ++x) in.view.set(x, y, y == 10 ? 200 : ((x * 7 + y * 3) % 5) * 10);
  PipdStage1 s1;
  const PatternSet patterns = make_patterns(5, 1);
  pipd_stage1_reference(in.view, in.view, patterns, &s1, 1);
  EXPECT_EQ(s1.theta[10 * 60 + 5], 0);  // straight right along the line
  EXPECT_EQ(s1.sum[10 * 60 + 5], 5 * 200);
  GlrtTable t;
  make_glrt_table(1.0, &t);
  EXPECT_EQ(pipd_pixel_reference(in.view, s1, patterns, 5, t, 5, 10), 200);
}

TEST(PipdReference, Stage1PicksSegmentsThatEndInsideTheFrame) {
  // The border rule (docs/PIPD.md, "Borders"): where some segment ends inside
  // the frame, the chosen one does; in a frame too small for any (7x5 with l = 5,
  // its middle pixels), all directions stay candidates.
  for (const auto& size : {std::pair<int, int>{37, 29}, std::pair<int, int>{7, 5}, std::pair<int, int>{1, 1}})
    for (int thickness : {1, 3}) {
      const int w = size.first, h = size.second;
      HostPlane in(w, h, 1, 8);
      test::fill_random(in.view, 17 + w);
      const PatternSet patterns = make_patterns(5, thickness);
      PipdStage1 s1;
      pipd_stage1_reference(in.view, in.view, patterns, &s1, 1);
      auto ends_inside = [&](int d, int x, int y) {
        const int ex = x + patterns.end[d].dx, ey = y + patterns.end[d].dy;
        return ex >= 0 && ey >= 0 && ex < w && ey < h;
      };
      int fallbacks = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          bool any = false;
          for (int d = 0; d < kDirections; ++d) any = any || ends_inside(d, x, y);
          if (any)
            EXPECT_TRUE(ends_inside(s1.theta[y * w + x], x, y)) << w << "x" << h << " t" << thickness << " at " << x << "," << y;
          else
            ++fallbacks;
        }
      EXPECT_EQ(fallbacks > 0, w < 10 && h < 10) << w << "x" << h;
    }
}

TEST(PipdReference, SmoothsNoiseOnAFlatImage) {
  for (Mode mode : {Mode::Pipd, Mode::Hybrid}) {
    HostPlane in(64, 64, 1, 8), out(64, 64, 1, 8);
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) in.view.set(x, y, 128);
    add_gaussian_noise(in.view, 20.0, 3);
    double var_in = 0, var_out = 0;
    pipd_reference(in.view, out.view, mode, PipdParams(), 2);
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) {
        var_in += std::pow(in.view.get(x, y) - 128.0, 2);
        var_out += std::pow(out.view.get(x, y) - 128.0, 2);
      }
    std::printf("%s: noise variance %.1f -> %.1f\n", mode_name(mode), var_in / 4096, var_out / 4096);
    // A line of up to 26 pixels, and for hybrid a 41-pixel window in flat areas.
    EXPECT_LT(var_out, var_in / (mode == Mode::Pipd ? 2.5 : 4.0)) << mode_name(mode);
  }
}

TEST(PipdReference, TinyFramesFollowTheBorderRule) {
  for (int w = 1; w <= 3; ++w)
    for (int h = 1; h <= 3; ++h) {
      HostPlane in(w, h, 1, 8), out(w, h, 1, 8);
      test::fill_random(in.view, w * 10 + h);
      pipd_reference(in.view, out.view, Mode::Hybrid, PipdParams(), 1);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          EXPECT_GE(out.view.get(x, y), 0);
          EXPECT_LE(out.view.get(x, y), 255);
        }
      if (w == 1 && h == 1) {
        EXPECT_EQ(out.view.get(0, 0), in.view.get(0, 0));  // every read is the one pixel
      }
    }
}

TEST(Settings, DefaultsArePaperValues) {
  DenoiseSettings s;
  EXPECT_EQ(s.pipd.segment_length, 5);
  EXPECT_EQ(s.pipd.max_length, 25);
  EXPECT_EQ(s.pipd.tmax, 1.0);
  EXPECT_EQ(s.pipd.t2max, 2.0);
  EXPECT_EQ(s.pipd.thickness, 1);
  EXPECT_EQ(s.pipd.direction_prefilter, 0);  // our addition is off: the paper's algorithm by default
  EXPECT_NO_THROW(validate(s));
  for (const auto& spec : param_specs()) EXPECT_EQ(spec.get(s), spec.def) << spec.name;
}

TEST(Settings, OutOfRangeValuesAreRejectedWithTheirName) {
  for (const auto& spec : param_specs()) {
    for (double bad : {spec.min - 1, spec.max + 1}) {
      DenoiseSettings s;
      spec.set(s, bad);
      // An on/off choice kept as a bool cannot hold an out-of-range value (it
      // reads back as 1): the ways in refuse it before it is set (the flags'
      // range check, test_flags; the element's enum properties).
      if (spec.choices && spec.get(s) != bad) continue;
      try {
        validate(s);
        ADD_FAILURE() << spec.name << " = " << bad << " accepted";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(spec.name), std::string::npos) << e.what();
      }
    }
  }
  DenoiseSettings s;
  s.pipd.thickness = 2;
  EXPECT_THROW(validate(s), InvalidArgument);
  s = DenoiseSettings();
  s.pipd.tmax = 0.5;  // fractional thresholds are fine
  EXPECT_NO_THROW(validate(s));
}

TEST(Settings, MaxLengthMapsOntoWholeSegmentsWithOneRule) {
  // n is the paper's maximum isoline length: the isoline grows by whole segments
  // of l pixels within it, and always has its first: max(1, floor(n / l)).
  PipdParams p;
  EXPECT_EQ(p.max_segments(), 5);  // the paper's n = 25, l = 5
  p.max_length = 24;
  EXPECT_EQ(p.max_segments(), 4);
  p.segment_length = 4;
  EXPECT_EQ(p.max_segments(), 6);
  p.max_length = 3;
  EXPECT_EQ(p.max_segments(), 1);
  // No pair of the table's ranges is invalid, in whatever order the two are set.
  const ParamSpec &l = *find_param("segment-length"), &n = *find_param("max-length");
  for (int sl = int(l.min); sl <= int(l.max); ++sl)
    for (int len = int(n.min); len <= int(n.max); ++len) {
      DenoiseSettings s;
      l.set(s, sl);
      n.set(s, len);
      EXPECT_NO_THROW(validate(s)) << "l " << sl << " n " << len;
      EXPECT_EQ(s.pipd.max_segments(), std::max(1, len / sl));
    }
}

TEST(PipdReference, MaxLengthBetweenMultiplesFiltersAsTheMultipleBelow) {
  // Vertical stripes with mild noise and a lenient Tmax: isolines run long, so
  // the fifth segment (n = 25) changes pixels that n = 20 and n = 24 leave alike.
  // Stage 1 picks directions on a twice-smoothed copy (direction-prefilter 2):
  // on the raw noise neighbouring pixels pick opposite vertical directions and
  // the isoline stops turning back; five chained segments then only ever grew
  // where the outermost ring read the clamped border, which the border rule
  // (stage 1 takes segments that end inside the frame) removed.
  HostPlane in(48, 40, 1, 8), n20(48, 40, 1, 8), n24(48, 40, 1, 8), n25(48, 40, 1, 8);
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) in.view.set(x, y, 60 + 80 * ((x / 12) % 2) + ((x * 37 + y * 101) * 53) % 17);
  PipdParams p;
  p.tmax = 100;
  p.direction_prefilter = 2;
  int differ = 0;
  for (auto [len, out] : {std::pair{20, &n20}, std::pair{24, &n24}, std::pair{25, &n25}}) {
    p.max_length = len;
    pipd_reference(in.view, out->view, Mode::Pipd, p, 1);
  }
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) {
      ASSERT_EQ(n24.view.get(x, y), n20.view.get(x, y)) << x << "," << y;
      differ += n25.view.get(x, y) != n20.view.get(x, y);
    }
  EXPECT_GT(differ, 0) << "the test content never grows a fifth segment";
}

TEST(Settings, NamesRoundTrip) {
  Mode m;
  EXPECT_TRUE(parse_mode("hybrid", &m));
  EXPECT_EQ(m, Mode::Hybrid);
  EXPECT_FALSE(parse_mode("median", &m));
  Backend b;
  EXPECT_TRUE(parse_backend("cpu", &b));
  EXPECT_FALSE(parse_backend("opencl", &b));
  PlaneSelection p;
  EXPECT_TRUE(parse_planes("luma", &p));
  EXPECT_STREQ(planes_name(PlaneSelection::All), "all");
}

}  // namespace
}  // namespace cdn
