// test_bm3d.cpp: the pieces of the BM3D reference against their definitions
// (transforms, Kaiser window, block matching against a brute-force search,
// group filtering and its weights, geometry) and the whole filter on hand-made
// and odd-sized inputs, 8-, 10- and 16-bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "bm3d/bm3d_best_keys.h"
#include "bm3d/bm3d_profile.h"
#include "bm3d/bm3d_reference.h"
#include "bm3d/bm3d_transforms.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/noise_estimate.h"
#include "test_support.h"

namespace cdn::bm3d {
namespace {

using test::HostPlane;

// The bytes of memory plane p of a host frame, row by row (padding left out).
std::vector<std::uint8_t> plane_bytes(const HostFrame& f, int p) {
  const FrameView& v = f.view();
  std::vector<std::uint8_t> b;
  const auto* base = static_cast<const std::uint8_t*>(v.data[p]);
  for (int y = 0; y < plane_height(v.format, v.height, p); ++y)
    b.insert(b.end(), base + y * v.pitch[p], base + y * v.pitch[p] + plane_row_bytes(v.format, v.width, p));
  return b;
}

std::vector<float> random_values(int n, unsigned seed, float lo = -200, float hi = 200) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(Bm3dTransforms, FastDctEqualsTheFormula) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    const std::vector<float> x = random_values(8, seed);
    double in[8], want[8];
    for (int n = 0; n < 8; ++n) in[n] = x[n];
    dct8_direct(in, want);
    std::vector<float> got = x;
    dct8_forward(got.data(), 1);
    for (int k = 0; k < 8; ++k) EXPECT_NEAR(got[k], want[k], 1e-3) << "k " << k << " seed " << seed;
  }
}

TEST(Bm3dTransforms, DctMatrixIsOrthonormal) {
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      double dot = 0;
      for (int n = 0; n < 8; ++n) dot += dct8_coefficient(a, n) * dct8_coefficient(b, n);
      EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-12);
    }
}

TEST(Bm3dTransforms, InverseAfterForwardIsIdentity) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const std::vector<float> x = random_values(64, seed);
    std::vector<float> y = x;
    dct8x8_forward(y.data());
    // Orthonormal: energy is kept.
    double ex = 0, ey = 0;
    for (int i = 0; i < 64; ++i) {
      ex += double(x[i]) * x[i];
      ey += double(y[i]) * y[i];
    }
    EXPECT_NEAR(ey / ex, 1.0, 1e-5);
    dct8x8_inverse(y.data());
    for (int i = 0; i < 64; ++i) EXPECT_NEAR(y[i], x[i], 1e-3);
  }
}

TEST(Bm3dTransforms, WalshHadamardEqualsTheFormulaAndIsItsOwnInverse) {
  for (int n = 1; n <= 32; n *= 2) {
    const std::vector<float> x = random_values(n, 100 + n);
    std::vector<float> y = x;
    wht_inplace(y.data(), n, 1);
    for (int k = 0; k < n; ++k) {
      double want = 0;
      for (int i = 0; i < n; ++i) want += (__builtin_popcount(i & k) % 2 ? -1.0 : 1.0) * x[i];
      want /= std::sqrt(double(n));
      EXPECT_NEAR(y[k], want, 1e-3) << "n " << n << " k " << k;
    }
    wht_inplace(y.data(), n, 1);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(y[i], x[i], 1e-3);
  }
}

TEST(Bm3dTransforms, GroupTransformRoundTrips) {
  for (int n : {1, 2, 4, 16, 32}) {
    const std::vector<float> x = random_values(n * 64, 7 + n, 0, 255);
    std::vector<float> y = x;
    transform_group(y.data(), n);
    inverse_transform_group(y.data(), n);
    for (int i = 0; i < n * 64; ++i) ASSERT_NEAR(y[i], x[i], 2e-3) << "n " << n;
  }
}

TEST(Bm3dTransforms, KaiserWindowIsTheBesselFormula) {
  for (int n = 0; n < 8; ++n) {
    const double r = 2.0 * n / 7.0 - 1.0;
    const double want = std::cyl_bessel_i(0.0, 2.0 * std::sqrt(1 - r * r)) / std::cyl_bessel_i(0.0, 2.0);
    EXPECT_NEAR(kaiser8(n, 2.0), want, 1e-12);
    EXPECT_DOUBLE_EQ(kaiser8(n, 2.0), kaiser8(7 - n, 2.0));
  }
  const auto k = kaiser_window();
  EXPECT_NEAR(k[0], kaiser8(0, 2.0) * kaiser8(0, 2.0), 1e-7);
  EXPECT_GT(k[0], 0.f);  // every pixel of a patch takes part in the aggregation
}

