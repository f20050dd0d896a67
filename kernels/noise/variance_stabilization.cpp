// variance_stabilization.cpp: the generalized Anscombe transform and its
// closed-form unbiased inverse, the integral transform of a free noise level
// function (variance_stabilization.h).
#include "cudadenoise/variance_stabilization.h"

#include <algorithm>
#include <cmath>

#include "cudadenoise/error.h"

namespace cdn {

double AnscombeTransform::forward(double x) const {
  const double s2 = b / (a * a);
  return 2.0 * std::sqrt(std::max(x / a + 0.375 + s2, 0.0));
}

double AnscombeTransform::inverse(double d) const {
  const double s2 = b / (a * a);
  // Makitalo & Foi 2013, Sec. IV: the closed form of the exact unbiased inverse;
  // below D = 1 it is not meaningful (and the clean value is 0 there).
  if (d < 1.0) return 0.0;
  const double r = std::sqrt(1.5);
  const double y = 0.25 * d * d + 0.25 * r / d - 1.375 / (d * d) + 0.625 * r / (d * d * d) - 0.125 - s2;
  return std::max(y, 0.0) * a;
}

double AnscombeTransform::algebraic_inverse(double d) const {
  const double s2 = b / (a * a);
  return std::max(0.25 * d * d - 0.375 - s2, 0.0) * a;
}

CurveTransform::CurveTransform(const std::function<double(double)>& sigma, double x_max, int steps)
    : x_max_(x_max), dx_(x_max / steps), table_(steps + 1, 0.0) {
  if (steps < 2 || !(x_max > 0)) throw InvalidArgument("CurveTransform: needs x_max > 0 and 2 steps or more");
  // The trapezoid rule over each step.
  double prev = 1.0 / sigma(0.0);
  for (int i = 1; i <= steps; ++i) {
    const double s = sigma(i * dx_);
    if (!(s > 0)) throw InvalidArgument("CurveTransform: sigma(x) must be positive");
    const double cur = 1.0 / s;
    table_[i] = table_[i - 1] + 0.5 * (prev + cur) * dx_;
    prev = cur;
  }
}

double CurveTransform::forward(double x) const {
  const int n = static_cast<int>(table_.size()) - 1;
  if (x <= 0) return table_[1] / dx_ * x;  // the slope of the first step, below 0
  if (x >= x_max_) return table_[n] + (table_[n] - table_[n - 1]) / dx_ * (x - x_max_);
  const double p = x / dx_;
  const int i = std::min(static_cast<int>(p), n - 1);
  return table_[i] + (p - i) * (table_[i + 1] - table_[i]);
}

double CurveTransform::inverse(double t) const {
  const int n = static_cast<int>(table_.size()) - 1;
  if (t <= 0) return t * dx_ / table_[1];
  if (t >= table_[n]) return x_max_ + (t - table_[n]) * dx_ / (table_[n] - table_[n - 1]);
  const int i = static_cast<int>(std::upper_bound(table_.begin(), table_.end(), t) - table_.begin()) - 1;
  return (i + (t - table_[i]) / (table_[i + 1] - table_[i])) * dx_;
}

}  // namespace cdn
