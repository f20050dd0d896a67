// noise_device_samples.h: the rows of a device frame that the noise tracker
// samples (bands of 7 rows, noise_level.h PatchSampling), copied to pinned host
// memory asynchronously: the copies of noise_sample_plan.h, one
// cudaMemcpy2DAsync per memory plane, whose "rows" are whole bands (a band's 7
// rows are contiguous in the frame, bands are band_step rows apart). No kernel:
// the estimate itself runs on the host.
//
// Two staging buffers, enough for both of the tracker's schedules
// (noise_tracker.h). The samples take() returns are read until the estimate
// of that frame ends, and enqueue() may reuse their buffer, so the tracker
// never enqueues while they may still be read:
// - Foreground: observe(t) enqueues frame t's copy (the second buffer), then
//   takes frame t - 1's and estimates it before it returns, so the caller
//   waits only for a copy enqueued a frame ago.
// - Background: observe(t) first waits for the worker's estimate of frame
//   t - 2 (taken at observe(t - 1)), then enqueues frame t's copy into the
//   buffer t - 2 used (the other holds frame t - 1's copy, pending), then takes
//   frame t - 1's for the worker, which reads it until observe(t + 1) waits
//   for it. At most one buffer is being read and one pending when enqueue()
//   runs, so a third buffer would only let the enqueue go before the wait; it
//   is asynchronous anyway, so nothing would overlap better.
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

  // Enqueues on `stream` (a cudaStream_t; nullptr: a non-blocking stream of
  // its own, for a frame that is complete when enqueue() is called) the copy of
  // the bands of every component of the device frame, `sampling[c]` for component c (components
  // of one memory plane must share their sampling). At most two copies may be
  // pending; take() the older one first.
  virtual void enqueue(const FrameView& device_frame, const std::vector<PatchSampling>& sampling, void* stream) = 0;
  virtual int pending() const = 0;
  // Waits for the oldest pending copy and returns its samples (valid until the
  // next enqueue(), which may write their buffer: see above).
  virtual StagedComponents take() = 0;
};

}  // namespace cdn