TEST(Bm3dTransforms, HaarIsOrthonormalAndInvertible) {
  for (int n = 1; n <= 32; n *= 2) {
    // Orthonormal: the images of the unit vectors are orthonormal.
    std::vector<std::vector<float>> rows;
    for (int i = 0; i < n; ++i) {
      std::vector<float> e(n, 0.f);
      e[i] = 1.f;
      haar_forward(e.data(), n, 1);
      rows.push_back(e);
    }
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        double dot = 0;
        for (int k = 0; k < n; ++k) dot += double(rows[a][k]) * rows[b][k];
        EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-6) << "n " << n;
      }
    const std::vector<float> x = random_values(n, 300 + n);
    std::vector<float> y = x;
    haar_forward(y.data(), n, 1);
    // A constant's energy is all in v[0]; v[0] is the sum over sqrt(n), as the WHT's.
    double sum = 0;
    for (float v : x) sum += v;
    EXPECT_NEAR(y[0], sum / std::sqrt(double(n)), 1e-3);
    if (n >= 4) {  // a finest detail: the pair (x[2], x[3])
      EXPECT_NEAR(y[3], (x[2] - x[3]) / std::sqrt(2.0), 1e-3);
    }
    haar_inverse(y.data(), n, 1);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(y[i], x[i], 1e-3);
  }
}

TEST(Bm3dTransforms, Bior15MatrixIsTheNormalizedDecomposition) {
  const Bior15Matrices m = bior15_matrices();
  // Rows of unit norm, inverse exact.
  for (int r = 0; r < 8; ++r) {
    double n2 = 0;
    for (int c = 0; c < 8; ++c) n2 += m.forward[r * 8 + c] * m.forward[r * 8 + c];
    EXPECT_NEAR(n2, 1.0, 1e-12);
  }
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      double v = 0;
      for (int k = 0; k < 8; ++k) v += m.forward[r * 8 + k] * m.inverse[k * 8 + c];
      EXPECT_NEAR(v, r == c ? 1.0 : 0.0, 1e-12);
    }
  // Row 0: the approximation, the mean. Rows 4..7: the finest details, Haar
  // pairs (the bior1.5 analysis high-pass). Row 2: the level-2 detail, the
  // difference of two level-1 low-pass outputs of the 10-tap filter
  // (128 +- 22 on the pair, 22 on the periodic wrap); row 1: the level-3 detail.
  auto proportional = [&](int r, std::vector<double> want) {
    double n2 = 0;
    int big = 0;
    for (int c = 0; c < 8; ++c) {
      n2 += want[c] * want[c];
      if (std::fabs(want[c]) > std::fabs(want[big])) big = c;
    }
    const double sign = m.forward[r * 8 + big] * want[big] >= 0 ? 1 : -1;  // a row's sign is free
    for (int c = 0; c < 8; ++c) EXPECT_NEAR(m.forward[r * 8 + c], sign * want[c] / std::sqrt(n2), 1e-12) << r << "," << c;
  };
  proportional(0, {1, 1, 1, 1, 1, 1, 1, 1});
  proportional(1, {84, 172, 172, 84, -84, -172, -172, -84});
  proportional(2, {150, 106, -106, -150, -22, 22, -22, 22});
  proportional(4, {1, -1, 0, 0, 0, 0, 0, 0});
  proportional(7, {0, 0, 0, 0, 0, 0, 1, -1});
  // Not orthogonal: rows 2 and 3 overlap (the noise of their coefficients is correlated).
  double dot = 0;
  for (int c = 0; c < 8; ++c) dot += m.forward[2 * 8 + c] * m.forward[3 * 8 + c];
  EXPECT_GT(std::fabs(dot), 0.01);
}

TEST(Bm3dTransforms, ReferenceGroupTransformRoundTrips) {
  for (int n : {1, 2, 8, 32}) {
    const std::vector<float> x = random_values(n * 64, 40 + n, 0, 255);
    std::vector<float> y = x;
    transform_group(y.data(), n, Transform2d::Bior15, Transform1d::Haar);
    inverse_transform_group(y.data(), n, Transform2d::Bior15, Transform1d::Haar);
    for (int i = 0; i < n * 64; ++i) ASSERT_NEAR(y[i], x[i], 3e-3) << "n " << n;
  }
}

