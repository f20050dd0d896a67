// vbm3d_cuda.h: V-BM3D on the GPU, the algorithm of vbm3d_reference.h with the
// same search, groups, transforms and weights (docs/VBM3D.md). Groups equal the
// reference's wherever the distances do (phase 1 on 8- and 10-bit planes:
// integer samples, sums in the reference's order without fused multiply-adds);
// the filtered values differ from it by float rounding (fused multiply-adds in
// the transforms) and the aggregation is deterministic: fixed-point 64-bit
// integer accumulators, so two runs give the same output bit for bit.
//
// Per window: motion fields between adjacent frames (motion_cuda.h), once;
// with Vbm3dParams::motion_on_basic the Wiener phase's again on each basic
// estimate as the hard phase divides it (its luma rounded as an output is).
// Then each phase sweeps its reference frames in order, the Wiener phase asking
// the hard one for the basic estimates it reads, from rings of frames that bound
// the memory by the temporal radii, not by the window (accumulators: one frame,
// 2 R + 1 per phase with the group aggregation); the noisy luma in float and
// the guides of the other component sizes (2 R1 + 1 frames), the basic estimates
// and their guides (2 R2 + 1 frames, + R1 with the group aggregation). Per
// phase, reference frame and component size:
// - block matching: 8 lanes per reference patch, lane j holding row j of the
//   reference in registers; for each row of candidate origins the lanes load
//   their row of the search area once and sum the squared differences of 8
//   neighbouring candidates, then add the 8 row sums across the lanes by
//   shuffles. The sorted lists (frame t's and the group's best, each frame's
//   seeds) live in shared memory, kept by the reference's first lane.
// - filtering: one lane per patch of the group (bm3d_cuda's scheme: the 2D DCT
//   in registers, the Walsh-Hadamard transform across the group by shuffles,
//   hard threshold or Wiener coefficients staged in shared memory), then the
//   patches go to the accumulators of their frames by 64-bit atomics (the
//   group aggregation: every member; the frame one: frame t's).
// - a kernel that divides (the basic estimate in float, or the rounded output).
// References are processed in batches, so the group lists take a fixed amount
// of memory whatever the frame size.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/vbm3d_params.h"

namespace cdn {

class Vbm3dCuda {
 public:
  Vbm3dCuda();
  ~Vbm3dCuda();
  Vbm3dCuda(const Vbm3dCuda&) = delete;
  Vbm3dCuda& operator=(const Vbm3dCuda&) = delete;

  // Filters the components [0, filtered) of the window frames [out_begin,
  // out_end) into outs[0 ..] (device frames of the window's format and size;
  // other components are copied), on `stream` (a cudaStream_t), asynchronously.
  // The window (device frames) must hold every stream frame within
  // params.reach() of each output frame: frames missing at either end of the
  // window are taken to be outside the stream. sigma: per component, in its
  // code values (0: copied). When `cancel` becomes true no further frame is
  // queued and Cancelled is thrown.
  void run(const std::vector<FrameView>& window, int out_begin, int out_end, const std::vector<FrameView>& outs,
           int filtered, const Vbm3dParams& params, const std::vector<double>& sigma, void* stream,
           const std::atomic<bool>* cancel = nullptr);

  // Device memory held (grows to the largest frame and radii seen, then reused).
  std::size_t device_bytes() const;
  // References whose group lists one batch holds; smaller batches take less
  // memory and give the same result.
  static int default_batch_references();
  void set_batch_references(int n);

  // Milliseconds of the last run(), summed by stage (CUDA events), when enabled.
  struct Timing {
    double motion = 0, matching = 0, filtering = 0, other = 0;
  };
  void enable_timing(bool on);
  Timing last_timing() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace cdn
