// gamma_distribution.cpp: incomplete gamma function and gamma quantile (gamma_distribution.h).
#include "noise/gamma_distribution.h"

#include <cmath>
#include <limits>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

// P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)).
double p_series(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < 10000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term < sum * 1e-16) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Q(a, x) = e^-x x^a / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)),
// evaluated by the modified Lentz method.
double q_continued_fraction(double a, double x) {
  const double tiny = std::numeric_limits<double>::min() / std::numeric_limits<double>::epsilon();
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int n = 1; n < 10000; ++n) {
    const double an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-16) break;
  }
  return h * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

}  // namespace

double gamma_p(double a, double x) {
  if (!(a > 0) || !(x >= 0)) throw InvalidArgument("gamma_p: needs a > 0 and x >= 0");
  if (x == 0) return 0;
  return x < a + 1 ? p_series(a, x) : 1 - q_continued_fraction(a, x);
}

double gamma_quantile(double p, double shape, double scale) {
  if (!(p > 0 && p < 1) || !(shape > 0) || !(scale > 0))
    throw InvalidArgument("gamma_quantile: needs 0 < p < 1, shape > 0, scale > 0");
  // P(shape, .) increases from 0 to 1: bracket, then bisect.
  double lo = 0, hi = shape + 1;
  while (gamma_p(shape, hi) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (gamma_p(shape, mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi) * scale;
}

}  // namespace cdn
