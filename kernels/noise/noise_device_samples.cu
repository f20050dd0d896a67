// noise_device_samples.cu: asynchronous copy of the noise tracker's sampled
// bands from a device frame to pinned host memory (noise_device_samples.h).
// Without a caller's stream the copies go on a non-blocking stream of its own,
// never on the legacy default stream: that one orders itself against every
// blocking stream of the context, so one pipeline's copy would wait for the
// work of the others sharing the context (a decoder's, another denoiser's).
#include <cuda_runtime.h>

#include <deque>

#include "cuda/host_wait.h"
#include "cudadenoise/error.h"
#include "noise/noise_device_samples.h"

namespace cdn {

namespace {

class CudaDeviceSamples final : public DeviceSamples {
 public:
  CudaDeviceSamples() {
    for (Slot& s : slots_) CDN_CUDA_CHECK(cudaEventCreateWithFlags(&s.done, kSleepingWaitEventFlags));
  }
  ~CudaDeviceSamples() override {
    for (Slot& s : slots_) {
      if (s.busy) cudaEventSynchronize(s.done);  // never free memory a copy still writes
      cudaEventDestroy(s.done);
      if (s.host) cudaFreeHost(s.host);
    }
    if (own_stream_) cudaStreamDestroy(own_stream_);
  }

  void enqueue(const FrameView& f, const std::vector<PatchSampling>& sampling, void* stream) override {
    if (f.memory != MemoryKind::Device) throw InvalidArgument("noise tracker: enqueue() takes device frames");
    if (order_.size() >= 2) throw Error("noise tracker: two sample copies pending; take() one first");
    const SampleCopyPlan plan = plan_sample_copy(f, sampling);
    const int slot = slots_[0].busy ? 1 : 0;
    Slot& s = slots_[slot];
    if (plan.bytes > s.capacity) {
      if (s.host) CDN_CUDA_CHECK(cudaFreeHost(s.host));
      s.host = nullptr;
      s.capacity = 0;
      CDN_CUDA_CHECK(cudaHostAlloc(&s.host, plan.bytes, cudaHostAllocPortable));
      s.capacity = plan.bytes;
    }
    if (!stream && !own_stream_) CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking));
    const cudaStream_t st = stream ? static_cast<cudaStream_t>(stream) : own_stream_;
    for (const SampleCopy& k : plan.copies)
      CDN_CUDA_CHECK(cudaMemcpy2DAsync(s.host + k.staged_offset, k.staged_pitch,
                                       static_cast<const unsigned char*>(f.data[k.plane]) + k.source_offset,
                                       k.source_pitch, k.row_bytes, k.rows, cudaMemcpyDeviceToHost, st));
    CDN_CUDA_CHECK(cudaEventRecord(s.done, st));
    s.busy = true;
    s.staged = staged_components(f, sampling, plan, s.host);
    order_.push_back(slot);
  }

  int pending() const override { return static_cast<int>(order_.size()); }

  StagedComponents take() override {
    if (order_.empty()) throw Error("noise tracker: no sample copy pending");
    Slot& s = slots_[order_.front()];
    order_.pop_front();
    CDN_CUDA_CHECK(cudaEventSynchronize(s.done));
    s.busy = false;
    return s.staged;
  }

 private:
  struct Slot {
    unsigned char* host = nullptr;
    std::size_t capacity = 0;
    cudaEvent_t done = nullptr;
    bool busy = false;
    StagedComponents staged;
  };
  Slot slots_[2];
  std::deque<int> order_;
  cudaStream_t own_stream_ = nullptr;  // made at the first copy without a caller's stream
};

}  // namespace

std::unique_ptr<DeviceSamples> DeviceSamples::create() { return std::make_unique<CudaDeviceSamples>(); }

}  // namespace cdn
