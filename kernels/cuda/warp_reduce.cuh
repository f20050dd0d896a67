// warp_reduce.cuh: the minimum and maximum of an int over a whole warp (every lane
// active and taking part), by the sm_80 reduction instructions, or a butterfly of
// shuffles on older GPUs (the default build also targets sm_75). Used by the NLM-3D
// kernels' tile bounds and BM3D's block matching (a warp's blocks of candidates a row,
// its queues' turns).
#pragma once

namespace cdn {

__device__ __forceinline__ int warp_min(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(0xffffffffu, v);
#else
  for (int h = 16; h > 0; h >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, h));
  return v;
#endif
}

__device__ __forceinline__ int warp_max(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int h = 16; h > 0; h >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, h));
  return v;
#endif
}

}  // namespace cdn