TEST(Bm3dProfile, ProfilesFollowTheirSources) {
  Bm3dSettings p;
  const PhaseParams paper1 = phase_params(p, false, 8, 25), paper2 = phase_params(p, true, 8, 25);
  EXPECT_EQ(paper1.t2d, Transform2d::Dct);
  EXPECT_EQ(paper1.t1d, Transform1d::WalshHadamard);
  EXPECT_EQ(paper1.tau_ssd, 2500.f * 64);
  EXPECT_EQ(paper2.tau_ssd, 400.f * 64);
  EXPECT_EQ(paper1.max_group, 16);
  EXPECT_EQ(paper2.max_group, 32);
  EXPECT_EQ(paper1.step, 3);
  EXPECT_EQ(paper1.radius, 19);
  EXPECT_EQ(profile_phases(p), 2);
  p.profile = Bm3dProfile::Reference;
  const PhaseParams np1 = phase_params(p, false, 8, 25), np2 = phase_params(p, true, 8, 25);
  EXPECT_EQ(np1.t2d, Transform2d::Bior15);
  EXPECT_EQ(np2.t2d, Transform2d::Dct);
  EXPECT_EQ(np1.t1d, Transform1d::Haar);
  EXPECT_EQ(np2.t1d, Transform1d::Haar);
  EXPECT_EQ(np1.tau_ssd, 3000.f * 64);
  EXPECT_EQ(np2.tau_ssd, 400.f * 64);
  EXPECT_EQ(np1.lambda3d, 2.7f);
  const PhaseParams vn1 = phase_params(p, false, 8, 50), vn2 = phase_params(p, true, 8, 50);
  EXPECT_EQ(vn1.max_group, 32);
  EXPECT_EQ(vn1.step, 4);
  EXPECT_EQ(vn2.step, 6);
  EXPECT_EQ(vn1.tau_ssd, 25000.f * 64);
  EXPECT_EQ(vn2.tau_ssd, 3500.f * 64);
  EXPECT_EQ(vn1.lambda3d, 2.8f);
  EXPECT_EQ(phase_params(p, false, 10, 25).tau_ssd, 3000.f * 64 * 16);  // 4^(depth - 8)
  // Explicit step and window replace the profile's in both phases.
  p.step = 5;
  p.window = 21;
  EXPECT_EQ(phase_params(p, true, 8, 50).step, 5);
  EXPECT_EQ(phase_params(p, true, 8, 50).radius, 10);
  p = Bm3dSettings{};
  p.profile = Bm3dProfile::Fast;
  EXPECT_EQ(phase_params(p, false, 8, 25).step, 8);
  EXPECT_EQ(phase_params(p, false, 8, 25).radius, 9);
  EXPECT_EQ(profile_phases(p), 1);
  p.phases = 2;
  EXPECT_EQ(profile_phases(p), 2);
  // balanced: the reference profile, with block matching on the 8-bit guide
  // (thresholds in 8-bit units whatever the depth); quick, rapid and draft search less.
  p = Bm3dSettings{};
  p.profile = Bm3dProfile::Balanced;
  for (bool wiener : {false, true}) {
    Bm3dSettings r;
    r.profile = Bm3dProfile::Reference;
    for (double sigma : {20.0, 50.0}) {
      const PhaseParams b = phase_params(p, wiener, 10, sigma), ref = phase_params(r, wiener, 10, sigma);
      EXPECT_TRUE(b.match8);
      EXPECT_FALSE(ref.match8);
      EXPECT_EQ(b.step, ref.step);
      EXPECT_EQ(b.radius, ref.radius);
      EXPECT_EQ(b.max_group, ref.max_group);
      EXPECT_EQ(b.t2d, ref.t2d);
      EXPECT_EQ(b.t1d, ref.t1d);
      EXPECT_EQ(b.lambda3d, ref.lambda3d);
      EXPECT_EQ(b.tau_ssd * 16, ref.tau_ssd);  // 8-bit units against 10-bit ones
    }
  }
  struct Geometry {
    Bm3dProfile profile;
    int step, radius, n1, n2;
  };
  for (const Geometry& g : {Geometry{Bm3dProfile::Quick, 4, 12, 16, 32}, Geometry{Bm3dProfile::Rapid, 5, 12, 8, 16},
                            Geometry{Bm3dProfile::Draft, 7, 7, 8, 8}}) {
    p.profile = g.profile;
    for (double sigma : {20.0, 50.0}) {
      const PhaseParams a = phase_params(p, false, 8, sigma), b = phase_params(p, true, 8, sigma);
      EXPECT_TRUE(a.match8 && b.match8);
      EXPECT_EQ(a.step, g.step);
      EXPECT_EQ(b.step, g.step);
      EXPECT_EQ(a.radius, g.radius);
      EXPECT_EQ(a.max_group, g.n1);
      EXPECT_EQ(b.max_group, g.n2);
      EXPECT_EQ(a.t2d, Transform2d::Bior15);
    }
    EXPECT_EQ(profile_phases(p), 2);
  }
  // Group sizes per phase replace the profile's; the GPU's groups are 8, 16 or 32 lanes.
  p.group1 = 8;
  p.group2 = 16;
  EXPECT_EQ(phase_params(p, false, 8, 25).max_group, 8);
  EXPECT_EQ(phase_params(p, true, 8, 25).max_group, 16);
  DenoiseSettings s;
  s.mode = Mode::Bm3d;
  s.bm3d.group2 = 4;
  EXPECT_THROW(validate(s), InvalidArgument);
  s.bm3d.group2 = 32;
  s.bm3d.group1 = 24;
  EXPECT_THROW(validate(s), InvalidArgument);
  s.bm3d.group1 = 8;
  EXPECT_NO_THROW(validate(s));
}

