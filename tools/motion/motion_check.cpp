// motion_check.cpp: field agreement and motion-compensated prediction error
// (motion_check.h).
#include "motion_check.h"

#include <cmath>
#include <cstdlib>

#include "cudadenoise/error.h"

namespace cdn::motion_check {

Agreement compare_fields(const MotionField& truth, const MotionField& test) {
  if (truth.cols != test.cols || truth.rows != test.rows || truth.cell != test.cell)
    throw InvalidArgument("motion check: the fields describe different grids");
  Agreement a;
  double epe = 0;
  for (std::size_t i = 0; i < truth.v.size(); ++i) {
    const int dx = truth.v[i].dx - test.v[i].dx, dy = truth.v[i].dy - test.v[i].dy;
    a.off += std::abs(dx) > 1 || std::abs(dy) > 1;
    epe += std::sqrt(static_cast<double>(dx) * dx + static_cast<double>(dy) * dy);
  }
  a.cells = static_cast<long>(truth.v.size());
  a.epe = a.cells ? epe / a.cells : 0;
  return a;
}

double compensation_mse(const PlaneView& from, const PlaneView& to, const MotionField& field) {
  if (from.width != to.width || from.height != to.height || from.width != field.width ||
      from.height != field.height)
    throw InvalidArgument("motion check: planes and field of different sizes");
  double sum = 0;
  for (int y = 0; y < from.height; ++y)
    for (int x = 0; x < from.width; ++x) {
      const MotionVector v = field.view().at_pixel(x, y);
      const int tx = clamp_coord(x + v.dx, to.width), ty = clamp_coord(y + v.dy, to.height);
      const double d = static_cast<double>(from.get(x, y)) - to.get(tx, ty);
      sum += d * d;
    }
  return sum / (static_cast<double>(from.width) * from.height);
}

}  // namespace cdn::motion_check
