// bm3d_group_columns.cuh: the 1D transform across a BM3D group (section 4.1.2's
// third dimension: Haar or Walsh-Hadamard over the group's patches) done in
// registers after a transpose through shared memory, for bm3d_cuda.cu's
// window filter.
//
// The filter holds one patch per warp lane (K lanes a group, 32 / K groups a
// warp), which suits the 2D transforms and the aggregation; across the group
// the lanes would have to exchange every one of their 64 coefficients by a
// shuffle at every butterfly stage. Instead a warp writes its patches' 64
// coefficients to a slab of shared memory (a row a lane) and reads it back as
// columns: lane l takes coefficients l and l + 32 of every group of the warp, K
// entries each (2 x 32 / K columns, 64 registers whatever K), transforms them in
// registers and writes them back. The butterflies are those of
// bm3d_filter_lanes.cuh's haar_lanes and wht_lanes, the same operations on the
// same values, so the results are the same floats.
#pragma once

#include "bm3d/bm3d_profile.h"

namespace cdn::bm3d {

// A warp's slab: 32 rows (lanes) of 64 coefficients, padded to 65 floats so that
// a lane's row and a coefficient's column are both read and written without
// bank conflicts.
constexpr int kSlabPitch = kPatchArea + 1;
constexpr int kSlabFloats = 32 * kSlabPitch;

// The lane's 64 values into its row of the slab, or back.
__device__ __forceinline__ void store_row(float* slab, int lane, const float (&v)[kPatchArea]) {
#pragma unroll
  for (int q = 0; q < kPatchArea; ++q) slab[lane * kSlabPitch + q] = v[q];
}
__device__ __forceinline__ void load_row(const float* slab, int lane, float (&v)[kPatchArea]) {
#pragma unroll
  for (int q = 0; q < kPatchArea; ++q) v[q] = slab[lane * kSlabPitch + q];
}

// store_row between two warp barriers: after the warp's last reads of the slab
// (the previous contents' columns), before its first column reads of this row.
__device__ __forceinline__ void share_row(float* slab, int lane, const float (&v)[kPatchArea]) {
  __syncwarp();
  store_row(slab, lane, v);
  __syncwarp();
}

// Column c (0 .. 2 x 32 / K - 1) of a lane: group c / 2 of the warp (lanes
// (c / 2) K .. (c / 2) K + K - 1), coefficient lane + 32 (c % 2).
template <int K>
__device__ __forceinline__ void load_column(const float* slab, int lane, int c, float (&x)[K]) {
  const float* col = slab + (c / 2) * K * kSlabPitch + lane + 32 * (c % 2);
#pragma unroll
  for (int k = 0; k < K; ++k) x[k] = col[k * kSlabPitch];
}
template <int K>
__device__ __forceinline__ void store_column(float* slab, int lane, int c, const float (&x)[K]) {
  float* col = slab + (c / 2) * K * kSlabPitch + lane + 32 * (c % 2);
#pragma unroll
  for (int k = 0; k < K; ++k) col[k * kSlabPitch] = x[k];
}

// The profile's 1D transform of the first n entries of a column (n a power of 2,
// at most K; the entries from n on are 0 and stay 0): Haar, in place (entry i
// holds coefficient i of haar_forward's in-place order; the inverse runs the
// stages backwards, the butterfly being its own inverse), or Walsh-Hadamard
// scaled by 1 / sqrt(n) (its own inverse).
template <int K>
__device__ __forceinline__ void transform_column(float (&x)[K], int n, Transform1d t1, bool inverse) {
  if (t1 == Transform1d::Haar) {
    const float r = 0.70710678118654752f;
#pragma unroll
    for (int s = 0; s < 5; ++s) {
      const int h = inverse ? (K >> 1) >> s : 1 << s;  // forward 1, 2, ...; inverse K / 2, ..., 1
      if (h >= K || h < 1 || h >= n) continue;
#pragma unroll
      for (int i = 0; i < K; i += 2 * h) {
        const float a = x[i], b = x[i + h];
        x[i] = (a + b) * r;
        x[i + h] = (a - b) * r;
      }
    }
  } else {
#pragma unroll
    for (int s = 0; s < 5; ++s) {
      const int h = 1 << s;
      if (h >= K || h >= n) continue;
#pragma unroll
      for (int i = 0; i < K; ++i)
        if ((i & h) == 0) {
          const float a = x[i], b = x[i + h];
          x[i] = a + b;
          x[i + h] = a - b;
        }
    }
    const float scale = 1.0f / sqrtf(static_cast<float>(n));
#pragma unroll
    for (int i = 0; i < K; ++i) x[i] *= scale;
  }
}

}  // namespace cdn::bm3d