// bm3d-* took the profile's value at 0 until 2026-11-29; -1 does now (as
// vbm3d-*), and 0, which no profile could mean, is refused by name, never read
// as another value (the tests above resolve -1 to each profile's geometry).
TEST(Bm3dGeometry, ZeroIsRefusedAndMinusOneTakesTheProfiles) {
  for (const char* name : {"bm3d-step", "bm3d-window", "bm3d-phases", "bm3d-group1", "bm3d-group2"}) {
    SCOPED_TRACE(name);
    const ParamSpec* spec = find_param(name);
    ASSERT_NE(spec, nullptr);
    DenoiseSettings s;
    s.mode = Mode::Bm3d;
    EXPECT_EQ(spec->get(s), -1);
    EXPECT_NO_THROW(validate(s));
    spec->set(s, 0);
    const std::vector<std::string> problems = settings_problems(s);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find(std::string(name) + " = 0 is invalid"), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find("-1 or profile"), std::string::npos) << problems[0];
    spec->set(s, -2);
    EXPECT_THROW(validate(s), InvalidArgument) << "below the marker";
  }
}

TEST(Bm3dGeometry, QuantizedGuide) {
  FloatPlane g = pad_values({0.f, 1.f, 254.f, 255.f, 17.f, 3.f}, 3, 2);
  const FloatPlane q8 = quantize_guide(g, 8);
  EXPECT_EQ(q8.v, g.v);  // the identity on 8-bit values
  for (float& v : g.v) v = v * 4 + 2;  // 10-bit values: x.5 in 8-bit units rounds up
  const FloatPlane q10 = quantize_guide(g, 10);
  EXPECT_EQ(q10.at(0, 0), 1.f);    // 0.5
  EXPECT_EQ(q10.at(2, 0), 255.f);  // 254.5
  EXPECT_EQ(q10.at(0, 1), 255.f);  // 255.5, clamped
  EXPECT_EQ(q10.at(2, 1), 4.f);    // 3.5
  FloatPlane f = pad_values({-3.2f, 12.49f, 12.5f, 300.f}, 2, 2);
  const FloatPlane qf = quantize_guide(f, 8);
  EXPECT_EQ(qf.at(0, 0), 0.f);
  EXPECT_EQ(qf.at(1, 0), 12.f);
  EXPECT_EQ(qf.at(0, 1), 13.f);
  EXPECT_EQ(qf.at(1, 1), 255.f);
}

TEST(Bm3dGeometry, ReferenceGridCoversTheBorders) {
  for (auto [w, step] : {std::pair{8, 3}, {9, 3}, {20, 3}, {21, 3}, {512, 3}, {1920, 3}, {1920, 8}, {13, 1}}) {
    const RefGrid g(w, 8, step);
    EXPECT_EQ(g.x(0), 0);
    EXPECT_EQ(g.x(g.nx - 1), w - kPatch) << w << " step " << step;
    for (int i = 1; i < g.nx; ++i) {
      EXPECT_GT(g.x(i), g.x(i - 1));
      EXPECT_LE(g.x(i) - g.x(i - 1), step);
    }
  }
  EXPECT_EQ(floor_pow2(1), 1);
  EXPECT_EQ(floor_pow2(15), 8);
  EXPECT_EQ(floor_pow2(16), 16);
  EXPECT_EQ(floor_pow2(31), 16);
}

TEST(Bm3dGeometry, PaddingRepeatsTheEdgeAndGuidesAverage2x2) {
  const FloatPlane p = pad_values({1, 2, 3, 4, 5, 6}, 3, 2);
  ASSERT_EQ(p.width, 8);
  ASSERT_EQ(p.height, 8);
  EXPECT_EQ(p.at(7, 0), 3.f);
  EXPECT_EQ(p.at(0, 7), 4.f);
  EXPECT_EQ(p.at(7, 7), 6.f);
  // A 5x3 luma resampled to the 3x2 of its 4:2:0 chroma: 2x2 means, the last
  // column and row repeating the edge.
  std::vector<float> l(15);
  for (int i = 0; i < 15; ++i) l[i] = static_cast<float>(i * i);
  const FloatPlane luma = pad_values(l, 5, 3);
  const FloatPlane g = resample_guide(luma, 3, 2);
  EXPECT_EQ(g.valid_width, 3);
  EXPECT_EQ(g.valid_height, 2);
  EXPECT_FLOAT_EQ(g.at(0, 0), (l[0] + l[1] + l[5] + l[6]) / 4);
  EXPECT_FLOAT_EQ(g.at(2, 0), (l[4] + l[4] + l[9] + l[9]) / 4);
  EXPECT_FLOAT_EQ(g.at(1, 1), (l[12] + l[13] + l[12] + l[13]) / 4);
  // Same size: the luma itself.
  EXPECT_EQ(resample_guide(luma, 5, 3).v, luma.v);
}

