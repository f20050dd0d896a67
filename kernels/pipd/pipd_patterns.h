// pipd_patterns.h: the segment pattern matrix P_l of PI-PD (paper section VII-A,
// kernel_genPaths, figure 8), generated in code for D = 32 directions.
//
// Direction d has angle d * 11.25 degrees, counter-clockwise from "right", with
// rows growing downwards (so "up" is dy < 0). For the first quarter (d = 0..7)
// pixel k = 1..l of the pattern steps one pixel along the major axis and rounds
// the minor axis: d <= 4: (dy, dx) = (-round(k tan a), k); d >= 5: (-k, round(k cot a)).
// This reproduces figure 8 exactly for l = 5; the other three quarters are
// rotations by 90 degrees, (dy, dx) -> (-dx, dy). The centre pixel is not part
// of a pattern.
//
// Thickness 3 (section VI-B, "thicken poly-isolines from one pixel up to three")
// is our concrete rule: each pattern pixel brings its two neighbours across the
// pattern's major axis (above/below for mostly-horizontal directions, left/right
// for mostly-vertical ones); the centre pixel likewise, across the first segment.
#pragma once

#include <cstdint>

#include "cudadenoise/plane.h"  // CDN_HD

namespace cdn {

constexpr int kDirections = 32;
constexpr int kMaxSegmentLength = 8;
constexpr int kMaxThickness = 3;
constexpr int kMaxPatternPixels = kMaxSegmentLength * kMaxThickness;

struct Offset {
  std::int8_t dy;  // row offset (paper's delta i)
  std::int8_t dx;  // column offset (paper's delta j)
};

struct PatternSet {
  int length = 0;      // l
  int thickness = 1;   // 1 or 3
  int pixels = 0;      // pixels per pattern: length * thickness
  // pixel[d][0..pixels): the thin pixels first (k = 1..l), then for thickness 3
  // the two neighbours of pixel k at [l + 2(k-1)] and [l + 2(k-1) + 1].
  Offset pixel[kDirections][kMaxPatternPixels];
  Offset end[kDirections];                       // pixel l: where the next segment starts
  Offset centre[kDirections][kMaxThickness];     // the centre pixel and, if thick, its neighbours
};

// Thin pattern pixel k (1..length) of direction d.
Offset pattern_pixel(int d, int k);
// True when direction d steps along x (|cos| >= |sin|), so thickening goes along y.
bool mostly_horizontal(int d);
// Circular distance between two directions, 0..16.
CDN_HD int direction_distance(int a, int b) {
  const int d = (a - b) & (kDirections - 1);
  return d > kDirections / 2 ? kDirections - d : d;
}

PatternSet make_patterns(int length, int thickness);

}  // namespace cdn
