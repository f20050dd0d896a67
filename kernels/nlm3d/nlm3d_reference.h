// nlm3d_reference.h: 3D non-local means, the plain C++ reference (the oracle of
// the CUDA kernels and the CPU backend). Papers: nlm3d-gpu-cuomo-2014 (eq. 6-9),
// nlm3d-multigpu-palma; choices in docs/NLM3D.md.
//
//   Y(p) = sum_q w(p,q) X(q) / sum_q w(p,q),  q in the search volume V(p),
//   w(p,q) = exp(-d2(p,q) / h^2),  d2 = sum over the patch B of
//   (X(p+k) - X(q+k))^2,  h^2 = 2 beta sigma^2 |B|;
//   with distance-offset: w(p,q) = exp(-max(d2 - 2 sigma^2 |B|, 0) / h^2).
//
// The patch B (patch-shape): the papers' cube, (2r+1)^3 samples over frames
// t - r .. t + r, or a 2D patch of (2r+1)^2 samples in one frame, compared with
// 2D patches of the candidate's frame. V(p): in frame t + dt, the (2R+1)^2
// pixels around p, or, with motion-search (2D patches only), around p + v(p, dt),
// v the motion vector of p's cell towards frame t + dt (nlm3d_motion.h); R is
// search-radius in frame t and neighbour-search-radius in the others.
//
// Not the papers' per-voxel loop: for each offset o = (dx, dy, dt) the squared
// difference (X(p) - X(p+o))^2 is summed over the patch's frames and then box
// filtered in x and y, so a pixel costs O(|V| (2r+1)) instead of O(|V| |B|).
// With motion this is done per motion cell (a rectangle with one vector).
//
// Borders: candidates q outside the frame or outside the stream's frames are not
// part of V(p) (the window shrinks); patch samples outside the frame or the
// stream read the nearest existing sample (clamp). The self weight w(p,p) is the
// largest weight of the other candidates (the papers' rule, Coupe et al.), at least
// self-weight-floor (not in the papers; 0 = their rule), and 1 when there is no
// other candidate.
//
// Guided form (nlm3d_guide.h): d2 and h come from a guide window and the weights
// average other windows of the guide's size; a component filtered on its own is
// its own guide.
//
// frame-confidence (nlm3d_confidence.h): each candidate of frame t + dt, dt != 0,
// weighs w(p,q) times its frame's factor in p's cell, in the sums of Y(p); the
// self weight is the largest w(p,q) before the factors.
#pragma once

#include <atomic>

#include <vector>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"
#include "nlm3d/nlm3d_confidence.h"
#include "nlm3d/nlm3d_motion.h"

namespace cdn {

// Frames `first` .. `first + frames.size() - 1` of a stream of `stream_length`
// frames (the window of whatever output frames are asked for); all planes have
// the same size and format.
struct FrameWindow {
  std::vector<PlaneView> frames;
  int first = 0;
  int stream_length = 0;

  // The frame at stream index t, clamped to the stream (t must then be held).
  const PlaneView& at(int t) const;
};

// h^2 for the settings, with sigma in the plane's own code values.
double nlm_h2(const NlmParams& p, double sigma_code_values);
// What distance-offset subtracts from d2 (0 when off): 2 sigma^2 |B|.
double nlm_distance_offset(const NlmParams& p, double sigma_code_values);

// The filtered values of frame t of each of `values` before rounding (row-major,
// width x height), with the weights of `guide`; guide_sigma in the guide's code values.
// `motion`: frame t's fields (host memory), required with params.motion_search
// (InvalidArgument without), not read otherwise. `confidence`: frame t's factors
// (z = 0) with the pass's fx, fy, read when params.frame_confidence > 0; when null they
// are computed here from `guide`, which must then be the luma (a 1 x 1 pass). When
// `cancel` becomes true the work stops within a row of the offset being summed and
// Cancelled is thrown.
std::vector<std::vector<double>> nlm3d_guided_values(const FrameWindow& guide, const std::vector<FrameWindow>& values,
                                                     int t, const NlmParams& params, double guide_sigma,
                                                     int threads = 0, const NlmMotion* motion = nullptr,
                                                     const std::atomic<bool>* cancel = nullptr,
                                                     const NlmConfidence* confidence = nullptr);

// nlm3d_guided_values of one window that is its own guide.
std::vector<double> nlm3d_frame_values(const FrameWindow& window, int t, const NlmParams& params, double sigma,
                                       int threads = 0, const NlmMotion* motion = nullptr);

// Filters frame t of the window into `out` (host planes), rounded half up. `sigma` is in the
// plane's code values. The window must hold t - reach .. t + reach (clamped to
// the stream). threads <= 0: all hardware threads.
void nlm3d_frame_reference(const FrameWindow& window, int t, const PlaneView& out, const NlmParams& params,
                           double sigma, int threads = 0, const NlmMotion* motion = nullptr);

// The guided filter of frame t: outs[i] receives values[i] (rounded half up).
void nlm3d_guided_reference(const FrameWindow& guide, const std::vector<FrameWindow>& values, int t,
                            const std::vector<PlaneView>& outs, const NlmParams& params, double guide_sigma,
                            int threads = 0, const NlmMotion* motion = nullptr,
                            const std::atomic<bool>* cancel = nullptr, const NlmConfidence* confidence = nullptr);

}  // namespace cdn
