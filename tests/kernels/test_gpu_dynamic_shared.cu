// test_gpu_dynamic_shared.cu: allow_dynamic_shared (kernels/cuda/dynamic_shared.h).
// The limit it sets is never lowered, and threads that launch one kernel with
// different amounts of dynamic shared memory, each raising the limit for its
// own launch, never see a launch refused (what setting the exact amount did:
// a launch failed with cudaErrorInvalidValue when another thread had lowered
// the limit between the setting and the launch). Skips, with the reason, where
// no CUDA device can be used.
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <string>
#include <thread>
#include <vector>

#include "cuda/dynamic_shared.h"
#include "cudadenoise/error.h"
#include "test_support.h"

namespace cdn {
namespace {

// Writes and reads back every float of its dynamic shared memory; counts
// mismatches into *bad.
__global__ void touch_shared(int floats, int* bad) {
  extern __shared__ float s[];
  for (int i = threadIdx.x; i < floats; i += blockDim.x) s[i] = static_cast<float>(i);
  __syncthreads();
  for (int i = threadIdx.x; i < floats; i += blockDim.x)
    if (s[i] != static_cast<float>(i)) atomicAdd(bad, 1);
}

int limit_of(const void* kernel) {
  cudaFuncAttributes a{};
  CDN_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  return a.maxDynamicSharedSizeBytes;
}

constexpr std::size_t kSmall = 20 * 1024, kLarge = 96 * 1024;

TEST(GpuDynamicShared, TheLimitIsRaisedAndNeverLowered) {
  CDN_REQUIRE_GPU();
  const void* k = reinterpret_cast<const void*>(touch_shared);
  allow_dynamic_shared(touch_shared, kLarge);
  EXPECT_GE(limit_of(k), static_cast<int>(kLarge));
  allow_dynamic_shared(touch_shared, kSmall);
  EXPECT_GE(limit_of(k), static_cast<int>(kLarge)) << "a smaller request lowered the limit";
  allow_dynamic_shared(touch_shared, 0);
  EXPECT_GE(limit_of(k), static_cast<int>(kLarge));
}

// Eight threads on one context, half launching with 20 KB and half with 96 KB,
// each raising the limit before each of its launches, as the filters do.
TEST(GpuDynamicShared, ThreadsLaunchingWithDifferentAmountsAreNeverRefused) {
  CDN_REQUIRE_GPU();
  int* bad = nullptr;
  CDN_CUDA_CHECK(cudaMalloc(&bad, sizeof(int)));
  CDN_CUDA_CHECK(cudaMemset(bad, 0, sizeof(int)));
  constexpr int kThreads = 8, kLaunches = 500;
  std::vector<int> refused(kThreads, 0);
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      cudaStream_t stream;
      cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      if (e != cudaSuccess) {
        refused[i] = kLaunches;
        first_error[i] = cudaGetErrorString(e);
        return;
      }
      const std::size_t bytes = i % 2 ? kLarge : kSmall;
      for (int n = 0; n < kLaunches; ++n) {
        allow_dynamic_shared(touch_shared, bytes);
        touch_shared<<<1, 128, bytes, stream>>>(static_cast<int>(bytes / sizeof(float)), bad);
        e = cudaGetLastError();
        if (e != cudaSuccess && refused[i]++ == 0) first_error[i] = cudaGetErrorString(e);
      }
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i)
    EXPECT_EQ(refused[i], 0) << "thread " << i << " (" << (i % 2 ? kLarge : kSmall) << " bytes): " << first_error[i];
  int mismatches = -1;
  CDN_CUDA_CHECK(cudaMemcpy(&mismatches, bad, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(mismatches, 0);
  CDN_CUDA_CHECK(cudaFree(bad));
}

}  // namespace
}  // namespace cdn
