// vbm3d_params.h: the parameters of the video mode `vbm3d` (V-BM3D, Dabov,
// Foi, Egiazarian, EUSIPCO 2007; the parameter names of Ehret and Arias,
// "Implementation of VBM3D and some variants", IPOL 2021; see docs/VBM3D.md),
// its profiles, and how many frames an output frame depends on.
#pragma once

#include <string>

#include "cudadenoise/motion_params.h"

namespace cdn {

// The value of a parameter that takes its profile's value (bm3d-* and vbm3d-*,
// "profile" in the parameter table): -1, since 0 is a real value of some of
// them (vbm3d-radius, vbm3d-motion). Until 2026-11-29 bm3d-* took 0 for it.
constexpr int kProfileValue = -1;

// The largest temporal radius of either phase.
constexpr int kMaxVbm3dRadius = 8;

// One phase of V-BM3D (the hard-thresholding or the Wiener phase). The member
// defaults are the quality profile's before its tuning; every profile writes
// out its own values (Vbm3dParams below, vbm3d_params.cpp).
struct Vbm3dPhaseParams {
  int radius = 4;      // N_f: frames t - radius .. t + radius searched
  int step = 3;        // p: pixels between reference patches of frame t
  int window = 15;     // N_s: side of the search window in frame t (odd)
  int predictive = 5;  // N_pr: side of the predictive search window in the other frames (odd)
  int seeds = 2;       // N_b: best matches of a frame whose neighbourhoods are searched in the next frame
  int per_frame = 2;   // most members a frame other than t gives the group (VBM3D: N_b)
  int group = 16;      // N: most patches in a group, a power of 2 (at most 32)
  float tau = 2500.f;  // distance threshold on ||P - Q||^2 / 64, 8-bit units
  int own_frame = 32;  // most members frame t gives the group besides the reference (VBM3D: N_b - 1)
};

// Where the filtered patches of a group go.
enum class Vbm3dAggregation {
  Frame,      // every member that lies in frame t (the reference and its matches there)
  Reference,  // the reference patch alone
  // Every member into the frame it lies in (Dabov et al.'s VBM3D and the
  // reference implementations; BM3DCUDA's VAggregate): frame t's estimate also
  // gathers the patches that groups of frames t - radius .. t + radius took from
  // it, so the reach doubles. Not with the causal window.
  Group,
};

// The defaults are the quality profile's (docs/VBM3D.md, "Tuning the quality
// profile" and "Every member into its own frame"): the hard-thresholding phase
// searches BM3D's 39x39 window in frame t (a 15x15 one lost up to 2 dB to
// per-frame BM3D on smooth clips) at step 6, the Wiener phase a 25x25 one at
// step 4, both with 3x3 predictive windows, and every member of a group goes
// to the frame it came from (the paper's aggregation: +0.4 dB on the moving
// clips over aggregating frame t's alone, which paid for the coarser steps);
// groups of 8 with one member of frame t besides the reference (the paper's
// N and N_b - 1: with the group aggregation +0.5 dB more on the moving clips
// than 16 / 32 with 32 of frame t, whose groups held mostly frame t's patches).
struct Vbm3dParams {
  Vbm3dPhaseParams hard{4, 6, 39, 3, 2, 2, 8, 2500.f, 1};
  Vbm3dPhaseParams wiener{4, 4, 25, 3, 2, 2, 8, 400.f, 1};
  int phases = 2;       // 2: hard thresholding, then Wiener on the basic estimate; 1: basic only
  bool motion = true;   // centre the predictive windows by the motion field (false: VBM3D's zero motion)
  // Not in the paper (docs/MOTION.md, "The Wiener phase's motion on the basic
  // estimate"): with motion, the Wiener phase follows a field estimated on the
  // basic estimates (rounded to the input's code values) instead of the noisy
  // frames' field the hard phase follows. On the ten clips' crops at sigma 20
  // and 40 it gained 0.00 to 0.24 dB and lost on none. false: both phases
  // follow the noisy frames' field (vbm3d-motion=1).
  bool motion_on_basic = true;
  // Not in the paper (docs/VBM3D.md, "The hard phase's threshold at high
  // sigma"): the hard phase's distance threshold is at least this many times
  // the expected distance of two noisy views of one patch (2 sigma^2 per
  // sample, sigma the noise of the guide it matches on), so that true matches
  // are not refused when 2 sigma^2 nears tau (sigma 40: 3200 against 2500).
  // Changes nothing while sigma^2 * 2 * hard_tau_noise <= hard.tau (luma:
  // sigma up to 31 with 1.25). 0: tau alone (the paper's).
  float hard_tau_noise = 1.25f;
  Vbm3dAggregation aggregation = Vbm3dAggregation::Group;
  // Not in the paper (docs/VBM3D.md, "Causal window"): search frame t and the
  // frames before it only (t - radius .. t), so frame t can be filtered as soon
  // as it arrives (live sources). false: t - radius .. t + radius, the paper's.
  // The stream's window, resolved: vbm3d_params()'s argument.
  bool causal = false;
  MotionParams motion_params;

