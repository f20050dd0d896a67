// test_glrt.cpp: the exact integer GLRT against the paper's log-form (eq. 8).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "pipd/pipd_glrt.h"

namespace cdn {
namespace {

struct Set {
  std::int64_t s = 0, q = 0, n = 0;
  void add(int z) {
    s += z;
    q += std::int64_t(z) * z;
    ++n;
  }
  double var() const { return double(q) / n - (double(s) / n) * (double(s) / n); }
};

// N log(var_merged / var_pooled), straight from the definitions.
double statistic(const Set& a, const Set& b) {
  Set m;
  m.s = a.s + b.s;
  m.q = a.q + b.q;
  m.n = a.n + b.n;
  const double pooled = (a.n * a.var() + b.n * b.var()) / m.n;
  return m.n * std::log(m.var() / pooled);
}

TEST(Glrt, AgreesWithLogFormOnRandomSets) {
  std::mt19937 rng(7);
  GlrtTable table;
  const double t = 1.0;
  make_glrt_table(t, &table);
  int checked = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    Set a, b;
    const int na = 1 + rng() % 40, nb = 1 + rng() % 15;
    const int spread = 1 + rng() % 255, offset = rng() % 64;
    for (int i = 0; i < na; ++i) a.add(rng() % spread);
    for (int i = 0; i < nb; ++i) b.add(offset + rng() % spread);
    const bool exact = glrt_accepts_merge(a.s, a.q, a.n, b.s, b.q, b.n, table.at(a.n + b.n));
    const double pooled = a.n * a.var() + b.n * b.var();
    if (pooled <= 0) continue;  // degenerate cases are tested below
    const double stat = statistic(a, b);
    if (std::fabs(stat - t) < 1e-9) continue;  // a tie within rounding: either answer is right
    EXPECT_EQ(exact, stat < t) << "stat=" << stat;
    ++checked;
  }
  EXPECT_GT(checked, 15000);
}

TEST(Glrt, DegenerateCases) {
  GlrtTable table;
  make_glrt_table(1.0, &table);
  // Two constant parts at the same level: one isoline.
  EXPECT_TRUE(glrt_accepts_merge(5 * 10, 5 * 100, 5, 5 * 10, 5 * 100, 5, table.at(10)));
  // Two constant parts at different levels: never one isoline.
  EXPECT_FALSE(glrt_accepts_merge(5 * 10, 5 * 100, 5, 5 * 11, 5 * 121, 5, table.at(10)));
  // Tmax = 0 accepts only variance-free merges.
  GlrtTable zero;
  make_glrt_table(0.0, &zero);
  EXPECT_FALSE(glrt_accepts_merge(3, 5, 2, 3, 5, 2, zero.at(4)));
}

TEST(Glrt, LargeSixteenBitSumsStayExact) {
  // Worst case of the parameter ranges: 16-bit samples, 195 pixels in the merge.
  GlrtTable table;
  make_glrt_table(1.0, &table);
  Set a, b;
  for (int i = 0; i < 171; ++i) a.add(i % 2 ? 65535 : 0);
  for (int i = 0; i < 24; ++i) b.add(65535);
  const bool exact = glrt_accepts_merge(a.s, a.q, a.n, b.s, b.q, b.n, table.at(a.n + b.n));
  EXPECT_EQ(exact, statistic(a, b) < 1.0);
}

TEST(Glrt, RoundedMean) {
  EXPECT_EQ(rounded_mean(10, 4), 3);  // 2.5 rounds up
  EXPECT_EQ(rounded_mean(9, 4), 2);   // 2.25
  EXPECT_EQ(rounded_mean(11, 4), 3);  // 2.75
  EXPECT_EQ(rounded_mean(0, 7), 0);
}

}  // namespace
}  // namespace cdn
