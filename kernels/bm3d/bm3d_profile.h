// bm3d_profile.h: the constants of BM3D's two phases per profile and the
// geometry both backends share: where reference patches sit, which candidates a
// search window holds and how a candidate is numbered.
//
// Profiles (docs/BM3D.md):
// - paper: bm3d-gpu-honzatko-krulis-2017, table 1: 2D DCT and Walsh-Hadamard in
//   both phases, tau 2500 / 400, N 16 / 32, step 3, window 39, lambda3D 2.7.
// - reference: Dabov et al.'s reference implementation (BM3D.m of the BM3D
//   package, its 'np' profile; for sigma > 40 its 'vn' profile, which BM3D.m
//   switches to by itself): biorthogonal 1.5 in phase 1, DCT in phase 2, Haar
//   across the group in both, tau 3000 / 400 (sigma > 40: 25000 / 3500), N 16 / 32
//   (sigma > 40: 32 / 32), step 3 / 3 (sigma > 40: 4 / 6), window 39, lambda3D 2.7
//   (sigma > 40: 2.8). Not reproduced: 'vn''s 11x11 Wiener patches (ours stay 8x8)
//   and the reference's adaptive step in flat areas (thrToIncStep).
// - fast: the paper profile with step 8, window 19 and phase 1 only.
// - balanced: the reference profile with block matching on the guide rounded to
//   8-bit code values (`match8`: integer distances, exact in any order of
//   summation, which the GPU computes with 8-bit dot products; phase 1 of an 8-bit
//   plane is unchanged, phase 2 matches on the rounded basic estimate).
// - quick, rapid, draft: balanced with less search, at every sigma: quick step 4,
//   window 25; rapid step 5, window 25, N 8 / 16; draft step 7, window 15, N 8 / 8
//   (until 2026-11-27 step 8, window 19, N 8 / 16: slower, and below BM3DCUDA's
//   defaults on the street clip; docs/BM3D.md, "Draft against BM3DCUDA's defaults").
//   Their quality against the reference profile on the evaluation clips:
//   docs/BM3D.md.
// Every profile aggregates with the Kaiser window (beta 2) of the reference.
//
// Geometry (docs/BM3D.md): a plane is processed at its padded size
// max(w, 8) x max(h, 8) (padding repeats the edge sample, the clamp rule of
// plane.h), so every 8x8 patch lies inside it. Patch origins run over
// [0, last_x] x [0, last_y], last = padded size - 8. Reference origins are
// min(i * step, last) (section 4.1.1: patches at the border are references
// whatever the step). The search window of a reference at (rx, ry) holds the
// origins (rx + dx, ry + dy), |dx|, |dy| <= radius, that are valid origins; a
// candidate's scan index is (dy + radius) * side + (dx + radius), row-major.
#pragma once

#include <cstdint>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"

namespace cdn::bm3d {

constexpr int kPatch = 8;            // k: patch side, both phases
constexpr int kPatchArea = kPatch * kPatch;
constexpr int kMaxGroup = 32;        // the largest N of any profile (the lists' stride)
constexpr double kKaiserBeta = 2.0;  // Kaiser window of the aggregation (the reference implementations' beta)
// The aggregation's bounds (docs/BM3D.md, "Deterministic aggregation"): a group's
// weight is at most kMaxWeight and a filtered sample is clamped to +-2^(depth + 1)
// before it is added, so the GPU's fixed-point sums can never overflow. Neither
// bound is reached on natural images (a Wiener weight of 4096 needs ||w||^2 <
// 1/4096: a group of black patches).
constexpr float kMaxWeight = 4096.0f;

// The 2D transform of each patch and the 1D transform across the group.
enum class Transform2d : std::uint8_t { Dct, Bior15 };
enum class Transform1d : std::uint8_t { WalshHadamard, Haar };

// One phase's parameters for a plane of a given bit depth.
struct PhaseParams {
  int step = 3;
  int radius = 19;      // window = 2 radius + 1
  int max_group = 16;   // N: a power of 2
  float tau_ssd = 0;    // threshold on the sum of squared differences over the patch, in the plane's code values
  bool wiener = false;
  Transform2d t2d = Transform2d::Dct;
  Transform1d t1d = Transform1d::WalshHadamard;
  float lambda3d = 2.7f;  // hard threshold lambda3D * sigma (phase 1)
  // Block matching on the guide rounded to 8-bit code values (quantize_guide of
  // bm3d_reference.h): tau_ssd is then in 8-bit units whatever the bit depth.
  bool match8 = false;

