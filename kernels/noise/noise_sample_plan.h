// noise_sample_plan.h: which bytes of a frame the noise tracker samples, as a
// plan of 2D copies into one staging buffer, and the host planes over that
// buffer that the estimator reads (docs/NOISE.md, "Cost"). Plain C++: the
// device path (noise_device_samples.cu) runs the copies with cudaMemcpy2DAsync,
// stage_host_samples() with memcpy (host frames that the tracker estimates in
// the background: observe() may not keep the frame); a CPU test runs the same plan with memcpy on a host frame and checks that the
// staged planes give the estimates of the frame itself, for every format and
// odd sizes (tests/kernels/test_noise_sample_plan.cpp).
//
// Layout: per memory plane, the bands of its first component stacked (band k
// at rows 7k .. 7k + 6, at the frame's pitch); a densely sampled small plane
// (band_step 1): its rows from the first band on, as they are. Components of
// one memory plane (NV12's U and V) share the plane's rows, so they must share
// their sampling. The staged sampling reads band k at row 7k (band_first 0,
// band_step 7); the estimator's candidates keep their band index k, column and
// half, so the estimate is that of the frame's own rows.
#pragma once

#include <cstddef>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/noise_level.h"

namespace cdn {

// One 2D copy: `rows` rows of `row_bytes` bytes, the first at `source_offset`
// bytes past the first byte of memory plane `plane` and then every
// `source_pitch` bytes, to `staged_offset` bytes into the staging buffer and
// then every `staged_pitch` bytes.
struct SampleCopy {
  int plane = 0;
  std::size_t source_offset = 0, source_pitch = 0;
  std::size_t staged_offset = 0, staged_pitch = 0;
  std::size_t row_bytes = 0;
  int rows = 0;
};

struct SampleCopyPlan {
  std::vector<SampleCopy> copies;          // at most one per memory plane (none for a plane without samples)
  std::vector<std::size_t> plane_offset;   // where each memory plane's rows start in the staging buffer
  std::size_t bytes = 0;                   // the staging buffer's size
};

// Staged samples of one frame: per component, a host plane over the staging
// buffer (its height: the rows staged) and the sampling to read it with.
struct StagedComponents {
  std::vector<PlaneView> planes;
  std::vector<PatchSampling> sampling;
};

// The memory plane that holds component c of a frame of this format.
int component_plane(PixelFormat format, int c);

// Rows a component's samples take in the staging buffer.
int staged_rows(const PatchSampling& sampling);

// The copies of `sampling[c]` (one per component, as the tracker samples) out
// of `frame` (host or device: only its format, size and pitches are read).
// Throws InvalidArgument for a sampling count that is not one per component,
// or components of one memory plane sampled differently.
SampleCopyPlan plan_sample_copy(const FrameView& frame, const std::vector<PatchSampling>& sampling);

// The host planes over `staging` (laid out by `plan`, made for `frame` and
// `sampling`) and the sampling that reads them.
StagedComponents staged_components(const FrameView& frame, const std::vector<PatchSampling>& sampling,
                                   const SampleCopyPlan& plan, unsigned char* staging);

// The plan run with memcpy on a host frame into `staging` (resized to the
// plan's bytes; the staged planes point into it, valid while it is neither
// resized nor freed).
StagedComponents stage_host_samples(const FrameView& host_frame, const std::vector<PatchSampling>& sampling,
                                    std::vector<unsigned char>& staging);

}  // namespace cdn