// Brute force: every candidate's distance in double, sorted by (distance, scan index).
std::vector<std::uint16_t> brute_force_group(const FloatPlane& g, int rx, int ry, const PhaseParams& pp) {
  std::vector<std::tuple<double, int>> all;
  for (int dy = -pp.radius; dy <= pp.radius; ++dy)
    for (int dx = -pp.radius; dx <= pp.radius; ++dx) {
      const int cx = rx + dx, cy = ry + dy;
      if (cx < 0 || cy < 0 || cx > g.width - 8 || cy > g.height - 8 || (dx == 0 && dy == 0)) continue;
      double d = 0;
      for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 8; ++i) d += std::pow(double(g.at(rx + i, ry + j)) - g.at(cx + i, cy + j), 2);
      if (d <= pp.tau_ssd) all.emplace_back(d, (dy + pp.radius) * pp.side() + dx + pp.radius);
    }
  std::sort(all.begin(), all.end());
  int n = 1;
  while (n * 2 <= std::min<int>(1 + all.size(), pp.max_group)) n *= 2;
  std::vector<std::uint16_t> out{static_cast<std::uint16_t>(pp.self_index())};
  for (int k = 0; k + 1 < n; ++k) out.push_back(static_cast<std::uint16_t>(std::get<1>(all[k])));
  return out;
}

// The GPU's scan order (centre_out): every index of first..last once, the centre
// first, each index no farther from the centre than the one after it.
TEST(Bm3dMatching, CentreOutVisitsEveryIndexOnceNearestFirst) {
  for (int first = -19; first <= 3; first += 2)
    for (int last = first; last <= first + 40; last += 3)
      for (int c = first; c <= last; ++c) {
        std::vector<int> seen;
        for (int u = 0; u <= last - first; ++u) seen.push_back(centre_out(u, first, last, c));
        ASSERT_EQ(seen.front(), c);
        for (std::size_t k = 1; k < seen.size(); ++k)
          EXPECT_LE(std::abs(seen[k - 1] - c), std::abs(seen[k] - c)) << first << ".." << last << " centre " << c;
        std::vector<int> sorted = seen;
        std::sort(sorted.begin(), sorted.end());
        std::vector<int> all(last - first + 1);
        for (int k = 0; k <= last - first; ++k) all[k] = first + k;
        EXPECT_EQ(sorted, all) << first << ".." << last << " centre " << c;
      }
}

// The GPU matching's list of best keys (bm3d_best_keys.h): after any sequence of
// unique keys, inserted one by one or two at a time (a lone last key paired with
// the sentinel), its entries are the N smallest keys below the sentinel, sorted,
// then sentinels: a sort of the same keys. Distances tie often, so keys share
// their high bits.
template <int N, typename Key>
void check_best_keys(std::mt19937& rng) {
  const Key sentinel = static_cast<Key>(1001) << 12;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Key> keys;
    const int count = static_cast<int>(rng() % (3 * N + 4));
    std::vector<bool> used(4096, false);
    while (static_cast<int>(keys.size()) < count) {
      const int index = static_cast<int>(rng() % 4096);
      if (used[index]) continue;
      used[index] = true;
      const Key distance = rng() % 8 == 0 ? 1001 : rng() % 40;  // 1001: tau + 1, the sentinel's
      keys.push_back(distance << 12 | static_cast<Key>(index));
    }
    std::vector<Key> want(keys);
    want.resize(keys.size() + N, sentinel);
    std::sort(want.begin(), want.end());
    want.resize(N);
    BestKeys<N, Key> one, two;
    one.clear(sentinel);
    two.clear(sentinel);
    for (Key k : keys) one.insert(k);
    for (std::size_t i = 0; i < keys.size(); i += 2) {
      const Key x = keys[i], y = i + 1 < keys.size() ? keys[i + 1] : sentinel;
      two.insert_pair(std::min(x, y), std::max(x, y));
    }
    const std::vector<Key> got_one(one.k, one.k + N), got_two(two.k, two.k + N);
    ASSERT_EQ(got_one, want) << "N " << N << ", " << count << " keys one by one";
    ASSERT_EQ(got_two, want) << "N " << N << ", " << count << " keys by pairs";
    const int below = static_cast<int>(std::count_if(want.begin(), want.end(), [&](Key k) { return k < sentinel; }));
    EXPECT_EQ(one.count(sentinel), below);
  }
}