  // Frames whose noisy samples the output of frame t depends on, before and
  // after it: the Wiener phase of t reads the basic estimates of t +-
  // wiener.radius (causal: t - wiener.radius .. t), each made from the frames
  // within hard.radius of it (causal: before it).
  // With Vbm3dAggregation::Group each phase reaches twice its radius.
  int reach() const {
    const int k = aggregation == Vbm3dAggregation::Group ? 2 : 1;
    return k * (hard.radius + (phases == 2 ? wiener.radius : 0));
  }
  int reach_before() const { return reach(); }
  int reach_after() const { return causal ? 0 : reach(); }
};

// The default, quality profile and the fast one (docs/VBM3D.md).
Vbm3dParams vbm3d_quality_profile();
Vbm3dParams vbm3d_fast_profile();
// Dabov et al.'s V-BM3D as far as this design expresses it (Ehret and Arias's
// parameters for sigma <= 30: N_f 4, N_s 7, N_pr 5, N_b 2, N 8, steps 6 and 4,
// tau 3000 and 1500, no motion); docs/VBM3D.md lists what differs.
Vbm3dParams vbm3d_paper_profile();
// BM3D's 39x39 search window in frame t in both phases at step 3, with 5x5
// predictive windows (the quality profile before its tuning, with the window
// widened): the most matching of the profiles; on the H200 1.7x the quality
// profile's time at 1080p NV12, never below per-frame bm3d on the real clips
// (docs/VBM3D.md, "Quality").
Vbm3dParams vbm3d_wide_profile();

// Throws InvalidArgument naming the parameter and its valid range.
void validate(const Vbm3dParams& p);

// What the user sets through the one parameter table (settings.h): a profile,
// and overrides of its values for both phases (kProfileValue: the profile's
// value). Vbm3dParams above is what the filter runs, resolved by vbm3d_params().
enum class Vbm3dProfile { Quality = 0, Fast = 1, Paper = 2, Wide = 3 };
struct Vbm3dSettings {
  int profile = 0;  // Vbm3dProfile
  int radius = kProfileValue, step = kProfileValue, window = kProfileValue, predictive = kProfileValue,
      seeds = kProfileValue, phases = kProfileValue;
  // 0: no motion, 1: both phases follow the noisy frames' field, 2: the Wiener
  // phase follows the basic estimates' (Vbm3dParams::motion_on_basic).
  int motion = kProfileValue;
  int aggregation = kProfileValue;  // Vbm3dAggregation; the profile's (the causal window: frame unless given)
  int chunk = 50;   // output frames filtered per launch in the centred window (the output never depends on it)
};
// The profile with the overrides applied, for the stream's window resolved
// (causal: DenoiseSettings::window resolved to causal; the mode registry passes
// it), not validated. With causal (chunks of one frame, latency 0) and no
// radius given, each phase's radius doubled (at most kMaxVbm3dRadius: the frames
// the centred window searches, all past), and with causal and no aggregation
// given, Frame.
Vbm3dParams vbm3d_params(const Vbm3dSettings& s, bool causal);

}  // namespace cdn
