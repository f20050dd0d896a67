// vbm3d_reference.h: V-BM3D, the plain C++ reference (the oracle of the CUDA
// kernels, vbm3d_cuda.h). Dabov, Foi, Egiazarian, "Video denoising by sparse 3D
// transform-domain collaborative filtering", EUSIPCO 2007, section 2 (grouping
// by predictive-search block matching, collaborative filtering in two phases);
// parameters and variants after Ehret and Arias, IPOL 2021, section 3; our
// choices (motion-guided search, which frames the patches go to) in docs/VBM3D.md.
//
// For each reference patch of frame t (8x8, every `step` pixels, BM3D's grid):
// 1. Frame t: every origin within window / 2 of the reference (clipped at the
//    border, as in bm3d) is a candidate, at distance d = ||P - Q||^2; its
//    `own_frame` best join the group's pool.
// 2. Predictive search, t + 1, t + 2, ... then t - 1, t - 2, ... up to the
//    radius (and the window's ends): the `seeds` best matches of the previous
//    frame of the walk (for t: the reference and its seeds - 1 best matches)
//    each give a centre in the next frame, the seed displaced by the motion
//    field between the two frames at the seed's centre (with `motion` off: the
//    seed itself, as in VBM3D); the origins within predictive / 2 of a centre
//    (clipped; an origin that an earlier centre's window holds counts once) are
//    that frame's candidates. Its `seeds` best become the next seeds and its
//    `per_frame` best join the group's pool.
// 3. The group: the reference first, then the pool's candidates with d <= tau
//    in order of distance (ties: frame t's first, then t + 1 .. t + R, then
//    t - 1 .. t - R; within a frame by row, then column), cut to a power of 2
//    of at most `group` patches (bm3d's rule). Within a frame, candidates rank
//    by (d, y, x).
// 4. Filtering as bm3d (bm3d_reference.h): 2D DCT + Walsh-Hadamard, hard
//    threshold (phase 1, matching on the noisy luma) or Wiener with the basic
//    group as oracle (phase 2, matching on the basic estimate's luma).
// 5. Aggregation (Vbm3dAggregation): each filtered patch adds weight x Kaiser
//    to the accumulators of the frame it lies in: every member (Group, the
//    paper's and the default; frame t then also gathers the groups of frames
//    t - R .. t + R, whose basic estimates read frames up to 2 R1 away), the
//    members in frame t (Frame) or the reference alone (Reference). The output
//    of frame t depends on the frames within reach() of it and on nothing else
//    (not on chunk borders nor on how long the stream runs on).
//
// Motion: one field per pair of adjacent frames and direction, estimated on the
// noisy luma (motion_reference.h) and used by both phases. Colour as bm3d:
// matching on luma (phase 1 noisy, phase 2 basic), components of another size
// match on the luma resampled to their size with the vectors scaled to it
// (scale_displacement); every component is filtered with its size's groups.
#pragma once

#include <atomic>
#include <vector>

#include "bm3d/bm3d_reference.h"
#include "cudadenoise/frame.h"
#include "cudadenoise/vbm3d_params.h"
#include "motion/motion_field.h"

namespace cdn::vbm3d {

// A candidate or member of a group: a window frame, a patch origin, its distance.
struct Member {
  int frame = 0;
  int x = 0, y = 0;
  float d = 0;
};

// One phase's parameters for a plane of a given bit depth, matched on a guide
// whose noise has standard deviation `guide_sigma` (its code values; for the
// hard phase's threshold floor, Vbm3dParams::hard_tau_noise).
struct PhaseSetup {
  Vbm3dPhaseParams p;
  float tau_ssd = 0;  // tau * 64, scaled by 4^(depth - 8); the hard phase: at least hard_tau_noise * 2 guide_sigma^2 * 64
  bool motion = true;
};
PhaseSetup phase_setup(const Vbm3dParams& params, bool wiener, int bit_depth, double guide_sigma);
// The noise of the guide of a w x h component: the luma's, or its 2x2 (2x1,
// 1x2) means' (resample_guide) for a smaller component.
double guide_sigma(double luma_sigma, const PlaneView& luma, int w, int h);

// Where one size of components matches: a guide per window frame (all the same
// size; nullptr for frames not needed), the fields between adjacent frames
// (forward[i]: frame i to i + 1, backward[i]: frame i + 1 to i; luma pixels),
// and the luma pixels per guide sample (2 for 4:2:0 chroma).
struct SearchSpace {
  std::vector<const bm3d::FloatPlane*> guide;
  std::vector<const MotionField*> forward, backward;
  int fx = 1, fy = 1;
};

// Step 1 to 3 for the reference at (rx, ry) of frame t, searching the frames
// [first, last] of the window: the group, reference first.
std::vector<Member> match_group(const SearchSpace& s, int t, int first, int last, int rx, int ry, const PhaseSetup& ps);

// The window's motion: fields between adjacent frames of the luma planes,
// estimated once and shared by both phases (and by every size of component).
struct WindowMotion {
  std::vector<MotionField> forward, backward;
};
// When `cancel` becomes true it stops within a row of cells and throws Cancelled.
WindowMotion estimate_window_motion(const std::vector<PlaneView>& lumas, const MotionParams& p,
                                    const std::atomic<bool>* cancel = nullptr);

// The float estimates of the window frames [out_begin, out_end) (final; basic
// too for those frames), every component of the frames (0 = luma). noisy[f]:
// the components of window frame f. The window must hold every frame of the
// stream within params.reach() of each output frame: frames missing at either
// end of the window are taken to be outside the stream. sigma: per component,
// in its code values; a component with sigma 0 is left as it is. threads <= 0:
// all hardware threads. Throws Cancelled when `cancel` becomes true.
struct WindowEstimates {
  std::vector<std::vector<bm3d::FloatPlane>> basic, final;  // [output frame - out_begin][component]
};
WindowEstimates vbm3d_estimates(const std::vector<std::vector<PlaneView>>& noisy, int out_begin, int out_end,
                                const Vbm3dParams& params, const std::vector<double>& sigma, int threads = 0,
                                const std::atomic<bool>* cancel = nullptr);

}  // namespace cdn::vbm3d

namespace cdn {

// Filters the components [0, filtered) of the window frames [out_begin,
// out_end) into outs[0 ..] (host frames of the window's format and size),
// rounding half up and clamping to the range; other components are copied.
void vbm3d_reference(const std::vector<FrameView>& window, int out_begin, int out_end,
                     const std::vector<FrameView>& outs, int filtered, const Vbm3dParams& params,
                     const std::vector<double>& sigma, int threads = 0, const std::atomic<bool>* cancel = nullptr);

// One frame: window[centre] into `out`.
void vbm3d_frame_reference(const std::vector<FrameView>& window, int centre, const FrameView& out, int filtered,
                           const Vbm3dParams& params, const std::vector<double>& sigma, int threads = 0);

}  // namespace cdn