TEST(Bm3dMatching, BestKeysHoldTheSmallestKeysSorted) {
  std::mt19937 rng(17);
  check_best_keys<1, unsigned>(rng);
  check_best_keys<2, unsigned>(rng);
  check_best_keys<7, unsigned>(rng);
  check_best_keys<15, unsigned>(rng);
  check_best_keys<31, unsigned>(rng);
  check_best_keys<31, unsigned long long>(rng);
}

TEST(Bm3dMatching, EqualsBruteForceSearch) {
  // Integer samples: distances are exact in float, so the groups must be identical.
  std::mt19937 rng(5);
  std::vector<float> v(61 * 47);
  // A ramp along x (3 per pixel) plus integer noise of +-10: distances grow with
  // the horizontal offset, so both thresholds keep some candidates and drop others.
  for (int i = 0; i < 61 * 47; ++i) v[i] = static_cast<float>(3 * (i % 61) + static_cast<int>(rng() % 21) - 10 + 20);
  const FloatPlane g = pad_values(v, 61, 47);
  for (bool wiener : {false, true})
    for (int window : {39, 9}) {
      Bm3dSettings p;
      p.window = window;
      const PhaseParams pp = phase_params(p, wiener, 8, 25);
      const RefGrid grid(g.width, g.height, pp.step);
      int sizes[33] = {};
      for (int j = 0; j < grid.ny; ++j)
        for (int i = 0; i < grid.nx; ++i) {
          const auto got = match_group(g, grid.x(i), grid.y(j), pp);
          ASSERT_EQ(got, brute_force_group(g, grid.x(i), grid.y(j), pp)) << grid.x(i) << "," << grid.y(j);
          ++sizes[got.size()];
        }
      // The search found real groups, not only references alone.
      EXPECT_GT(sizes[pp.max_group] + sizes[pp.max_group / 2], 0) << "wiener " << wiener << " window " << window;
    }
}

TEST(Bm3dMatching, ReferenceStaysFirstAmongIdenticalPatches) {
  const FloatPlane flat = pad_values(std::vector<float>(40 * 40, 77.f), 40, 40);
  const PhaseParams pp = phase_params(Bm3dSettings{}, false, 8, 25);
  const auto g = match_group(flat, 15, 15, pp);
  ASSERT_EQ(g.size(), 16u);
  EXPECT_EQ(g[0], pp.self_index());
  // Ties are broken by scan index: the first 15 other candidates of the window.
  for (std::size_t k = 1; k < g.size(); ++k) EXPECT_LT(g[k - 1] == pp.self_index() ? 0 : g[k - 1], g[k]);
}

TEST(Bm3dMatching, ThresholdLeavesDissimilarPatchesOut) {
  // Alternating stripes of 0 and 255, 8 pixels wide: a patch only matches
  // candidates at the same phase of the stripes (distance 0); the others are far
  // above tau.
  std::vector<float> v(64 * 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) v[y * 64 + x] = (x / 8) % 2 ? 255.f : 0.f;
  const FloatPlane g = pad_values(v, 64, 64);
  const PhaseParams pp = phase_params(Bm3dSettings{}, false, 8, 25);
  for (auto idx : match_group(g, 24, 24, pp)) {
    const int dx = idx % pp.side() - pp.radius;
    EXPECT_EQ(((dx % 16) + 16) % 16, 0) << dx;
  }
}

TEST(Bm3dFiltering, ConstantGroupIsKeptWithWeightOne) {
  // n identical constant patches: only the 3D DC coefficient is non-zero.
  const int n = 8;
  std::vector<float> g(n * 64, 100.f);
  const float w = hard_threshold_group(g.data(), n, 25.f);
  EXPECT_FLOAT_EQ(w, 1.f);  // one coefficient kept
  for (float v : g) EXPECT_NEAR(v, 100.f, 1e-3);
}

TEST(Bm3dFiltering, HardThresholdWeightCountsKeptCoefficients) {
  const int n = 4;
  std::vector<float> g = random_values(n * 64, 11, 0, 255);
  std::vector<float> t = g;
  transform_group(t.data(), n);
  const float sigma = 20.f;
  int kept = 0;
  for (float c : t) kept += std::fabs(c) > 2.7f * sigma;  // the paper's lambda3D
  ASSERT_GT(kept, 1);
  EXPECT_FLOAT_EQ(hard_threshold_group(g.data(), n, sigma), 1.f / kept);
  // sigma 0 keeps everything: the inverse gives the input back.
  std::vector<float> h = random_values(n * 64, 12, 0, 255), h0 = h;
  hard_threshold_group(h.data(), n, 0.f);
  for (int i = 0; i < n * 64; ++i) EXPECT_NEAR(h[i], h0[i], 2e-3);
}