  CDN_HD int side() const { return 2 * radius + 1; }
  CDN_HD int self_index() const { return radius * side() + radius; }
};

// The phases a profile runs (1 or 2), after Bm3dSettings::phases.
inline int profile_phases(const Bm3dSettings& p) {
  if (p.phases > 0) return p.phases;
  return p.profile == Bm3dProfile::Fast ? 1 : 2;
}

// The reference profile's filtering with less search (balanced, quick, draft).
inline bool is_match8_profile(Bm3dProfile p) {
  return p == Bm3dProfile::Balanced || p == Bm3dProfile::Quick || p == Bm3dProfile::Rapid ||
         p == Bm3dProfile::Draft;
}

// The parameters of phase 1 (wiener = false) or 2 of profile p.profile, with
// p.step, p.window, p.group1 and p.group2 where given (kProfileValue: the
// profile's; validate() refuses 0 and other values no profile could have). sigma8: the noise std in 8-bit code
// values (the reference profile changes above 40).
inline PhaseParams phase_params(const Bm3dSettings& p, bool wiener, int bit_depth, double sigma8) {
  PhaseParams pp;
  pp.wiener = wiener;
  int window = 39;
  float tau = wiener ? 400.0f : 2500.0f;  // distance thresholds of d = ||P - Q||^2 / k^2, 8-bit units
  pp.max_group = wiener ? 32 : 16;
  pp.step = 3;
  if (p.profile == Bm3dProfile::Fast) {
    pp.step = 8;
    window = 19;
  } else if (p.profile == Bm3dProfile::Reference || is_match8_profile(p.profile)) {
    pp.t2d = wiener ? Transform2d::Dct : Transform2d::Bior15;
    pp.t1d = Transform1d::Haar;
    if (sigma8 <= 40) {  // BM3D.m's 'np' profile
      tau = wiener ? 400.0f : 3000.0f;
    } else {  // its 'vn' profile
      tau = wiener ? 3500.0f : 25000.0f;
      pp.max_group = 32;
      pp.step = wiener ? 6 : 4;
      pp.lambda3d = 2.8f;
    }
  }
  if (is_match8_profile(p.profile)) {
    // Geometry per profile (docs/BM3D.md: measured on the evaluation clips).
    pp.match8 = true;
    if (p.profile == Bm3dProfile::Quick) {
      pp.step = 4;
      window = 25;
      pp.max_group = wiener ? 32 : 16;
    } else if (p.profile == Bm3dProfile::Rapid) {
      pp.step = 5;
      window = 25;
      pp.max_group = wiener ? 16 : 8;
    } else if (p.profile == Bm3dProfile::Draft) {
      pp.step = 7;
      window = 15;
      pp.max_group = 8;
    }
  }
  if (p.step > 0) pp.step = p.step;
  if (p.window > 0) window = p.window;
  if (!wiener && p.group1 > 0) pp.max_group = p.group1;
  if (wiener && p.group2 > 0) pp.max_group = p.group2;
  pp.radius = window / 2;
  const float scale = pp.match8 ? 1.0f : static_cast<float>(1 << (bit_depth - 8));
  pp.tau_ssd = tau * kPatchArea * scale * scale;
  return pp;
}

// Reference patch origins of a plane of padded size pw x ph.
struct RefGrid {
  int last_x = 0, last_y = 0, step = 1, nx = 1, ny = 1;

  RefGrid() = default;
  RefGrid(int pw, int ph, int s) : last_x(pw - kPatch), last_y(ph - kPatch), step(s) {
    nx = (last_x + s - 1) / s + 1;  // 0, s, ..., and last_x itself
    ny = (last_y + s - 1) / s + 1;
  }
  CDN_HD int x(int i) const { return i * step < last_x ? i * step : last_x; }
  CDN_HD int y(int j) const { return j * step < last_y ? j * step : last_y; }
  CDN_HD int count() const { return nx * ny; }
};

// The u-th of first..last (u = 0 .. last - first) in the order c, c + 1, c - 1,
// c + 2, c - 2, ..., then the longer side's rest (first <= c <= last): the GPU's
// 8-bit block matching visits a window's rows, and a row's blocks of candidates,
// from the reference outwards (bm3d_cuda.cu; its list does not depend on the order).
CDN_HD int centre_out(int u, int first, int last, int c) {
  const int below = c - first, above = last - c, both = below < above ? below : above;
  if (u <= 2 * both) return u & 1 ? c + (u + 1) / 2 : c - u / 2;
  return above > below ? c + (u - both) : c - (u - both);
}

// The largest power of 2 not above n (n >= 1): groups are cut to it (section 4.1.1).
CDN_HD int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace cdn::bm3d
