// test_variance_stabilization.cpp: the variance-stabilising transforms
// (variance_stabilization.h), CPU reference: the generalized Anscombe
// transform's variance near 1 and its closed-form inverse unbiased where the
// algebraic one is not (Makitalo & Foi 2013), its scaling to code values; the
// curve transform of a constant sigma affine and inverted exactly, and of a
// bending sigma(x) stabilising its noise.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cudadenoise/variance_stabilization.h"

namespace cdn {
namespace {

// Poisson-Gaussian samples of unit gain: the GAT's variance is near 1 from
// moderate counts on, and its closed-form inverse gives back the mean.
TEST(AnscombeTransform, StabilisesAndInvertsWithoutBias) {
  std::mt19937_64 rng(2);
  for (double s2 : {0.0, 1.0, 4.0}) {
    for (double mu : {2.0, 5.0, 20.0, 100.0}) {
      SCOPED_TRACE("mu " + std::to_string(mu) + " s2 " + std::to_string(s2));
      std::poisson_distribution<int> poisson(mu);
      std::normal_distribution<double> gauss(0.0, 1.0);
      const AnscombeTransform t{1.0, s2};
      double sum = 0, sum2 = 0;
      const int n = 400000;
      for (int i = 0; i < n; ++i) {
        const double d = t.forward(poisson(rng) + std::sqrt(s2) * gauss(rng));
        sum += d;
        sum2 += d * d;
      }
      const double mean = sum / n, var = sum2 / n - mean * mean;
      if (mu >= 5) EXPECT_NEAR(var, 1.0, 0.06);  // the GAT stabilises from moderate counts on
      EXPECT_NEAR(t.inverse(mean), mu, 0.02 * mu + 0.05);
      if (mu <= 5) EXPECT_LT(t.algebraic_inverse(mean), mu - 0.1) << "the algebraic inverse is biased low";
    }
  }
}

TEST(AnscombeTransform, CodeValueScaleFollowsA) {
  // var(x) = a x + b in code values: forward(x) = GAT of x / a with s2 = b / a^2.
  const AnscombeTransform t{0.5, 4.0};
  const AnscombeTransform unit{1.0, 4.0 / 0.25};
  for (double x : {0.0, 10.0, 100.0, 250.0}) EXPECT_NEAR(t.forward(x), unit.forward(x / 0.5), 1e-12);
  for (double d : {5.0, 20.0, 40.0}) EXPECT_NEAR(t.inverse(d), 0.5 * unit.inverse(d), 1e-12);
}

TEST(CurveTransform, ConstantSigmaIsAffineAndInvertsExactly) {
  const CurveTransform t([](double) { return 4.0; });
  for (double x : {0.0, 1.5, 64.0, 200.0, 255.0}) {
    EXPECT_NEAR(t.forward(x), x / 4.0, 1e-9);
    EXPECT_NEAR(t.inverse(t.forward(x)), x, 1e-9);
  }
}

TEST(CurveTransform, StabilisesTheNoiseOfItsCurve) {
  // sigma(x) = sqrt(0.5 x + 4): the transformed noise has a std near 1 at every level.
  const auto sigma = [](double x) { return std::sqrt(0.5 * x + 4.0); };
  const CurveTransform t(sigma);
  std::mt19937_64 rng(4);
  std::normal_distribution<double> z(0.0, 1.0);
  for (double x : {20.0, 80.0, 160.0, 230.0}) {
    double sum = 0, sum2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double v = t.forward(x + sigma(x) * z(rng));
      sum += v;
      sum2 += v * v;
    }
    const double mean = sum / n;
    EXPECT_NEAR(std::sqrt(sum2 / n - mean * mean), 1.0, 0.03) << "at " << x;
    for (double y : {x - 3, x, x + 3}) EXPECT_NEAR(t.inverse(t.forward(y)), y, 1e-6);
  }
}

}  // namespace
}  // namespace cdn
