// test_nlm3d_confidence.cpp: NLM-3D's frame confidence (nlm3d_confidence.h) on the
// CPU: the factors against the definition written out again pixel by pixel, the
// filter with them against the weighted formula, what the factors say about frames
// that do and do not hold frame t's content, and the settings' checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "nlm3d/nlm3d_confidence.h"
#include "nlm3d/nlm3d_confidence_block.h"
#include "nlm3d/nlm3d_reference.h"
#include "test_nlm3d_support.h"

namespace cdn {
namespace {

// Smooth content moving (mx, my) pixels a frame, plus AWGN.
std::vector<HostFrame> moving_clip(int frames, int w, int h, int mx, int my, double sigma, std::uint64_t seed) {
  std::vector<HostFrame> clip;
  for (int i = 0; i < frames; ++i) {
    clip.emplace_back(PixelFormat::GRAY8, w, h);
    const PlaneView p = components(clip.back().view())[0];
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double u = x - mx * i, v = y - my * i;
        p.set(x, y, 128 + int(50 * std::sin(0.31 * u + 0.17 * v) + 30 * std::cos(0.11 * u - 0.23 * v)));
      }
    add_gaussian_noise(p, sigma, seed + i);
  }
  return clip;
}

FrameWindow window_of(const std::vector<HostFrame>& clip) {
  FrameWindow win;
  win.stream_length = static_cast<int>(clip.size());
  for (const auto& f : clip) win.frames.push_back(components(f.view())[0]);
  return win;
}

// The definition of nlm3d_confidence.h, pixel by pixel: every pixel of the frame is
// asked whether it is a sample pixel of its cell.
std::vector<float> definition(const FrameWindow& win, int t, const NlmParams& p, double sigma, const NlmMotion* m) {
  const PlaneView& f = win.at(t);
  const int w = f.width, h = f.height, r = p.patch_radius, cell = p.confidence_cell, step = cell / 8;
  const int cols = (w + cell - 1) / cell, rows = (h + cell - 1) / cell, Rt = p.temporal_radius;
  const int Rn = p.neighbour_search_radius < 0 ? p.search_radius : p.neighbour_search_radius;
  auto d2 = [&](const PlaneView& a, int px, int py, const PlaneView& b, int qx, int qy) {
    double s = 0;
    for (int j = -r; j <= r; ++j)
      for (int i = -r; i <= r; ++i) {
        const double d = double(a.get(std::clamp(px + i, 0, w - 1), std::clamp(py + j, 0, h - 1))) -
                         b.get(std::clamp(qx + i, 0, w - 1), std::clamp(qy + j, 0, h - 1));
        s += d * d;
      }
    return s;
  };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<float> out(static_cast<std::size_t>(2 * Rt + 1) * rows * cols, 1.0f);
  for (int dt = -Rt; dt <= (p.causal ? 0 : Rt); ++dt) {
    if (dt == 0 || t + dt < 0 || t + dt >= win.stream_length) continue;
    std::vector<double> sum(rows * cols, 0.0);
    std::vector<int> count(rows * cols, 0);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if ((x % cell) % step != 0 || (y % cell) % step != 0) continue;  // not a sample pixel
        double own = inf, best = inf;
        const int R0 = std::max(Rn, 1);
        for (int dy = -R0; dy <= R0; ++dy)
          for (int dx = -R0; dx <= R0; ++dx)
            if ((dx || dy) && x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h)
              own = std::min(own, d2(f, x, y, f, x + dx, y + dy));
        int vx = 0, vy = 0;
        if (m) {
          const NlmMotionField& mf = m->fields[dt + Rt];
          const int cx = std::min(x / mf.cell, mf.cols - 1), cy = std::min(y / mf.cell, mf.rows - 1);
          vx = mf.v[2 * (cy * mf.cols + cx)];
          vy = mf.v[2 * (cy * mf.cols + cx) + 1];
        }
        for (int dy = -Rn; dy <= Rn; ++dy)
          for (int dx = -Rn; dx <= Rn; ++dx) {
            const int qx = x + vx + dx, qy = y + vy + dy;
            if (qx >= 0 && qx < w && qy >= 0 && qy < h) best = std::min(best, d2(f, x, y, win.at(t + dt), qx, qy));
          }
        if (std::isinf(own) || std::isinf(best)) continue;
        sum[(y / cell) * cols + x / cell] += best - own;
        ++count[(y / cell) * cols + x / cell];
      }
    const double scale = p.frame_confidence * p.frame_confidence * sigma * sigma * (2 * r + 1) * (2 * r + 1);
    for (int c = 0; c < rows * cols; ++c)
      if (count[c] > 0)
        out[static_cast<std::size_t>(dt + Rt) * rows * cols + c] =
            static_cast<float>(std::exp(-std::max(sum[c] / count[c], 0.0) / scale));
  }
  return out;
}

