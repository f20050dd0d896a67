// pipd_patterns.cpp: generation of the PI-PD pattern matrix (pipd_patterns.h).
#include "pipd/pipd_patterns.h"

#include <cmath>

#include "cudadenoise/error.h"

namespace cdn {

namespace {
constexpr double kPi = 3.14159265358979323846;

Offset rotate90(Offset o) { return Offset{static_cast<std::int8_t>(-o.dx), o.dy}; }
}  // namespace

bool mostly_horizontal(int d) {
  const bool base_horizontal = (d % 8) <= 4;
  const bool odd_quarter = ((d / 8) % 2) == 1;
  return base_horizontal != odd_quarter;
}

Offset pattern_pixel(int d, int k) {
  const int quarter = d / 8;
  const int base = d % 8;
  const double angle = base * (2.0 * kPi / kDirections);
  Offset o;
  if (base <= 4) {
    o.dx = static_cast<std::int8_t>(k);
    o.dy = static_cast<std::int8_t>(-std::lround(k * std::tan(angle)));
  } else {
    o.dy = static_cast<std::int8_t>(-k);
    o.dx = static_cast<std::int8_t>(std::lround(k / std::tan(angle)));
  }
  for (int q = 0; q < quarter; ++q) o = rotate90(o);
  return o;
}

PatternSet make_patterns(int length, int thickness) {
  if (length < 1 || length > kMaxSegmentLength) throw InvalidArgument("segment length out of range");
  if (thickness != 1 && thickness != 3) throw InvalidArgument("thickness must be 1 or 3");
  PatternSet p;
  p.length = length;
  p.thickness = thickness;
  p.pixels = length * thickness;
  for (int d = 0; d < kDirections; ++d) {
    // Across the major axis: +/-1 row for mostly horizontal directions, +/-1 column otherwise.
    const Offset across = mostly_horizontal(d) ? Offset{1, 0} : Offset{0, 1};
    auto shifted = [](Offset o, Offset by, int sign) {
      return Offset{static_cast<std::int8_t>(o.dy + sign * by.dy), static_cast<std::int8_t>(o.dx + sign * by.dx)};
    };
    for (int k = 1; k <= length; ++k) {
      const Offset o = pattern_pixel(d, k);
      p.pixel[d][k - 1] = o;
      if (thickness == 3) {
        p.pixel[d][length + 2 * (k - 1)] = shifted(o, across, +1);
        p.pixel[d][length + 2 * (k - 1) + 1] = shifted(o, across, -1);
      }
    }
    p.end[d] = pattern_pixel(d, length);
    p.centre[d][0] = Offset{0, 0};
    p.centre[d][1] = shifted(Offset{0, 0}, across, +1);
    p.centre[d][2] = shifted(Offset{0, 0}, across, -1);
  }
  return p;
}

}  // namespace cdn
