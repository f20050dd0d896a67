// noise_device_samples.h: the rows of a device frame that the noise tracker
// samples (bands of 7 rows, noise_level.h PatchSampling), copied to pinned host
// memory asynchronously: the copies of noise_sample_plan.h, one
// cudaMemcpy2DAsync per memory plane, whose "rows" are whole bands (a band's 7
// rows are contiguous in the frame, bands are band_step rows apart). No kernel:
// the estimate itself runs on the host.
//
// Two staging buffers: the copy of frame t is enqueued before frame t - 1's
// samples are taken, so the caller waits only for a copy enqueued a frame ago.
#pragma once

#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/noise_level.h"
#include "noise/noise_sample_plan.h"

namespace cdn {

class DeviceSamples {
 public:
  // Throws cdn::Error in builds without CUDA.
  static std::unique_ptr<DeviceSamples> create();
  virtual ~DeviceSamples() = default;

  // Enqueues on `stream` (a cudaStream_t) the copy of the bands of every
  // component of the device frame, `sampling[c]` for component c (components
  // of one memory plane must share their sampling). At most two copies may be
  // pending; take() the older one first.
  virtual void enqueue(const FrameView& device_frame, const std::vector<PatchSampling>& sampling, void* stream) = 0;
  virtual int pending() const = 0;
  // Waits for the oldest pending copy and returns its samples (valid until the
  // next enqueue()).
  virtual StagedComponents take() = 0;
};

}  // namespace cdn