NlmParams confidence_params(int cell, double c) {
  NlmParams p;
  p.temporal_radius = 2;
  p.confidence_cell = cell;
  p.frame_confidence = c;
  return p;
}

TEST(Nlm3dConfidence, FactorsEqualTheDefinition) {
  // 70 x 45: cells cut by the right and bottom borders; vectors per cell, some out of the frame.
  const auto clip = moving_clip(5, 70, 45, 2, 1, 12.0, 3);
  const FrameWindow win = window_of(clip);
  std::mt19937 rng(5);
  const test::HostFields fields = test::make_fields(5, 2, 70, 45, 16, [&](int, int dt, int cx, int) {
    return std::pair{cx == 4 ? 40 * dt : -2 * dt + int(rng() % 3) - 1, -dt + int(rng() % 3) - 1};
  });
  for (int cell : {16, 32})
    for (int r : {1, 4})
      for (bool motion : {false, true})
        for (bool causal : {false, true}) {
          NlmParams p = confidence_params(cell, 0.5);
          p.patch_radius = r;
          p.motion_search = motion;
          p.causal = causal;
          p.neighbour_search_radius = motion ? 2 : 1;
          for (int t = 0; t < 5; ++t) {
            NlmMotion m{fields.of_frame(t), 1, 1};
            const auto got = nlm_frame_confidence(win, t, p, 12.0, motion ? &m : nullptr);
            const auto want = definition(win, t, p, 12.0, motion ? &m : nullptr);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i)
              ASSERT_NEAR(got[i], want[i], 1e-6f) << "cell " << cell << " r " << r << " motion " << motion
                                                  << " causal " << causal << " t " << t << " entry " << i;
          }
        }
}

// A frame that holds frame t's content (the same moving picture, other noise) keeps
// factors near 1 away from the borders (where the content moves in from outside the
// frame, the other frame does not hold it: clamped samples); an unrelated picture gets
// almost none; frame t's own entry is 1.
TEST(Nlm3dConfidence, OnlyFramesThatHoldTheContentKeepTheirWeight) {
  const int w = 160, h = 128, cols = 5, rows = 4, cells = cols * rows;
  auto clip = moving_clip(5, w, h, 2, 1, 10.0, 7);
  const auto other = moving_clip(1, w, h, 0, 0, 10.0, 99);
  const PlaneView o = components(other[0].view())[0], f3 = components(clip[3].view())[0];
  for (int y = 0; y < h; ++y)  // frame 3: the unrelated picture, mirrored and brighter
    for (int x = 0; x < w; ++x) f3.set(x, y, std::min(255, o.get(w - 1 - x, h - 1 - y) + 20));
  const FrameWindow win = window_of(clip);
  const NlmParams p = confidence_params(32, 0.5);
  const test::HostFields truth = test::make_fields(5, 2, w, h, 16, [](int, int dt, int, int) {
    return std::pair{2 * dt, dt};  // content at x in frame t is at x + 2 dt in frame t + dt
  });
  NlmMotion m{truth.of_frame(2), 1, 1};
  const auto f = nlm_frame_confidence(win, 2, p, 10.0, &m);
  ASSERT_EQ(f.size(), std::size_t(5 * cells));
  for (int c = 0; c < cells; ++c) {
    EXPECT_EQ(f[2 * cells + c], 1.0f) << "frame t itself";
    EXPECT_LT(f[(1 + 2) * cells + c], 1e-4f) << "the unrelated frame, cell " << c;
    const bool inner = c % cols != 0 && c % cols != cols - 1 && c / cols != 0 && c / cols != rows - 1;
    if (inner)
      for (int dt : {-2, -1, 2}) EXPECT_GT(f[(dt + 2) * cells + c], 0.6f) << "dt " << dt << " cell " << c;
  }
}

