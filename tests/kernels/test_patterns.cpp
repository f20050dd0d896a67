// test_patterns.cpp: the generated pattern matrix P_l against the paper's figure 8.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "pipd/pipd_patterns.h"

namespace cdn {
namespace {

// Figure 8: the first 8 rows of P5, (delta i, delta j) = (dy, dx).
const int kFigure8[8][5][2] = {
    {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}},
    {{0, 1}, {0, 2}, {-1, 3}, {-1, 4}, {-1, 5}},
    {{0, 1}, {-1, 2}, {-1, 3}, {-2, 4}, {-2, 5}},
    {{-1, 1}, {-1, 2}, {-2, 3}, {-3, 4}, {-3, 5}},
    {{-1, 1}, {-2, 2}, {-3, 3}, {-4, 4}, {-5, 5}},
    {{-1, 1}, {-2, 1}, {-3, 2}, {-4, 3}, {-5, 3}},
    {{-1, 0}, {-2, 1}, {-3, 1}, {-4, 2}, {-5, 2}},
    {{-1, 0}, {-2, 0}, {-3, 1}, {-4, 1}, {-5, 1}},
};

TEST(Patterns, FirstQuarterEqualsFigure8) {
  const PatternSet p = make_patterns(5, 1);
  for (int d = 0; d < 8; ++d)
    for (int k = 0; k < 5; ++k) {
      EXPECT_EQ(p.pixel[d][k].dy, kFigure8[d][k][0]) << "d=" << d << " k=" << k;
      EXPECT_EQ(p.pixel[d][k].dx, kFigure8[d][k][1]) << "d=" << d << " k=" << k;
    }
}

TEST(Patterns, OtherQuartersAreRotations) {
  for (int l = 2; l <= kMaxSegmentLength; ++l) {
    const PatternSet p = make_patterns(l, 1);
    for (int d = 8; d < kDirections; ++d)
      for (int k = 0; k < l; ++k) {
        // (dy, dx) rotated by 90 degrees counter-clockwise on screen: (-dx, dy).
        EXPECT_EQ(p.pixel[d][k].dy, -p.pixel[d - 8][k].dx);
        EXPECT_EQ(p.pixel[d][k].dx, p.pixel[d - 8][k].dy);
      }
  }
}

TEST(Patterns, OppositeDirectionsAreMirrors) {
  const PatternSet p = make_patterns(5, 1);
  for (int d = 0; d < 16; ++d)
    for (int k = 0; k < 5; ++k) {
      EXPECT_EQ(p.pixel[d + 16][k].dy, -p.pixel[d][k].dy);
      EXPECT_EQ(p.pixel[d + 16][k].dx, -p.pixel[d][k].dx);
    }
}

TEST(Patterns, SegmentsAreConnectedStepsAwayFromTheCentre) {
  for (int l = 2; l <= kMaxSegmentLength; ++l) {
    const PatternSet p = make_patterns(l, 1);
    for (int d = 0; d < kDirections; ++d) {
      int py = 0, px = 0;
      for (int k = 0; k < l; ++k) {
        const int dy = p.pixel[d][k].dy - py, dx = p.pixel[d][k].dx - px;
        EXPECT_LE(std::abs(dy), 1);
        EXPECT_LE(std::abs(dx), 1);
        EXPECT_TRUE(dy != 0 || dx != 0);
        py = p.pixel[d][k].dy;
        px = p.pixel[d][k].dx;
      }
      EXPECT_EQ(p.end[d].dy, py);
      EXPECT_EQ(p.end[d].dx, px);
    }
  }
}

TEST(Patterns, BaseDirectionsShareNoPixel) {
  // The hybrid edge detector relies on the 8 multiples of 45 degrees being disjoint.
  const PatternSet p = make_patterns(5, 1);
  std::set<std::pair<int, int>> seen;
  for (int b = 0; b < 8; ++b)
    for (int k = 0; k < 5; ++k) EXPECT_TRUE(seen.insert({p.pixel[4 * b][k].dy, p.pixel[4 * b][k].dx}).second);
  EXPECT_EQ(seen.size(), 40u);
}

TEST(Patterns, ThickPatternsHaveThreeDistinctPixelsPerStep) {
  const PatternSet p = make_patterns(5, 3);
  EXPECT_EQ(p.pixels, 15);
  for (int d = 0; d < kDirections; ++d) {
    std::set<std::pair<int, int>> seen;
    for (int k = 0; k < p.pixels; ++k) seen.insert({p.pixel[d][k].dy, p.pixel[d][k].dx});
    EXPECT_EQ(seen.size(), 15u) << "d=" << d;
    std::set<std::pair<int, int>> centre;
    for (int t = 0; t < 3; ++t) centre.insert({p.centre[d][t].dy, p.centre[d][t].dx});
    EXPECT_EQ(centre.size(), 3u);
    EXPECT_TRUE(centre.count({0, 0}));
  }
}

TEST(Patterns, DirectionDistanceIsCircular) {
  EXPECT_EQ(direction_distance(0, 31), 1);
  EXPECT_EQ(direction_distance(0, 16), 16);
  EXPECT_EQ(direction_distance(3, 11), 8);
  EXPECT_EQ(direction_distance(28, 4), 8);
}

TEST(Patterns, RejectsBadSizes) {
  EXPECT_ANY_THROW(make_patterns(0, 1));
  EXPECT_ANY_THROW(make_patterns(kMaxSegmentLength + 1, 1));
  EXPECT_ANY_THROW(make_patterns(5, 2));
}

}  // namespace
}  // namespace cdn
