// bm3d_filter_lanes.cuh: collaborative filtering with one warp lane per patch
// (bm3d-gpu-honzatko-krulis-2017, section 5.2), the kernel family that BM3D
// (groups within one frame, bm3d_cuda.cu) and V-BM3D (groups across the
// window's frames, vbm3d_cuda.cu) both run: the 2D transform of each patch in
// its lane's registers, the 1D transform across the group by warp shuffles,
// hard thresholding (BM3D paper, section 4.1.2) or Wiener shrinkage with the
// basic group as oracle (section 4.2.2), the inverses, and the group's weight.
// filter_kernel<kWiener, K, Groups> is the family; Groups (the template
// argument, as BM3DCUDA's `temporal`) says where a group's patches are, how a
// patch is read and where the filtered patches are aggregated.
//
// Everything here sits in an unnamed namespace: each .cu that includes it has its
// own kernels and constant memory (whole-program compilation, no relocatable
// device code).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "bm3d/bm3d_profile.h"
#include "bm3d/bm3d_transforms.h"

namespace cdn::bm3d {
namespace {

__constant__ float c_kaiser[kPatchArea];        // kaiser_window()
__constant__ float c_bior_forward[kPatchArea];  // bior15_forward_matrix()
__constant__ float c_bior_inverse[kPatchArea];  // bior15_inverse_matrix()

// A contribution in fixed point: the float times a power of 2, rounded to an
// integer (exact for every float the bounds allow), as a two's-complement word.
__device__ __forceinline__ unsigned long long to_fixed(float x, float scale) {
  return static_cast<unsigned long long>(__float2ll_rn(x * scale));
}

// Walsh-Hadamard transform across the n lanes of a group (lanes base .. base+n-1
// of a K-aligned block, n a power of 2), the butterflies of wht_inplace.
template <int K>
__device__ __forceinline__ void wht_lanes(float (&v)[kPatchArea], int lane_in_group, int n) {
  // Every lane runs the stages of the warp's largest group (the shuffles need the
  // whole warp); a lane applies those of its own group. The stages stay a loop:
  // unrolled, the three transforms of the Wiener kernel alone would overflow the
  // instruction cache.
  int stages_n = n;
#pragma unroll
  for (int h = K; h < 32; h <<= 1) stages_n = max(stages_n, __shfl_xor_sync(0xffffffffu, stages_n, h));
#pragma unroll 1
  for (int h = 1; h < stages_n; h <<= 1) {
    const bool active = h < n;
#pragma unroll
    for (int q = 0; q < kPatchArea; ++q) {
      const float p = __shfl_xor_sync(0xffffffffu, v[q], h);
      if (active) v[q] = (lane_in_group & h) ? p - v[q] : v[q] + p;
    }
  }
  const float scale = 1.0f / sqrtf(static_cast<float>(n));
#pragma unroll
  for (int q = 0; q < kPatchArea; ++q) v[q] *= scale;
}

// The Haar decomposition across the n lanes of a group (haar_forward, in place:
// lane i holds coefficient i of the in-place order), or its inverse.
template <int K>
__device__ __forceinline__ void haar_lanes(float (&v)[kPatchArea], int lane_in_group, int n, bool inverse) {
  int stages_n = n;
#pragma unroll
  for (int h = K; h < 32; h <<= 1) stages_n = max(stages_n, __shfl_xor_sync(0xffffffffu, stages_n, h));
  const float r = 0.70710678118654752f;
#pragma unroll 1
  for (int step = 1; step < stages_n; step <<= 1) {
    const int h = inverse ? stages_n / 2 / step : step;  // forward h = 1, 2, ...; inverse h = stages_n / 2, ..., 1
    const bool active = h < n && (lane_in_group & (h - 1)) == 0;
#pragma unroll
    for (int q = 0; q < kPatchArea; ++q) {
      const float p = __shfl_xor_sync(0xffffffffu, v[q], h);
      if (active) v[q] = (lane_in_group & h) ? (p - v[q]) * r : (v[q] + p) * r;
    }
  }
}

// The 1D transform of the profile across the group (forward or inverse).
template <int K>
__device__ __forceinline__ void transform_lanes(float (&v)[kPatchArea], int lane_in_group, int n, Transform1d t1,
                                                bool inverse) {
  if (t1 == Transform1d::Haar)
    haar_lanes<K>(v, lane_in_group, n, inverse);
  else
    wht_lanes<K>(v, lane_in_group, n);
}

// Sum over the n lanes of the group.
template <int K>
__device__ __forceinline__ float group_sum(float x, int n) {
#pragma unroll
  for (int h = 1; h < K; h <<= 1) {
    const float p = __shfl_xor_sync(0xffffffffu, x, h);
    if (h < n) x += p;
  }
  return x;
}

// The 2D transform t2 of the patch load(v) reads when the lane has one (`mine`),
// else zeros.
template <typename Load>
__device__ __forceinline__ void load_transformed(bool mine, Transform2d t2, float (&v)[kPatchArea], Load load) {
  if (mine) {
    load(v);
    if (t2 == Transform2d::Bior15)
      matrix8x8_apply(v, c_bior_forward);
    else
      dct8x8_forward(v);
  } else {
#pragma unroll
    for (int q = 0; q < kPatchArea; ++q) v[q] = 0.f;
  }
}

// The inverse 2D transform t2.
__device__ __forceinline__ void inverse_2d(float (&v)[kPatchArea], Transform2d t2) {
  if (t2 == Transform2d::Bior15)
    matrix8x8_apply(v, c_bior_inverse);
  else
    dct8x8_inverse(v);
}

// A lane's patch of a group: the group's size n, whether the lane holds a patch
// (lane_in_group < n), and where it lies (frame: Groups' index of a plane).
struct LanePatch {
  int n = 1;
  bool mine = false;
  int frame = 0, x = 0, y = 0;
};

// A block filters the groups of Groups::kRefs references (Groups::kWarps warps):
// K lanes per group, 32 / K groups per warp at a time. Thread mapping: lane k of
// a group holds patch k's 64 values in registers through the whole 3D transform.
// Groups provides:
//   static constexpr int kWarps, kRefs, kMinBlocks (launch bounds; 0: none);
//   template <int K> LanePatch patch(int g, int lane_in_group): the lane's patch
//     of the block's g-th reference group;
//   load(LanePatch, bool basic, float (&v)[64]): the patch of the noisy (or, for
//     Wiener, basic) plane;
//   t2d, t1d (the transforms), lambda3d, sigma;
//   aggregate(LanePatch, int lane_in_group, float (&v)[64], float weight): the
//     patch, still in the 2D transform's domain (inverse_2d), into the sums.
// The Wiener phase stages the coefficients in shared memory: kPatchArea x 32
// floats a warp.
template <bool kWiener, int K, typename Groups>
__global__ void __launch_bounds__(Groups::kWarps * 32, Groups::kMinBlocks) filter_kernel(Groups a) {
  extern __shared__ float smem[];  // the Wiener coefficients: [warp][coefficient][lane]
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  constexpr int kGroupsPerWarp = 32 / K;
  const int lane_in_group = lane % K, slot = lane / K;
  for (int g0 = warp * kGroupsPerWarp; g0 < Groups::kRefs; g0 += Groups::kWarps * kGroupsPerWarp) {
    const LanePatch m = a.template patch<K>(g0 + slot, lane_in_group);  // g: the same for the K lanes of a group
    const int n = m.n;
    auto noisy = [&](float (&p)[kPatchArea]) { a.load(m, false, p); };
    float v[kPatchArea];
    float weight;
    if (!kWiener) {
      load_transformed(m.mine, a.t2d, v, noisy);
      transform_lanes<K>(v, lane_in_group, n, a.t1d, false);
      const float threshold = a.lambda3d * a.sigma;
      float kept = 0.f;
#pragma unroll
      for (int q = 0; q < kPatchArea; ++q) {
        if (fabsf(v[q]) <= threshold)
          v[q] = 0.f;
        else
          kept += 1.f;
      }
      if (!m.mine) kept = 0.f;
      kept = group_sum<K>(kept, n);
      weight = kept > 0.f ? 1.0f / kept : 1.0f;
    } else {
      // The Wiener coefficients of the basic group first, staged in shared memory
      // ([coefficient][lane], one 64 x 32 slab per warp), then the noisy group.
      float* coef = smem + warp * kPatchArea * 32;
      load_transformed(m.mine, a.t2d, v, [&](float (&p)[kPatchArea]) { a.load(m, true, p); });
      transform_lanes<K>(v, lane_in_group, n, a.t1d, false);
      const float s2 = a.sigma * a.sigma;
      float norm2 = 0.f;
#pragma unroll
      for (int q = 0; q < kPatchArea; ++q) {
        const float b2 = v[q] * v[q];
        const float w = b2 / (b2 + s2);
        coef[q * 32 + lane] = w;
        norm2 = fmaf(w, w, norm2);
      }
      if (!m.mine) norm2 = 0.f;
      norm2 = group_sum<K>(norm2, n);
      weight = norm2 > 0.f ? fminf(1.0f / norm2, kMaxWeight) : 1.0f;
      load_transformed(m.mine, a.t2d, v, noisy);
      transform_lanes<K>(v, lane_in_group, n, a.t1d, false);
#pragma unroll
      for (int q = 0; q < kPatchArea; ++q) v[q] *= coef[q * 32 + lane];
    }
    transform_lanes<K>(v, lane_in_group, n, a.t1d, true);
    a.aggregate(m, lane_in_group, v, weight);
  }
}

}  // namespace
}  // namespace cdn::bm3d