// The filter with factors: each other frame's weights times its factor, the self weight
// the largest weight before the factors; against the formula evaluated voxel by voxel.
TEST(Nlm3dConfidence, FilterEqualsTheWeightedFormula) {
  const int frames = 4, w = 37, h = 29;
  const auto clip = moving_clip(frames, w, h, 1, 1, 14.0, 11);
  const FrameWindow win = window_of(clip);
  NlmParams p = confidence_params(16, 0.4);
  p.temporal_radius = 1;
  p.patch_radius = 2;
  p.motion_search = false;
  float smallest = 1.f;
  for (int t = 0; t < frames; ++t) {
    const auto factors = nlm_frame_confidence(win, t, p, 14.0, nullptr);
    for (float f : factors) smallest = std::min(smallest, f);
    const NlmConfidence conf = nlm_confidence_view(factors.data(), p, w, h);
    const auto got = nlm3d_frame_values(win, t, p, 14.0, 1);  // computes its own factors
    const double h2 = nlm_h2(p, 14.0), offset = nlm_distance_offset(p, 14.0);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double num = 0, den = 0, wmax = 0;
        for (int dt = -1; dt <= 1; ++dt) {
          if (t + dt < 0 || t + dt >= frames) continue;
          const int R = p.search_radius_at(dt);
          for (int dy = -R; dy <= R; ++dy)
            for (int dx = -R; dx <= R; ++dx) {
              const int qx = x + dx, qy = y + dy;
              if ((!dx && !dy && !dt) || qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
              double d2 = 0;
              for (int j = -2; j <= 2; ++j)
                for (int i = -2; i <= 2; ++i) {
                  const double a = double(win.at(t).get(std::clamp(x + i, 0, w - 1), std::clamp(y + j, 0, h - 1))) -
                                   win.at(t + dt).get(std::clamp(qx + i, 0, w - 1), std::clamp(qy + j, 0, h - 1));
                  d2 += a * a;
                }
              const double wt = std::exp(-std::max(d2 - offset, 0.0) / h2);
              const double wf = dt ? wt * nlm_confidence_factor(conf, 0, dt, x, y) : wt;
              num += wf * win.at(t + dt).get(qx, qy);
              den += wf;
              wmax = std::max(wmax, wt);
            }
        }
        const double self = den > 0 ? wmax : 1.0;
        const double want = (num + self * win.at(t).get(x, y)) / (den + self);
        ASSERT_NEAR(got[y * w + x], want, 1e-9 * std::max(1.0, want)) << x << "," << y << "," << t;
      }
  }
  EXPECT_LT(smallest, 0.9f) << "some factor differs from 1, so the weighting is exercised";
}

