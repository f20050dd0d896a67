// bm3d_device_run.cuh: the host-side plumbing that Bm3dCuda::run and
// Vbm3dCuda::run share (no part of the algorithm): device buffers kept in
// numbered slots and grown to the largest frame seen, the shared-memory opt-in
// of a kernel, and CUDA events that time a run's stages. In an unnamed
// namespace: each .cu has its own copy.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "cudadenoise/error.h"

namespace cdn::bm3d {
namespace {

// Buffer `slot` of at least `bytes` (kept, and grown only when too small);
// total: the bytes held.
void* reserve_slot(std::vector<void*>& buffers, std::vector<std::size_t>& sizes, std::size_t& total, int slot,
                   std::size_t bytes) {
  if (static_cast<int>(buffers.size()) <= slot) {
    buffers.resize(slot + 1, nullptr);
    sizes.resize(slot + 1, 0);
  }
  if (sizes[slot] < bytes) {
    if (buffers[slot]) {
      CDN_CUDA_CHECK(cudaFree(buffers[slot]));
      total -= sizes[slot];
      buffers[slot] = nullptr;
      sizes[slot] = 0;
    }
    CDN_CUDA_CHECK(cudaMalloc(&buffers[slot], bytes));
    sizes[slot] = bytes;
    total += bytes;
  }
  return buffers[slot];
}

// From a destructor: nothing to report to.
void free_slots(const std::vector<void*>& buffers) {
  for (void* b : buffers)
    if (b) cudaFree(b);
}

// The most shared memory a block of this GPU can opt in to.
int max_shared_optin() {
  int device = 0, bytes = 0;
  CDN_CUDA_CHECK(cudaGetDevice(&device));
  CDN_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

// Calls f(std::integral_constant<int, K>{}) for the run-time group size K (8, 16
// or 32; anything else: 32): every kernel of a group is a template on it.
template <typename F>
void with_group_size(int K, F&& f) {
  if (K == 8)
    f(std::integral_constant<int, 8>{});
  else if (K == 16)
    f(std::integral_constant<int, 16>{});
  else
    f(std::integral_constant<int, 32>{});
}

// Events around the kStages stages of a run, when timing is on.
template <int kStages>
class StageTimer {
 public:
  StageTimer(bool on, cudaStream_t s) : on_(on), s_(s) {}
  ~StageTimer() {
    for (auto e : events_) cudaEventDestroy(e);
  }
  void mark(int stage) {
    if (!on_) return;
    cudaEvent_t e;
    CDN_CUDA_CHECK(cudaEventCreate(&e));
    CDN_CUDA_CHECK(cudaEventRecord(e, s_));
    events_.push_back(e);
    stages_.push_back(stage);
  }
  // Milliseconds between consecutive marks, summed by the stage of the later mark.
  std::array<double, kStages> result() {
    std::array<double, kStages> t{};
    if (!on_ || events_.empty()) return t;
    CDN_CUDA_CHECK(cudaEventSynchronize(events_.back()));
    for (std::size_t k = 1; k < events_.size(); ++k) {
      float ms = 0;
      CDN_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
      t[stages_[k]] += ms;
    }
    return t;
  }

 private:
  bool on_;
  cudaStream_t s_;
  std::vector<cudaEvent_t> events_;
  std::vector<int> stages_;
};

}  // namespace
}  // namespace cdn::bm3d