TEST(Bm3dFiltering, WienerWeightIsInverseSquaredNorm) {
  const int n = 2;
  std::vector<float> noisy = random_values(n * 64, 21, 0, 255), basic = random_values(n * 64, 22, 0, 255);
  std::vector<float> tb = basic, tn = noisy;
  transform_group(tb.data(), n);
  transform_group(tn.data(), n);
  const float sigma = 30.f;
  double norm2 = 0;
  std::vector<float> filtered(n * 64);
  for (int i = 0; i < n * 64; ++i) {
    const double w = double(tb[i]) * tb[i] / (double(tb[i]) * tb[i] + sigma * sigma);
    norm2 += w * w;
    filtered[i] = static_cast<float>(w * tn[i]);
  }
  inverse_transform_group(filtered.data(), n);
  const float weight = wiener_group(noisy.data(), basic.data(), n, sigma);
  EXPECT_NEAR(weight, 1.0 / norm2, 1e-4 / norm2);
  for (int i = 0; i < n * 64; ++i) EXPECT_NEAR(noisy[i], filtered[i], 1e-2);
}

// The whole filter on one plane.
void run_plane(const PlaneView& in, const PlaneView& out, double sigma, Bm3dSettings p = {}) {
  bm3d_reference({in}, {out}, 1, p, {sigma});
}

TEST(Bm3dReference, FlatImageStaysFlat) {
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {7, 5}, {8, 8}, {33, 17}}) {
    HostPlane in(w, h, 1, 8), out(w, h, 1, 8);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) in.view.set(x, y, 131);
    run_plane(in.view, out.view, 25);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) ASSERT_EQ(out.view.get(x, y), 131) << w << "x" << h;
  }
}

TEST(Bm3dReference, OddSizesAreFilteredAndInRange) {
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {7, 5}, {9, 8}, {8, 13}, {37, 23}}) {
    HostPlane in(w, h, 1, 8), out(w, h, 1, 8);
    test::fill_random(in.view, w * 100 + h);
    run_plane(in.view, out.view, 40);
    double dev_in = 0, dev_out = 0, mean = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) mean += in.view.get(x, y);
    mean /= w * h;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int v = out.view.get(x, y);
        ASSERT_GE(v, 0);
        ASSERT_LE(v, 255);
        dev_in += std::fabs(in.view.get(x, y) - mean);
        dev_out += std::fabs(v - mean);
      }
    if (w * h > 1) {
      EXPECT_LT(dev_out, dev_in) << w << "x" << h << ": uniform noise must be smoothed";
    }
  }
}

TEST(Bm3dReference, NoiselessStepEdgeStaysSharp) {
  HostPlane in(48, 40, 1, 8), out(48, 40, 1, 8);
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) in.view.set(x, y, x < 21 ? 40 : 200);
  run_plane(in.view, out.view, 10);
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) EXPECT_NEAR(out.view.get(x, y), in.view.get(x, y), 1) << x << "," << y;
}

TEST(Bm3dReference, DeeperPlanesScaleExactly) {
  // A 16-bit plane holding 256 x an 8-bit one, with sigma scaled alike: every
  // distance, threshold and coefficient scales by a power of 2, so the float
  // estimates are exactly 256 times the 8-bit ones. Likewise 10-bit with 4.
  HostPlane p8(45, 38, 1, 8), p16(45, 38, 2, 16), p10(45, 38, 2, 10);
  test::fill_random(p8.view, 3);
  add_gaussian_noise(p8.view, 25, 4);
  for (int y = 0; y < 38; ++y)
    for (int x = 0; x < 45; ++x) {
      p16.view.set(x, y, p8.view.get(x, y) << 8);
      p10.view.set(x, y, p8.view.get(x, y) << 2);
    }
  const Estimates e8 = bm3d_estimates({p8.view}, Bm3dSettings{}, {25});
  const Estimates e16 = bm3d_estimates({p16.view}, Bm3dSettings{}, {25 * 256.0});
  const Estimates e10 = bm3d_estimates({p10.view}, Bm3dSettings{}, {25 * 4.0});
  for (std::size_t i = 0; i < e8.final[0].v.size(); ++i) {
    ASSERT_EQ(e16.basic[0].v[i], 256 * e8.basic[0].v[i]) << i;
    ASSERT_EQ(e16.final[0].v[i], 256 * e8.final[0].v[i]) << i;
    ASSERT_EQ(e10.final[0].v[i], 4 * e8.final[0].v[i]) << i;
  }
}

TEST(Bm3dReference, ThreadCountDoesNotChangeTheResult) {
  HostPlane in(70, 50, 1, 8), a(70, 50, 1, 8), b(70, 50, 1, 8);
  test::fill_random(in.view, 9);
  bm3d_reference({in.view}, {a.view}, 1, Bm3dSettings{}, {30}, 1);
  bm3d_reference({in.view}, {b.view}, 1, Bm3dSettings{}, {30}, 3);
  EXPECT_EQ(a.bytes, b.bytes);
}