// The kernel's distance search (nlm3d_confidence_block.h, run on the host): its groups of
// offsets, the offsets past the radius a group reads and discards, the clamped border
// path and the direct reads of interior 8-bit rows, against a plain minimum over the
// window, for every patch radius and radii 1 to 4, at every position of a small frame.
template <int r>
void check_best_distance(PixelFormat format, int radius) {
  const int w = 29, h = 23;
  std::mt19937 rng(static_cast<unsigned>(100 * r + radius));
  HostFrame a(format, w, h), b(format, w, h);
  const PlaneView pa = components(a.view())[0], pb = components(b.view())[0];
  const int top = pa.max_value();
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      pa.set(x, y, static_cast<int>(rng() % (top + 1)));
      pb.set(x, y, static_cast<int>(rng() % (top + 1)));
    }
  constexpr int p = 2 * r + 1;
  int direct = 0;
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      float cen[p * p];
      for (int e = 0; e < p * p; ++e) cen[e] = pa.get(std::clamp(px + e % p - r, 0, w - 1), std::clamp(py + e / p - r, 0, h - 1));
      const int cx = px + (px % 3) - 1, cy = py - (py % 2);  // windows moved off the pixel, some past the border
      for (bool self : {true, false}) {
        const PlaneView& f = self ? pa : pb;
        const int qx0 = self ? px : cx, qy0 = self ? py : cy;
        double want = std::numeric_limits<double>::infinity();
        for (int dy = -radius; dy <= radius; ++dy)
          for (int dx = -radius; dx <= radius; ++dx) {
            const int qx = qx0 + dx, qy = qy0 + dy;
            if (qx < 0 || qy < 0 || qx >= w || qy >= h || (self && qx == px && qy == py)) continue;
            double d2 = 0;
            for (int e = 0; e < p * p; ++e) {
              const double d = cen[e] - f.get(std::clamp(qx + e % p - r, 0, w - 1), std::clamp(qy + e / p - r, 0, h - 1));
              d2 += d * d;
            }
            want = std::min(want, d2);
          }
        const float got = nlm_confidence::best_distance<r>(cen, f, px, py, qx0, qy0, radius, self);
        if (std::isinf(want)) {
          ASSERT_TRUE(std::isinf(got)) << "r " << r << " radius " << radius << " at " << px << "," << py;
        } else {
          ASSERT_NEAR(got, want, pa.bit_depth == 8 ? 0.0 : 1e-5 * want)  // 16-bit: float sums of up to 81 terms
              << format_name(format) << " r " << r << " radius " << radius << " at " << px << "," << py << " self " << self;
        }
        direct += qx0 - radius - r >= 0 && qx0 + nlm_planar::group_hi(radius) + r < w && qy0 - radius - r >= 0 &&
                  qy0 + radius + r < h;
      }
    }
  if (pa.bit_depth == 8 && r <= 3) EXPECT_GT(direct, 0) << "the direct reads were taken somewhere";
}

template <int r>
void check_best_distance_radii() {
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::GRAY16_LE})
    for (int radius = 1; radius <= 4; ++radius) check_best_distance<r>(f, radius);
}

TEST(Nlm3dConfidence, KernelDistanceSearchEqualsAPlainMinimum) {
  check_best_distance_radii<0>();
  check_best_distance_radii<1>();
  check_best_distance_radii<2>();
  check_best_distance_radii<3>();
  check_best_distance_radii<4>();
}

TEST(Nlm3dConfidence, SettingsAreChecked) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  EXPECT_NO_THROW(validate(s));
  EXPECT_GT(s.nlm.frame_confidence, 0) << "on in the video defaults";
  s.nlm.confidence_cell = 24;
  EXPECT_THROW(validate(s), InvalidArgument) << "cells of a multiple of 16";
  s.nlm = nlm_paper_params();
  EXPECT_EQ(s.nlm.frame_confidence, 0) << "not in the papers' configuration";
  EXPECT_NO_THROW(validate(s));
  s.nlm.frame_confidence = 0.5;
  EXPECT_THROW(validate(s), InvalidArgument) << "cubes have no 2D patch to compare";
  const auto clip = moving_clip(3, 16, 16, 0, 0, 10.0, 1);
  EXPECT_THROW(nlm3d_frame_values(window_of(clip), 1, nlm_params(s.nlm, false), 10.0, 1), InvalidArgument);
  // The named sets with and without confidence: tests/kernels/test_named_sets.cpp.
}

}  // namespace
}  // namespace cdn
