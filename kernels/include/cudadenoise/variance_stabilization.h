// variance_stabilization.h: transforms that turn signal-dependent noise of a
// known noise level function into noise of unit variance, and back (issue 37;
// docs/NOISE.md, "Variance stabilisation"). The CPU reference, per sample.
//
// - The generalized Anscombe transform (GAT) for var(x) = a x + b (a > 0), in
//   8-bit code values: y = x / a is Poisson-Gaussian of unit gain with Gaussian
//   variance s2 = b / a^2, and f(y) = 2 sqrt(max(y + 3/8 + s2, 0)) has variance
//   about 1 (Starck, Murtagh & Bijaoui 1998). Its inverse is the closed-form
//   approximation of the exact unbiased inverse of Makitalo & Foi, "Optimal
//   inversion of the generalized Anscombe transformation for Poisson-Gaussian
//   noise", IEEE TIP 22(1), 2013, Sec. IV: 1/4 D^2 + 1/4 sqrt(3/2) D^-1 -
//   11/8 D^-2 + 5/8 sqrt(3/2) D^-3 - 1/8 - s2, the expectation of the
//   transformed noisy value mapped back to the clean one (the algebraic
//   inverse, (D / 2)^2 - 3/8 - s2, is biased low at small counts).
// - a = 0 (AWGN) is the affine case: f(x) = x / sqrt(b), inverted exactly.
// - A free noise level function sigma(x) (gamma-encoded video): f(x) = the
//   integral of 1 / sigma from 0 to x, tabulated, and its algebraic inverse
//   (exact for the affine case; biased where sigma(x) bends over the noise's
//   spread, as any algebraic inverse).
#pragma once

#include <functional>
#include <vector>

namespace cdn {

// The GAT of var(x) = a x + b (a > 0, 8-bit code values).
struct AnscombeTransform {
  double a = 1, b = 0;
  double forward(double x) const;
  // The closed-form unbiased inverse (Makitalo & Foi 2013); x >= 0.
  double inverse(double d) const;
  // The algebraic inverse of forward() (biased; for comparison).
  double algebraic_inverse(double d) const;
};

// The integral of 1 / sigma(x) over [0, x_max], tabulated at `steps` points,
// with linear interpolation both ways.
class CurveTransform {
 public:
  CurveTransform(const std::function<double(double)>& sigma, double x_max = 255.0, int steps = 4096);
  double forward(double x) const;
  double inverse(double t) const;  // algebraic
  double range() const { return table_.back(); }  // forward(x_max)

 private:
  double x_max_, dx_;
  std::vector<double> table_;  // forward(i dx)
};

}  // namespace cdn
