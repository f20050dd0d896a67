// gamma_distribution.h: the regularized lower incomplete gamma function and the
// quantile of the gamma distribution, for the weak-texture threshold of the
// noise estimator (noise_level.h; Liu, Tanaka & Okutomi 2013, Sec. III-B: the
// texture strength of a pure-noise patch is approximately gamma distributed).
//
// P(a, x) by its power series for x < a + 1 and by the continued fraction of
// Q = 1 - P otherwise (both as in Abramowitz & Stegun 6.5.29 and 6.5.31), the
// quantile by bisection on P. Double precision, relative accuracy ~1e-12.
#pragma once

namespace cdn {

// P(a, x) = gamma(a, x) / Gamma(a), a > 0, x >= 0.
double gamma_p(double a, double x);

// The x with P(shape, x / scale) = p, for 0 < p < 1, shape > 0, scale > 0.
double gamma_quantile(double p, double shape, double scale);

}  // namespace cdn