TEST(Bm3dReference, ChromaIsFilteredWithTheLumaGroups) {
  // 4:4:4 with U equal to Y: the same groups on the same values give the same output.
  HostFrame f(PixelFormat::Y444, 40, 30), o(PixelFormat::Y444, 40, 30);
  const auto c = components(f.view()), oc = components(o.view());
  test::fill_random(c[0], 1);
  add_gaussian_noise(c[0], 20, 2);
  test::fill_random(c[2], 4);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) c[1].set(x, y, c[0].get(x, y));
  bm3d_reference(c, oc, 3, Bm3dSettings{}, {20, 20, 0});
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) {
      ASSERT_EQ(oc[1].get(x, y), oc[0].get(x, y));
      ASSERT_EQ(oc[2].get(x, y), c[2].get(x, y));  // sigma 0: copied
    }
}

TEST(Bm3dReference, HalfSizeChromaMatchesOnTheResampledLuma) {
  // 4:2:0 whose luma repeats each chroma sample of U 2x2: the resampled luma is U
  // itself, so (basic estimate) U is filtered exactly as a plane on its own; V,
  // filtered with the same groups, differs from V on its own.
  HostFrame f(PixelFormat::I420, 46, 34), o(PixelFormat::I420, 46, 34);
  const auto c = components(f.view()), oc = components(o.view());
  test::fill_random(c[1], 5);
  add_gaussian_noise(c[1], 20, 6);
  for (int y = 0; y < 17; ++y)  // V: a smooth ramp with noise, unlike the random U
    for (int x = 0; x < 23; ++x) c[2].set(x, y, 60 + 4 * x + 2 * y);
  add_gaussian_noise(c[2], 20, 7);
  for (int y = 0; y < 34; ++y)
    for (int x = 0; x < 46; ++x) c[0].set(x, y, c[1].get(x / 2, y / 2));
  Bm3dSettings basic_only;
  basic_only.phases = 1;
  bm3d_reference(c, oc, 3, basic_only, {20, 20, 20});
  HostPlane alone_u(23, 17, 1, 8), alone_v(23, 17, 1, 8);
  run_plane(c[1], alone_u.view, 20, basic_only);
  run_plane(c[2], alone_v.view, 20, basic_only);
  int v_differs = 0;
  for (int y = 0; y < 17; ++y)
    for (int x = 0; x < 23; ++x) {
      ASSERT_EQ(oc[1].get(x, y), alone_u.view.get(x, y)) << x << "," << y;
      v_differs += oc[2].get(x, y) != alone_v.view.get(x, y);
    }
  EXPECT_GT(v_differs, 0);
}

TEST(Bm3dReference, TheFrontDoorIsTheReference) {
  // The CPU backend's front door, with a given and an estimated sigma.
  HostFrame in(PixelFormat::NV12, 50, 36), want(PixelFormat::NV12, 50, 36), got(PixelFormat::NV12, 50, 36);
  int k = 0;
  for (const auto& c : components(in.view())) {
    test::fill_random(c, 40 + k);
    add_gaussian_noise(c, 10, 50 + k++);
  }
  for (double sigma : {12.0, 0.0}) {
    DenoiseSettings s;
    s.mode = Mode::Bm3d;
    s.sigma = sigma;
    test::denoise_frame(Backend::Cpu, s, in.view(), got.view());
    const std::vector<double> sig = component_sigmas(in.view(), sigma);  // what sigma = auto gives the denoiser
    bm3d_reference(components(in.view()), components(want.view()), 3, Bm3dSettings{}, sig);
    for (int p = 0; p < 2; ++p) ASSERT_EQ(plane_bytes(got, p), plane_bytes(want, p)) << "sigma " << sigma;
  }
}

TEST(Bm3dReference, RemovesNoiseOnSmoothContent) {
  HostPlane clean(96, 80, 1, 8), noisy(96, 80, 1, 8), out(96, 80, 1, 8);
  for (int y = 0; y < 80; ++y)
    for (int x = 0; x < 96; ++x) {
      const int v = 60 + x + y / 2 + (x > 50 ? 60 : 0);
      clean.view.set(x, y, v);
      noisy.view.set(x, y, v);
    }
  add_gaussian_noise(noisy.view, 20, 77);
  for (int phases : {1, 2}) {
    Bm3dSettings p;
    p.phases = phases;
    run_plane(noisy.view, out.view, 20, p);
    EXPECT_GT(psnr(out.view, clean.view), psnr(noisy.view, clean.view) + 8) << "phases " << phases;
  }
}

}  // namespace
}  // namespace cdn::bm3d
