// bm3d_cuda.cu: the BM3D kernels (bm3d_cuda.h). Step for step the computation of
// bm3d_reference.cpp: same padded planes, reference grid, candidate order, group
// selection, transforms (the profile's, per phase) and weights. The aggregation
// sums in 64-bit fixed point (integer atomics are associative), so the output
// does not depend on the order in which blocks and lanes add their patches.
// The planes, the lane-per-patch filter kernel family (bm3d_filter_lanes.cuh,
// whose temporal form V-BM3D runs) and the run's plumbing are shared with
// vbm3d_cuda.cu.
#include "bm3d/bm3d_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "bm3d/bm3d_device_planes.cuh"
#include "bm3d/bm3d_device_run.cuh"
#include "bm3d/bm3d_filter_lanes.cuh"
#include "bm3d/bm3d_group_columns.cuh"
#include "bm3d/bm3d_match8.cuh"
#include "bm3d/bm3d_profile.h"
#include "bm3d/bm3d_reference.h"  // kaiser_window, components_by_size
#include "bm3d/bm3d_transforms.h"
#include "cuda/dynamic_shared.h"
#include "cuda/warp_reduce.cuh"
#include "cudadenoise/error.h"

namespace cdn {

using namespace bm3d;

namespace {

constexpr int kTileX = 32;  // references per tile along x (one warp)
constexpr int kTileY = 4;   // ... and along y
constexpr int kTileRefs = kTileX * kTileY;
constexpr int kDxBlock = 8;  // candidates along x evaluated together by a block-matching thread
constexpr int kFilterWarps = 8;
constexpr int kBatchTileRowsMaxRefs = 1 << 20;

// The frame's accumulators, in 64-bit two's-complement fixed point: per padded
// sample the numerator sum of weight x Kaiser x value (scaled by 2^num_bits, see
// fixed_point_bits), and per patch origin the sum of the weights of the groups
// that hold that patch (scaled by 2^kWeightBits; at most 4096 x 63^2 < 2^24).
// A sample's denominator, the sum of weight x Kaiser over the patches that
// cover it, is the correlation of those weight sums with the Kaiser window: the
// divide kernel computes it, so a patch costs 65 atomics, not 128.
struct Accumulators {
  unsigned long long* num;
  unsigned long long* weights;
};
constexpr int kWeightBits = 32;
// The numerator's fraction bits for a bit depth: a contribution is at most
// kMaxWeight (2^12) x 2^(depth + 1) and a sample takes at most 64 x 63^2 < 2^18
// contributions, so the sum stays below 2^(31 + depth); one bit of margin.
inline int fixed_point_bits(int depth) { return 31 - depth; }

// The pixel window a tile of references can touch: the origins of its search
// windows plus a patch (bm3d_profile.h), clipped to the plane.
struct TileArea {
  int x0, y0, w, h;
  __host__ __device__ TileArea(const RefGrid& g, int radius, int tile_i, int tile_j)
      : TileArea(g, radius, tile_i, tile_j * kTileY, kTileY) {}
  // The references of tile column tile_i in rows j0 .. j0 + rows - 1 (j0 < g.ny).
  __host__ __device__ TileArea(const RefGrid& g, int radius, int tile_i, int j0, int rows) {
    const int i0 = tile_i * kTileX;
    const int i1 = std::min(i0 + kTileX, g.nx) - 1, j1 = std::min(j0 + rows, g.ny) - 1;
    x0 = std::max(0, g.x(i0) - radius);
    y0 = std::max(0, g.y(j0) - radius);
    w = std::min(g.last_x, g.x(i1) + radius) + kPatch - x0;
    h = std::min(g.last_y, g.y(j1) + radius) + kPatch - y0;
  }
  // Upper bounds over all tiles, for shared-memory sizes.
  static __host__ int max_w(int step, int radius) { return (kTileX - 1) * step + 2 * radius + kPatch; }
  static __host__ int max_h(int step, int radius, int rows = kTileY) { return (rows - 1) * step + 2 * radius + kPatch; }
};

// ---------------------------------------------------------------- planes

// quantize_guide of bm3d_reference.cpp: the guide in 8-bit code values (match8 profiles).
__global__ void quantize_guide_kernel(DevPlane in, DevPlane out, float unit) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  const float v = floorf(in.at(x, y) / unit + 0.5f);
  out.data[static_cast<std::size_t>(y) * out.pitch + x] = fminf(fmaxf(v, 0.0f), 255.0f);
}

// num / den of the accumulators: the estimate in float (basic) and/or rounded
// into `out` (final). Without accumulators, `copy`'s values are rounded into `out`.
// A sample's denominator is the correlation of the per-origin weight sums with
// the Kaiser window, which is separable (kaiser8(j) kaiser8(i)): a block of 32 x 8
// samples stages the weight sums of the origins that reach it (39 x 15) in
// shared memory, correlates its rows with the 8 x-factors, then the columns with
// the 8 y-factors: 16 multiply-adds a sample in double instead of 64 loads, in a
// fixed order (deterministic).
constexpr int kDivideX = 32, kDivideY = 8;
__constant__ double c_kaiser1d[kPatch];

__global__ void __launch_bounds__(kDivideX * kDivideY) divide_kernel(Accumulators acc, const float* copy, int pitch,
                                                                      DevPlane estimate, PlaneView out, int write_out,
                                                                      int num_bits) {
  constexpr int kSpanX = kDivideX + kPatch - 1, kSpanY = kDivideY + kPatch - 1;
  __shared__ double weights[kSpanY][kSpanX];
  __shared__ double rows[kSpanY][kDivideX];
  const int x0 = blockIdx.x * kDivideX, y0 = blockIdx.y * kDivideY;
  const int t = threadIdx.y * kDivideX + threadIdx.x;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (acc.num) {
    // Thread mapping: all threads of the block stage and correlate (no early exit).
    const int last_x = estimate.width - kPatch, last_y = estimate.height - kPatch;
    for (int k = t; k < kSpanX * kSpanY; k += kDivideX * kDivideY) {
      const int ox = x0 - (kPatch - 1) + k % kSpanX, oy = y0 - (kPatch - 1) + k / kSpanX;
      const bool valid = ox >= 0 && oy >= 0 && ox <= last_x && oy <= last_y;
      weights[k / kSpanX][k % kSpanX] =
          valid ? static_cast<double>(acc.weights[static_cast<std::size_t>(oy) * pitch + ox]) : 0.0;
    }
    __syncthreads();
    for (int k = t; k < kSpanY * kDivideX; k += kDivideX * kDivideY) {
      const int r = k / kDivideX, c = k % kDivideX;
      double sum = 0;
#pragma unroll
      for (int i = 0; i < kPatch; ++i) sum = fma(c_kaiser1d[i], weights[r][c + kPatch - 1 - i], sum);
      rows[r][c] = sum;
    }
    __syncthreads();
  }
  if (x >= estimate.width || y >= estimate.height) return;
  const std::size_t at = static_cast<std::size_t>(y) * pitch + x;
  float v;
  if (acc.num) {
    const double num = ldexp(static_cast<double>(static_cast<long long>(acc.num[at])), -num_bits);
    double den = 0;
#pragma unroll
    for (int j = 0; j < kPatch; ++j) den = fma(c_kaiser1d[j], rows[threadIdx.y + kPatch - 1 - j][threadIdx.x], den);
    v = static_cast<float>(num / ldexp(den, -kWeightBits));
  } else {
    v = copy[at];
  }
  if (estimate.data) estimate.data[static_cast<std::size_t>(y) * estimate.pitch + x] = v;
  if (write_out && x < out.width && y < out.height) store_rounded(out, x, y, v);
}

// ---------------------------------------------------------------- block matching

struct MatchArgs {
  DevPlane guide;
  RefGrid grid;
  int radius, side;
  float tau;
  int first_tile_row;       // of this batch
  std::uint16_t* lists;     // [batch reference][max group]
  std::uint8_t* counts;     // [batch reference]
};

// One thread per reference patch (tile of 32 x 4 references per block). The
// tile's search area is staged in shared memory (plus kDxBlock - 1 spare
// columns); each thread keeps its reference patch in registers and walks its
// window row by row, kDxBlock candidates at a time (one row of the area read
// per patch row feeds kDxBlock distance sums). Candidates that pass tau enter
// the thread's sorted list (shared memory, one column per thread), which keeps
// the smallest (distance, scan index) pairs: the scan visits indices in
// increasing order and equal distances never displace an earlier entry.
// Warp lanes are references along x: with an odd step their area reads fall in
// distinct banks.
template <int K>
__global__ void __launch_bounds__(kTileRefs) block_match_kernel(MatchArgs a) {
  extern __shared__ float smem[];
  const int tile_i = blockIdx.x, tile_j = a.first_tile_row + blockIdx.y;
  const TileArea area(a.grid, a.radius, tile_i, tile_j);
  const int aw = area.w + kDxBlock - 1;  // spare columns: the last block of candidates may overhang
  float* sa = smem;
  float* list_d = sa + aw * area.h;
  std::uint16_t* list_i = reinterpret_cast<std::uint16_t*>(list_d + (K - 1) * kTileRefs);
  const int t = threadIdx.y * kTileX + threadIdx.x;

  // Thread mapping: all threads stage the area linearly.
  for (int k = t; k < aw * area.h; k += kTileRefs) {
    const int ax = k % aw, ay = k / aw;
    sa[k] = ax < area.w ? a.guide.at(area.x0 + ax, area.y0 + ay) : 0.f;
  }
  __syncthreads();

  // From here: one thread per reference.
  const int i = tile_i * kTileX + threadIdx.x, j = tile_j * kTileY + threadIdx.y;
  if (i >= a.grid.nx || j >= a.grid.ny) return;
  const int rx = a.grid.x(i), ry = a.grid.y(j), R = a.radius;
  float ref[kPatchArea];
#pragma unroll
  for (int q = 0; q < kPatchArea; ++q) ref[q] = sa[(ry - area.y0 + q / kPatch) * aw + rx - area.x0 + q % kPatch];

  int count = 0;
  float worst = 3.0e38f;  // distance of the last entry once the list is full
  const int dx_lo = max(-R, -rx), dx_hi = min(R, a.grid.last_x - rx);
  const int dy_lo = max(-R, -ry), dy_hi = min(R, a.grid.last_y - ry);
  for (int dy = dy_lo; dy <= dy_hi; ++dy) {
    const float* rows = sa + (ry + dy - area.y0) * aw - area.x0 + rx;
    for (int dxb = dx_lo; dxb <= dx_hi; dxb += kDxBlock) {
      float acc[kDxBlock];
#pragma unroll
      for (int q = 0; q < kDxBlock; ++q) acc[q] = 0.f;
#pragma unroll
      for (int pj = 0; pj < kPatch; ++pj) {
        float v[kDxBlock + kPatch - 1];
#pragma unroll
        for (int m = 0; m < kDxBlock + kPatch - 1; ++m) v[m] = rows[pj * aw + dxb + m];
#pragma unroll
        for (int q = 0; q < kDxBlock; ++q)
#pragma unroll
          for (int pi = 0; pi < kPatch; ++pi) {
            const float d = ref[pj * kPatch + pi] - v[q + pi];
            acc[q] = fmaf(d, d, acc[q]);
          }
      }
#pragma unroll
      for (int q = 0; q < kDxBlock; ++q) {
        const int dx = dxb + q;
        const float d = acc[q];
        if (dx > dx_hi || d > a.tau || (dx == 0 && dy == 0)) continue;
        if (count == K - 1 && !(d < worst)) continue;
        const int idx = (dy + R) * a.side + dx + R;
        int e = count < K - 1 ? count++ : K - 2;
        while (e > 0 && list_d[(e - 1) * kTileRefs + t] > d) {
          list_d[e * kTileRefs + t] = list_d[(e - 1) * kTileRefs + t];
          list_i[e * kTileRefs + t] = list_i[(e - 1) * kTileRefs + t];
          --e;
        }
        list_d[e * kTileRefs + t] = d;
        list_i[e * kTileRefs + t] = static_cast<std::uint16_t>(idx);
        if (count == K - 1) worst = list_d[(K - 2) * kTileRefs + t];
      }
    }
  }
  const int n = floor_pow2(min(1 + count, K));
  const std::size_t slot = static_cast<std::size_t>(j - a.first_tile_row * kTileY) * a.grid.nx + i;
  std::uint16_t* out = a.lists + slot * K;
  out[0] = static_cast<std::uint16_t>(R * a.side + R);
  for (int k = 1; k < n; ++k) out[k] = list_i[(k - 1) * kTileRefs + t];
  a.counts[slot] = static_cast<std::uint8_t>(n);
}

// ---------------------------------------------------------------- block matching on 8-bit guides

__global__ void quantize_guide8_kernel(DevPlane in, BytePlane out, float unit) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  const float v = fminf(fmaxf(floorf(in.at(x, y) / unit + 0.5f), 0.0f), 255.0f);
  out.data[static_cast<std::size_t>(y) * out.pitch + x] = static_cast<unsigned char>(v);
}

// Per patch origin the sum of its 64 squared samples (at most 64 x 255^2 < 2^22),
// separably: a 32 x 8 block stages the squares of its (32 + 7) x (8 + 7) bytes in
// shared memory, sums 8 of them along rows, then 8 of those along columns (in
// integers: the direct sums' values).
constexpr int kBoxX = 32, kBoxY = 8;
__global__ void __launch_bounds__(kBoxX * kBoxY) box_squares_kernel(BytePlane g, int* sq, int sq_pitch) {
  constexpr int kW = kBoxX + kPatch - 1, kH = kBoxY + kPatch - 1;
  __shared__ int squares[kH][kW];
  __shared__ int row_sums[kH][kBoxX];
  const int bx = blockIdx.x * kBoxX, by = blockIdx.y * kBoxY;
  const int t = threadIdx.y * kBoxX + threadIdx.x;
  for (int k = t; k < kW * kH; k += kBoxX * kBoxY) {
    const int x = bx + k % kW, y = by + k / kW;
    const int v = x < g.width && y < g.height ? static_cast<int>(g.at(x, y)) : 0;
    squares[k / kW][k % kW] = v * v;
  }
  __syncthreads();
  for (int k = t; k < kBoxX * kH; k += kBoxX * kBoxY) {
    const int r = k / kBoxX, c = k % kBoxX;
    int s = 0;
#pragma unroll
    for (int d = 0; d < kPatch; ++d) s += squares[r][c + d];
    row_sums[r][c] = s;
  }
  __syncthreads();
  const int x = bx + threadIdx.x, y = by + threadIdx.y;
  if (x > g.width - kPatch || y > g.height - kPatch) return;
  int s = 0;
#pragma unroll
  for (int d = 0; d < kPatch; ++d) s += row_sums[threadIdx.y + d][threadIdx.x];
  sq[static_cast<std::size_t>(y) * sq_pitch + x] = s;
}

struct Match8Args {
  BytePlane guide;
  const int* sq;  // box_squares_kernel's sums, pitch sq_pitch
  int sq_pitch;
  RefGrid grid;
  int radius, side;
  int tau;           // on the integer sum of squared differences: floor(tau_ssd)
  int row_words;     // 32-bit words per row of each shifted copy of the area
  int key_bits;      // bits of the scan index in the list's keys (match8_key_bits)
  int queue_offset;  // bytes: where the threads' queues start in shared memory (match8_queue_offset)
  int first_tile_row;
  std::uint16_t* lists;
  std::uint8_t* counts;
};

// block_match_kernel on an 8-bit guide, with the same result (the distances are
// the same integers, and the list, kept as keys, does not depend on the order of
// the scan, which goes from the reference outwards): ||P - Q||^2 = |P|^2 + |Q|^2 - 2 P.Q, |Q|^2
// from box_squares_kernel, P.Q by 8-bit dot products (__dp4a: 4 products an
// instruction). The area is staged four times in shared memory, copy s shifted by
// s bytes and the copies interleaved word by word ([row][word][copy]), so that the
// 12 words a block of 8 candidates needs (at byte offsets c..c+7 of a row, c a
// multiple of 4, each 8 bytes wide) are 12 consecutive words: three 128-bit loads
// a patch row. The list of the best candidates lives in registers as keys that
// hold the distance and the scan index (BestKeys: unique, so the list is the N
// smallest keys whatever the order of arrival) and takes a new entry by a fixed
// sequence of compares and selects (block_match_kernel's insertion into a
// shared-memory list waits on a load per shifted entry). Of a block of 8
// candidates, a thread inserts those that beat its last entry one after the
// other, so a warp takes as many insertions as its busiest thread; for lists of 31
// (match8_queued) they join the thread's queue in shared memory instead, and the
// warp inserts its lanes' queues two keys a turn when one of them is nearly full
// (MatchQueue).
//
// Thread mapping: S threads per reference (S = 1, 2 or 4; blockDim = (kTileX,
// kTileY / S, S)), a block covering kTileX x (kTileY / S) references of a tile.
// Thread z scans the z-th of S consecutive runs of the window's rows; each keeps
// its own list; then thread 0 takes the others' entries. The N smallest keys of the
// runs' lists are the N smallest of the window, so the merged list is the
// one-thread scan's, entry for entry: S only spreads small grids (draft's) over
// more of the GPU. Each
// thread starts its candidate blocks at a multiple of 4 bytes of the area
// (earlier than its window's left edge by up to 3 candidates, which it skips).
template <int K, int S, typename Key>
__global__ void __launch_bounds__(kTileRefs) block_match8_kernel(Match8Args a) {
  static_assert(kTileY % S == 0, "S divides the tile's rows");
  constexpr int kRows = kTileY / S;          // reference rows of the block
  constexpr int kRefs = kTileX * kRows;      // references of the block
  extern __shared__ unsigned smem_words[];
  const int j0 = a.first_tile_row * kTileY + blockIdx.y * kRows;
  if (j0 >= a.grid.ny) return;  // the whole block (the last tile's missing rows)
  const TileArea area(a.grid, a.radius, blockIdx.x, j0, kRows);
  const int rw = a.row_words;
  unsigned* copies = smem_words;  // [area row][word][copy s]
  const int r = threadIdx.y * kTileX + threadIdx.x;  // the reference within the block
  const int t = threadIdx.z * kRefs + r;
  // Thread mapping: all threads stage the area.
  stage_area8(a.guide, area.x0, area.y0, area.w, area.h, rw, copies, t, kTileRefs);

  // From here: S threads per reference. A warp is one row of references (the same
  // j and run). With queues, the warp-wide votes need all its lanes: a lane past
  // the grid's last column scans the last reference's window again and writes no
  // list (with S > 1 its run's list goes to its own slot of shared memory, unread).
  constexpr bool kQueued = match8_queued(K);
  const int i = blockIdx.x * kTileX + threadIdx.x, j = j0 + threadIdx.y;
  const bool valid = i < a.grid.nx && j < a.grid.ny;
  const int bits = a.key_bits;
  const unsigned clamp = static_cast<unsigned>(a.tau) + 1u;  // distances above tau become the sentinel's
  const Key sentinel = static_cast<Key>(clamp) << bits;
  BestKeys<K - 1, Key> best;  // the candidates, the reference itself not included
  best.clear(sentinel);
  const int R = a.radius;
  if (kQueued ? j < a.grid.ny : valid) {
    const int rx = a.grid.x(min(i, a.grid.nx - 1)), ry = a.grid.y(j);
    unsigned ref[2 * kPatch];
    const unsigned ref_sq = load_patch8(copies, rw, rx - area.x0, ry - area.y0, ref);
    const int dx_lo = max(-R, -rx), dx_hi = min(R, a.grid.last_x - rx);
    const int dy_lo = max(-R, -ry), dy_hi = min(R, a.grid.last_y - ry);
    const int dx_first = dx_lo - ((rx + dx_lo - area.x0) & 3);  // area byte offset a multiple of 4
    const int run = (dy_hi - dy_lo + S) / S;  // rows of each thread's run
    const int dy_begin = dy_lo + static_cast<int>(threadIdx.z) * run;
    const int dy_end = min(dy_hi, dy_begin + run - 1);
    // The run's rows, and each row's blocks of candidates, from the one nearest
    // the reference outwards (centre_out): near candidates tend to be the better
    // matches, which lower the last entry early and spare insertions later. The
    // list does not depend on the order (BestKeys). A lane's blocks of a row number
    // 5 or 6 at window 39 (its first one starts at a multiple of 4 bytes); with
    // queues every lane runs the warp's largest number, a lane past its own last
    // block taking no candidate from it.
    const int dx_blocks = (dx_hi - dx_first) / kDxBlock + 1;
    const int blocks = kQueued ? warp_max(dx_blocks) : dx_blocks;
    const int dx_centre = (0 - dx_first) / kDxBlock;  // the block that holds dx = 0
    MatchQueue<Key> queue(reinterpret_cast<Key*>(reinterpret_cast<unsigned char*>(smem_words) + a.queue_offset),
                          t, kTileRefs);
    for (int u = 0; u <= dy_end - dy_begin; ++u) {
      const int dy = centre_out(u, dy_begin, dy_end, min(max(0, dy_begin), dy_end));
      const int* sq_row = a.sq + static_cast<std::size_t>(ry + dy) * a.sq_pitch + rx;
      const int row_index = (dy + R) * a.side + R;  // + dx: the scan index
      for (int ub = 0; ub < blocks; ++ub) {
        const bool block_in = !kQueued || ub < dx_blocks;
        const int dxb = dx_first + kDxBlock * centre_out(min(ub, dx_blocks - 1), 0, dx_blocks - 1, dx_centre);
        unsigned acc[kDxBlock];
        dot_block8(copies, rw, rx + dxb - area.x0, ry + dy - area.y0, ref, acc);
        // The block's keys (the sentinel for the candidates outside the window
        // and for the reference itself), and which beat the list's last entry.
        const Key worst = best.worst();
        Key keys[kDxBlock];
        unsigned enter = 0;
#pragma unroll
        for (int q = 0; q < kDxBlock; ++q) {
          const int dx = dxb + q;
          const bool in = block_in && dx >= dx_lo && dx <= dx_hi && (dx != 0 || dy != 0);
          const unsigned d = ref_sq + static_cast<unsigned>(in ? __ldg(sq_row + dx) : 0) - 2u * acc[q];  // exact, >= 0
          keys[q] = in ? (static_cast<Key>(min(d, clamp)) << bits) | static_cast<unsigned>(row_index + dx) : sentinel;
          if constexpr (kQueued) {
            if (keys[q] < worst) queue.push(keys[q]);
          } else {
            enter |= static_cast<unsigned>(keys[q] < worst) << q;
          }
        }
        if constexpr (kQueued) {
          // The queues go into the lists when one of the warp's could not take
          // another block.
          if (__any_sync(0xffffffffu, queue.size > kMatchQueue - kDxBlock)) queue.drain_into(best, sentinel);
        } else {
          // The entering keys one after the other: the warp takes as many turns as
          // its busiest lane (any order gives the same list; a key that no longer
          // beats the last entry when its turn comes leaves the list as it is).
          while (enter) {
            const int q = __ffs(enter) - 1;
            enter &= enter - 1;
            Key key = keys[0];
#pragma unroll
            for (int p = 1; p < kDxBlock; ++p) key = q == p ? keys[p] : key;
            best.insert(key);
          }
        }
      }
    }
    if constexpr (kQueued) queue.drain_into(best, sentinel);
  }
  if constexpr (S > 1) {
    // The runs' lists through shared memory (the area is no longer read):
    // [run z - 1][entry][reference].
    Key* run_keys = reinterpret_cast<Key*>(smem_words);
    __syncthreads();
    if (threadIdx.z > 0) {
#pragma unroll
      for (int e = 0; e < K - 1; ++e) run_keys[((threadIdx.z - 1) * (K - 1) + e) * kRefs + r] = best.k[e];
    }
    __syncthreads();
    if (threadIdx.z > 0) return;
#pragma unroll 1
    for (int z = 0; z < S - 1; ++z) {
#pragma unroll 1
      for (int e = 0; e < K - 1; ++e) {
        const Key key = run_keys[(z * (K - 1) + e) * kRefs + r];
        if (!(key < best.worst())) break;  // a run's list is sorted: no later entry enters either
        best.insert(key);
      }
    }
  }
  if (!valid) return;
  const int count = best.count(sentinel);
  const int n = floor_pow2(min(1 + count, K));
  const std::size_t slot = static_cast<std::size_t>(j - a.first_tile_row * kTileY) * a.grid.nx + i;
  std::uint16_t* out = a.lists + slot * K;
  const Key index_mask = (static_cast<Key>(1) << bits) - 1;
  out[0] = static_cast<std::uint16_t>(R * a.side + R);
#pragma unroll
  for (int k = 1; k < K; ++k)
    if (k < n) out[k] = static_cast<std::uint16_t>(best.k[k - 1] & index_mask);
  a.counts[slot] = static_cast<std::uint8_t>(n);
}

// Bits of a candidate's scan index in block_match8_kernel's keys: enough for side^2
// indices.
int match8_key_bits(int side) {
  int bits = 0;
  while ((1 << bits) < side * side) ++bits;
  return bits;
}

// Whether the keys fit in 32 bits: every admissible distance (at most tau) and the
// sentinel (tau + 1) shifted by the index bits (match8_key_bits). Else the kernel keeps 64-bit keys
// (BM3D.m's 'vn' tau with a window above 45) with one thread per reference.
bool match8_keys_fit_32(int tau, int key_bits) {
  return (static_cast<unsigned long long>(tau) + 1ull) << key_bits <= 0xffffffffull;
}

// 32-bit words a row of each shifted copy of the widest area (stage_area8: at
// least (w + 3) / 4 + 3).
int match8_row_words(int step, int radius) { return (TileArea::max_w(step, radius) + 3) / 4 + 3; }

// Shared memory of block_match8_kernel<K, S, Key>: the area's four copies, then,
// for lists of 31 only (match8_queued), the threads' queues (MatchQueue) from byte
// match8_queue_offset; the runs' lists reuse it from the start once the scan is
// done (the 64-bit keys run with S = 1).
int match8_queue_offset(int S, int step, int radius) {
  const int area_h = TileArea::max_h(step, radius, kTileY / S);
  const int copies = static_cast<int>(sizeof(unsigned)) * 4 * match8_row_words(step, radius) * area_h;
  return (copies + 7) / 8 * 8;
}
std::size_t match8_shared_bytes(int K, int S, int step, int radius, bool wide) {
  const std::size_t key_bytes = wide ? sizeof(unsigned long long) : sizeof(unsigned);
  const std::size_t queues =
      match8_queue_offset(S, step, radius) + (match8_queued(K) ? key_bytes * kMatchQueue * kTileRefs : 0);
  const std::size_t runs = key_bytes * (S - 1) * (K - 1) * kTileX * (kTileY / S);
  return std::max(queues, runs);
}

// Calls f(block_match8_kernel<K, S, Key>) for run-time K (8, 16, 32) and S (1, 2,
// 4); wide: 64-bit keys, S = 1 only.
template <typename F>
void with_match8_kernel(int K, int S, bool wide, F&& f) {
  with_group_size(K, [&](auto k) {
    constexpr int kK = decltype(k)::value;
    if (wide)
      f(block_match8_kernel<kK, 1, unsigned long long>);
    else if (S == 4)
      f(block_match8_kernel<kK, 4, unsigned>);
    else if (S == 2)
      f(block_match8_kernel<kK, 2, unsigned>);
    else
      f(block_match8_kernel<kK, 1, unsigned>);
  });
}

// Threads per reference for a batch of `tiles` tiles: the largest S of 2 and 4
// whose blocks all run at once on this GPU (cudaOccupancy...: resident blocks an
// SM x SMs), else the smallest S whose shared memory fits (1, but for lists of 31
// at wide windows and steps on GPUs of 64 or 99 KB a block: the queues take 12 KB
// more, a block of S threads a reference stages fewer rows). A grid of one thread
// per reference that leaves the SMs with a few warps each (draft at 1080p: 351
// tiles, 2 or 3 blocks an SM) is latency-bound; more threads per reference spread
// it without a second wave of blocks. Rapid's 648 tiles already fill the GPU
// (measured: it is faster with S = 1; docs/PERFORMANCE.md).
int auto_match8_split(int K, int tiles, int step, int radius, int shared_limit) {
  int device = 0, sms = 0;
  CDN_CUDA_CHECK(cudaGetDevice(&device));
  CDN_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  auto fits = [&](int S) {
    return match8_shared_bytes(K, S, step, radius, false) <= static_cast<std::size_t>(shared_limit);
  };
  int split = fits(1) ? 1 : fits(2) ? 2 : fits(4) ? 4 : 1;  // none: run() refuses the geometry
  for (int S : {2, 4}) {
    if (S <= split || !fits(S)) continue;
    const std::size_t shared = match8_shared_bytes(K, S, step, radius, false);
    int per_sm = 0;
    with_match8_kernel(K, S, false, [&](auto kernel) {
      allow_dynamic_shared(kernel, shared);
      CDN_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kTileRefs, shared));
    });
    if (static_cast<long long>(tiles) * S <= static_cast<long long>(per_sm) * sms) split = S;
  }
  return split;
}

// ---------------------------------------------------------------- filtering

// The patch at (x, y) of p.
__device__ __forceinline__ void load_patch(const DevPlane& p, int x, int y, float (&v)[kPatchArea]) {
#pragma unroll
  for (int q = 0; q < kPatchArea; ++q)
    v[q] = __ldg(p.data + static_cast<std::size_t>(y + q / kPatch) * p.pitch + x + q % kPatch);
}

struct FilterArgs {
  DevPlane noisy, basic;  // basic: the Wiener phase only
  RefGrid grid;
  int radius, side;
  float sigma;
  float lambda3d;
  Transform2d t2d;
  Transform1d t1d;
  int first_tile_row;
  const std::uint16_t* lists;
  const std::uint8_t* counts;
  Accumulators acc;  // pitch noisy.pitch
  float vmax;        // filtered samples are clamped to +-vmax (bm3d_profile.h)
  float num_scale;    // 2^fixed_point_bits(depth)
  int window_pixels;  // filter_window_kernel: the largest window (WindowArea::max_pixels)

  // BM3D's groups for filter_kernel (bm3d_filter_lanes.cuh), the aggregation
  // straight into the frame's fixed-point accumulators with 64-bit atomics (the
  // first kernel, Bm3dCuda::set_reference_kernels): a block takes a tile of
  // references (kFilterWarps warps), a group's patches are scan indices around
  // its reference in one frame, read from the padded float planes.
  static constexpr int kWarps = kFilterWarps, kRefs = kTileRefs, kMinBlocks = 2;
  template <int K>
  __device__ LanePatch patch(int g, int lane_in_group) const {
    LanePatch m;
    const int tile_j = first_tile_row + blockIdx.y;
    const int i = blockIdx.x * kTileX + g % kTileX, j = tile_j * kTileY + g / kTileX;
    const bool valid = i < grid.nx && j < grid.ny;
    const std::size_t ref = static_cast<std::size_t>(j - first_tile_row * kTileY) * grid.nx + i;
    m.n = valid ? counts[ref] : 1;
    m.mine = valid && lane_in_group < m.n;
    if (m.mine) {
      const int idx = lists[ref * K + lane_in_group];
      m.x = grid.x(i) + idx % side - radius;
      m.y = grid.y(j) + idx / side - radius;
    }
    return m;
  }
  __device__ void load(const LanePatch& m, bool basic_patch, float (&v)[kPatchArea]) const {
    load_patch(basic_patch ? basic : noisy, m.x, m.y, v);
  }
  __device__ void aggregate(const LanePatch& m, int, float (&v)[kPatchArea], float weight) const {
    if (!m.mine) return;
    inverse_2d(v, t2d);
    unsigned long long* row = acc.num + static_cast<std::size_t>(m.y) * noisy.pitch + m.x;
#pragma unroll
    for (int q = 0; q < kPatchArea; ++q) {
      const float wk = weight * c_kaiser[q];
      atomicAdd(row + (q / kPatch) * noisy.pitch + q % kPatch, to_fixed(wk * fminf(fmaxf(v[q], -vmax), vmax), num_scale));
    }
    atomicAdd(acc.weights + static_cast<std::size_t>(m.y) * noisy.pitch + m.x, to_fixed(weight, 4294967296.0f));
  }
};

// ---------------------------------------------------------------- filtering, aggregation in shared memory

constexpr int kWinTileX = 8;  // references along x of a window-filter block (x kTileY rows)
constexpr int kWinWarps = 4;
constexpr int kWinTileRefs = kWinTileX * kTileY;

// The pixels a window-filter block's patches can cover: its references' search
// windows plus a patch, clipped to the plane.
struct WindowArea {
  int x0, y0, w, h;
  __host__ __device__ WindowArea(const RefGrid& g, int radius, int block_i, int tile_j) {
    const int i0 = block_i * kWinTileX, j0 = tile_j * kTileY;
    const int i1 = std::min(i0 + kWinTileX, g.nx) - 1, j1 = std::min(j0 + kTileY, g.ny) - 1;
    x0 = std::max(0, g.x(i0) - radius);
    y0 = std::max(0, g.y(j0) - radius);
    w = std::min(g.last_x, g.x(i1) + radius) + kPatch - x0;
    h = std::min(g.last_y, g.y(j1) + radius) + kPatch - y0;
  }
  static __host__ int max_pixels(int step, int radius) {
    return ((kWinTileX - 1) * step + 2 * radius + kPatch) * ((kTileY - 1) * step + 2 * radius + kPatch);
  }
};

// Adds the 64-bit two's-complement word c to the pair (hi, lo) of 32-bit shared
// words: lo by a 32-bit atomic that returns the old value, which tells whether
// the addition carried; hi by a second atomic only when c's high word plus the
// carry is not 0 (a small non-negative contribution needs one atomic). Integer
// additions in any order give the same pair: hi * 2^32 + lo is exactly the 64-bit
// sum, modulo 2^64 like the frame's accumulators.
__device__ __forceinline__ void add_split(unsigned* lo, unsigned* hi, int k, unsigned long long c) {
  const unsigned cl = static_cast<unsigned>(c), ch = static_cast<unsigned>(c >> 32);
  const unsigned old = atomicAdd(lo + k, cl);
  const unsigned h = ch + (old + cl < old ? 1u : 0u);
  if (h) atomicAdd(hi + k, h);
}

// filter_kernel with the aggregation of a block in shared memory: a block filters
// the groups of kWinTileX x kTileY references (kWinWarps warps, K lanes a group as
// filter_kernel), adds each filtered patch's fixed-point contributions to the
// block's window of (hi, lo) word pairs with 32-bit shared atomics, then adds the
// window's non-zero sums to the frame's accumulators with one 64-bit atomic a
// pixel. The contributions are filter_kernel's, and integer sums do not depend on
// their order or grouping, so the output is the same, bit for bit; the frame
// sees about 25 times fewer global atomics. The group weights go to the frame's
// per-origin sums directly (one atomic a patch). Both phases transform across the
// group in registers after a transpose through a slab of shared memory a warp
// (bm3d_group_columns.cuh), with the same floats as filter_kernel's shuffles. The
// Wiener phase holds the Wiener coefficients of its columns in registers, so it
// runs with up to 168 registers a thread (3 blocks an SM, where the shared memory
// of the window and the slabs leaves it at the reference geometry). The 2D
// transform is a template argument (each kernel holds the code it runs).
template <bool kWiener, int K, Transform2d kT2d>
__global__ void __launch_bounds__(kWinWarps * 32, kWiener ? 3 : 4) filter_window_kernel(FilterArgs a) {
  extern __shared__ unsigned smem_win[];
  const int block_i = blockIdx.x, tile_j = a.first_tile_row + blockIdx.y;
  const WindowArea win(a.grid, a.radius, block_i, tile_j);
  const int npix = win.w * win.h;
  unsigned* lo = smem_win;
  unsigned* hi = lo + a.window_pixels;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  float* slab = reinterpret_cast<float*>(smem_win + 2 * a.window_pixels) + warp * kSlabFloats;
  // Thread mapping: all threads clear the window.
  for (int k = t; k < npix; k += kWinWarps * 32) lo[k] = hi[k] = 0u;
  __syncthreads();

  constexpr int kGroupsPerWarp = 32 / K;
  constexpr int kColumns = 2 * kGroupsPerWarp;  // a lane's columns of the slab
  const int lane_in_group = lane % K, slot = lane / K;
  // From here: K lanes per group, lane k of a group holding patch k (filter_kernel)
  // through the 2D transforms; across the group, lane l holds columns of the slab.
  for (int g0 = warp * kGroupsPerWarp; g0 < kWinTileRefs; g0 += kWinWarps * kGroupsPerWarp) {
    const int g = g0 + slot;
    const int i = block_i * kWinTileX + g % kWinTileX, j = tile_j * kTileY + g / kWinTileX;
    const bool valid = i < a.grid.nx && j < a.grid.ny;
    const std::size_t ref = static_cast<std::size_t>(j - a.first_tile_row * kTileY) * a.grid.nx + i;
    const int n = valid ? a.counts[ref] : 1;
    const bool mine = valid && lane_in_group < n;
    int px = 0, py = 0;
    if (mine) {
      const int idx = a.lists[ref * K + lane_in_group];
      px = a.grid.x(i) + idx % a.side - a.radius;
      py = a.grid.y(j) + idx / a.side - a.radius;
    }
    int column_n[kGroupsPerWarp];  // n of each group of the warp
#pragma unroll
    for (int s = 0; s < kGroupsPerWarp; ++s) column_n[s] = __shfl_sync(0xffffffffu, n, s * K);
    float v[kPatchArea];
    float weight;
    if (!kWiener) {
      // Hard thresholding: each column forward, thresholded, counted and back.
      load_transformed(mine, kT2d, v, [&](float (&p)[kPatchArea]) { load_patch(a.noisy, px, py, p); });
      share_row(slab, lane, v);
      const float threshold = a.lambda3d * a.sigma;
      float kept[kGroupsPerWarp] = {};  // per group: exact small integers, in any order
#pragma unroll
      for (int c = 0; c < kColumns; ++c) {
        float x[K];
        load_column<K>(slab, lane, c, x);
        transform_column<K>(x, column_n[c / 2], a.t1d, false);
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (fabsf(x[k]) <= threshold)
            x[k] = 0.f;
          else
            kept[c / 2] += 1.f;
        }
        transform_column<K>(x, column_n[c / 2], a.t1d, true);
        store_column<K>(slab, lane, c, x);  // the column this lane read: no other lane's
      }
      float mine_kept = 0.f;  // this lane's group's count, over the warp (every lane holds columns of it)
#pragma unroll
      for (int s = 0; s < kGroupsPerWarp; ++s) {
        const float sum = group_sum<32>(kept[s], 32);
        if (s == slot) mine_kept = sum;
      }
      weight = mine_kept > 0.f ? 1.0f / mine_kept : 1.0f;
      __syncwarp();
      load_row(slab, lane, v);
    } else {
      // The basic group's Wiener coefficients, then the noisy group filtered by
      // them. (One site of the forward 2D transform for both groups, in a loop of
      // two passes, was slower on the H200: balanced 7.57 to 7.62 against 7.26 to
      // 7.28 ms a 1080p frame in one run.)
      load_transformed(mine, kT2d, v, [&](float (&p)[kPatchArea]) { load_patch(a.basic, px, py, p); });
      share_row(slab, lane, v);
      const float s2 = a.sigma * a.sigma;
      float w[kColumns][K];
#pragma unroll
      for (int c = 0; c < kColumns; ++c) {
        load_column<K>(slab, lane, c, w[c]);
        transform_column<K>(w[c], column_n[c / 2], a.t1d, false);
#pragma unroll
        for (int k = 0; k < K; ++k) {
          const float b2 = w[c][k] * w[c][k];
          w[c][k] = b2 / (b2 + s2);
        }
      }
      __syncwarp();  // every column is read before any is written
#pragma unroll
      for (int c = 0; c < kColumns; ++c) store_column<K>(slab, lane, c, w[c]);
      __syncwarp();
      // The patch's sum of squared coefficients in filter_kernel's order (its
      // row, coefficient by coefficient), then over the group: the same weight.
      float norm2 = 0.f;
#pragma unroll
      for (int q = 0; q < kPatchArea; ++q) {
        const float wq = slab[lane * kSlabPitch + q];
        norm2 = fmaf(wq, wq, norm2);
      }
      if (!mine) norm2 = 0.f;
      norm2 = group_sum<K>(norm2, n);
      weight = norm2 > 0.f ? fminf(1.0f / norm2, kMaxWeight) : 1.0f;
      load_transformed(mine, kT2d, v, [&](float (&p)[kPatchArea]) { load_patch(a.noisy, px, py, p); });
      share_row(slab, lane, v);
#pragma unroll
      for (int c = 0; c < kColumns; ++c) {
        float x[K];
        load_column<K>(slab, lane, c, x);
        transform_column<K>(x, column_n[c / 2], a.t1d, false);
#pragma unroll
        for (int k = 0; k < K; ++k) x[k] *= w[c][k];
        transform_column<K>(x, column_n[c / 2], a.t1d, true);
        store_column<K>(slab, lane, c, x);  // the column this lane read: no other lane's
      }
      __syncwarp();
      load_row(slab, lane, v);
    }
    if (!mine) continue;
    inverse_2d(v, kT2d);
    const int base = (py - win.y0) * win.w + px - win.x0;
#pragma unroll
    for (int q = 0; q < kPatchArea; ++q) {
      const float wk = weight * c_kaiser[q];
      add_split(lo, hi, base + (q / kPatch) * win.w + q % kPatch,
                to_fixed(wk * fminf(fmaxf(v[q], -a.vmax), a.vmax), a.num_scale));
    }
    atomicAdd(a.acc.weights + static_cast<std::size_t>(py) * a.noisy.pitch + px, to_fixed(weight, 4294967296.0f));
  }
  __syncthreads();
  // Thread mapping: all threads add the window to the frame, row by row.
  for (int k = t; k < npix; k += kWinWarps * 32) {
    const unsigned long long sum = (static_cast<unsigned long long>(hi[k]) << 32) | lo[k];
    if (sum) atomicAdd(a.acc.num + static_cast<std::size_t>(win.y0 + k / win.w) * a.noisy.pitch + win.x0 + k % win.w, sum);
  }
}

// Tile rows per batch: at most max_refs references (at least one row).
int batch_tile_rows(const RefGrid& g, int max_refs) {
  const int tiles_x = (g.nx + kTileX - 1) / kTileX, tiles_y = (g.ny + kTileY - 1) / kTileY;
  return std::max(1, std::min(tiles_y, max_refs / (tiles_x * kTileRefs)));
}

}  // namespace

int Bm3dCuda::default_batch_references() { return kBatchTileRowsMaxRefs; }

void Bm3dCuda::set_match_split(int threads_per_reference) {
  if (threads_per_reference != 0 && threads_per_reference != 1 && threads_per_reference != 2 &&
      threads_per_reference != 4)
    throw InvalidArgument("bm3d: the block matching's threads per reference are 1, 2 or 4 (0: by the grid), not " +
                          std::to_string(threads_per_reference));
  match_split_ = threads_per_reference;
}

Bm3dCuda::~Bm3dCuda() { free_slots(buffers_); }

void* Bm3dCuda::reserve(int slot, std::size_t bytes) { return reserve_slot(buffers_, sizes_, bytes_, slot, bytes); }

void Bm3dCuda::run(const std::vector<PlaneView>& in, const std::vector<PlaneView>& out, int filtered,
                   const Bm3dSettings& params, const std::vector<double>& sigma, void* stream_ptr,
                   const std::atomic<bool>* cancel) {
  if (filtered <= 0) return;
  if (static_cast<int>(sigma.size()) < filtered || static_cast<int>(in.size()) < filtered ||
      static_cast<int>(out.size()) < filtered)
    throw InvalidArgument("bm3d: a plane and a sigma for every filtered component are needed");
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  enum Stage { kMatch, kFilter, kOther };
  StageTimer<3> timer(timing_, stream);
  timer.mark(kOther);

  static const auto kaiser = kaiser_window();  // static: the asynchronous copies read them later
  CDN_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_kaiser, kaiser.data(), sizeof(float) * kPatchArea, 0,
                                         cudaMemcpyHostToDevice, stream));
  CDN_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_bior_forward, bior15_forward_matrix().data(), sizeof(float) * kPatchArea, 0,
                                         cudaMemcpyHostToDevice, stream));
  static const auto kaiser1d = [] {
    std::array<double, kPatch> k{};
    for (int n = 0; n < kPatch; ++n) k[n] = kaiser8(n, kKaiserBeta);
    return k;
  }();
  CDN_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_kaiser1d, kaiser1d.data(), sizeof(double) * kPatch, 0,
                                         cudaMemcpyHostToDevice, stream));
  CDN_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_bior_inverse, bior15_inverse_matrix().data(), sizeof(float) * kPatchArea, 0,
                                         cudaMemcpyHostToDevice, stream));

  // Planes: noisy and basic estimate per component, one pair of accumulators per
  // component, the guide of the chroma size; slots of reserve().
  auto make_plane = [&](int slot, int vw, int vh) {
    return reserve_plane([this](int k, std::size_t n) { return reserve(k, n); }, slot, vw, vh);
  };
  std::vector<DevPlane> noisy(filtered), basic(filtered);
  std::vector<Accumulators> acc(filtered);
  for (int c = 0; c < filtered; ++c) {
    noisy[c] = make_plane(4 * c, in[c].width, in[c].height);
    basic[c] = make_plane(4 * c + 1, in[c].width, in[c].height);
    auto* sums = static_cast<unsigned long long*>(
        reserve(4 * c + 2, 2 * sizeof(unsigned long long) * noisy[c].pitch * noisy[c].height));
    acc[c] = {sums, sums + static_cast<std::size_t>(noisy[c].pitch) * noisy[c].height};
    load_plane_kernel<<<plane_grid(noisy[c].width, noisy[c].height), dim3(32, 8), 0, stream>>>(in[c], noisy[c]);
    CDN_CHECK_LAUNCH("bm3d load_plane_kernel");
  }
  const int depth = in[0].bit_depth;
  const double sigma8 = profile_sigma8(sigma, filtered, depth);
  const int shared_limit = shared_limit_ > 0 ? std::min(shared_limit_, max_shared_optin()) : max_shared_optin();
  // Group lists of one batch, sized for the largest grid (luma's) and group (Wiener's).
  const int phases = profile_phases(params);
  std::size_t list_refs = 0;  // the largest batch of either phase (luma's grid is the largest)
  for (int phase = 0; phase < phases; ++phase) {
    const RefGrid g(noisy[0].width, noisy[0].height, phase_params(params, phase == 1, depth, sigma8).step);
    list_refs = std::max(list_refs, static_cast<std::size_t>(batch_tile_rows(g, batch_refs_)) * kTileY * g.nx);
  }
  auto* lists = static_cast<std::uint16_t*>(reserve(4 * filtered + 2, list_refs * kMaxGroup * sizeof(std::uint16_t)));
  auto* counts = static_cast<std::uint8_t*>(reserve(4 * filtered + 3, list_refs));

  const std::vector<std::vector<int>> by_size = components_by_size(in, sigma, filtered);

  for (int phase = 0; phase < phases; ++phase) {
    const bool wiener = phase == 1;
    const PhaseParams pp = phase_params(params, wiener, depth, sigma8);
    const int K = pp.max_group;
    for (std::size_t gi = 0; gi < by_size.size(); ++gi) {
      const std::vector<int>& comps = by_size[gi];
      const DevPlane& luma = wiener && sigma[0] > 0 ? basic[0] : noisy[0];
      DevPlane guide = luma;
      if (in[comps[0]].width != in[0].width || in[comps[0]].height != in[0].height) {
        guide = make_plane(4 * filtered + static_cast<int>(gi), in[comps[0]].width, in[comps[0]].height);
        resample_guide_kernel<<<plane_grid(guide.width, guide.height), dim3(32, 8), 0, stream>>>(luma, guide);
        CDN_CHECK_LAUNCH("bm3d resample_guide_kernel");
      }
      // match8: the guide in bytes with its per-origin squared sums for
      // block_match8_kernel (or, with the reference kernels, in float for
      // block_match_kernel: the same distances).
      BytePlane guide8;
      int* squares = nullptr;
      const bool use_match8 = pp.match8 && !reference_kernels_;
      if (pp.match8 && reference_kernels_) {
        DevPlane q = make_plane(4 * filtered + 4 + static_cast<int>(gi), guide.valid_width, guide.valid_height);
        quantize_guide_kernel<<<plane_grid(q.width, q.height), dim3(32, 8), 0, stream>>>(
            guide, q, static_cast<float>(1 << (depth - 8)));
        CDN_CHECK_LAUNCH("bm3d quantize_guide_kernel");
        guide = q;
      } else if (use_match8) {
        guide8.width = guide.width;
        guide8.height = guide.height;
        guide8.pitch = (guide.width + 15) / 16 * 16;
        guide8.data = static_cast<unsigned char*>(
            reserve(4 * filtered + 6 + static_cast<int>(gi), static_cast<std::size_t>(guide8.pitch) * guide8.height));
        squares = static_cast<int*>(reserve(4 * filtered + 8 + static_cast<int>(gi),
                                            sizeof(int) * static_cast<std::size_t>(guide.pitch) * guide.height));
        quantize_guide8_kernel<<<plane_grid(guide.width, guide.height), dim3(32, 8), 0, stream>>>(
            guide, guide8, static_cast<float>(1 << (depth - 8)));
        CDN_CHECK_LAUNCH("bm3d quantize_guide8_kernel");
        box_squares_kernel<<<plane_grid(guide.width, guide.height), dim3(kBoxX, kBoxY), 0, stream>>>(guide8, squares,
                                                                                               guide.pitch);
        CDN_CHECK_LAUNCH("bm3d box_squares_kernel");
      }
      const RefGrid grid(guide.width, guide.height, pp.step);
      for (int c : comps)
        CDN_CUDA_CHECK(
            cudaMemsetAsync(acc[c].num, 0, 2 * sizeof(unsigned long long) * noisy[c].pitch * noisy[c].height, stream));
      const int tiles_x = (grid.nx + kTileX - 1) / kTileX, tiles_y = (grid.ny + kTileY - 1) / kTileY;
      const int batch_rows = batch_tile_rows(grid, batch_refs_);

      const int area_w = TileArea::max_w(pp.step, pp.radius), area_h = TileArea::max_h(pp.step, pp.radius);
      const std::size_t match_shared = sizeof(float) * (area_w + kDxBlock - 1) * area_h +
                                       (sizeof(float) + sizeof(std::uint16_t)) * (K - 1) * kTileRefs;
      if (!use_match8 && match_shared > static_cast<std::size_t>(shared_limit))
        throw InvalidArgument("bm3d: bm3d-window and bm3d-step need " + std::to_string(match_shared) +
                              " bytes of shared memory, more than this GPU's " + std::to_string(shared_limit));
      const std::size_t filter_shared =
          reference_kernels_
              ? (wiener ? sizeof(float) * kPatchArea * 32 * kFilterWarps : 0)
              : 2 * sizeof(unsigned) * WindowArea::max_pixels(pp.step, pp.radius) +
                    sizeof(float) * kSlabFloats * kWinWarps;
      // Every profile's Wiener phase uses the DCT (bm3d_profile.h): the window filter
      // is built for that combination only (filter_kernel takes either).
      if (wiener && pp.t2d != Transform2d::Dct && !reference_kernels_)
        throw Error("bm3d: no Wiener window filter for this 2D transform");
      if (filter_shared > static_cast<std::size_t>(shared_limit))
        throw InvalidArgument("bm3d: bm3d-window and bm3d-step need " + std::to_string(filter_shared) +
                              " bytes of shared memory for the filter, more than this GPU's " +
                              std::to_string(shared_limit));
      Match8Args m8;
      std::size_t match8_shared = 0;
      int match_split = 1;
      bool match8_wide = false;  // 64-bit keys
      if (use_match8) {
        m8.guide = guide8;
        m8.sq = squares;
        m8.sq_pitch = guide.pitch;
        m8.grid = grid;
        m8.radius = pp.radius;
        m8.side = pp.side();
        m8.tau = static_cast<int>(std::floor(pp.tau_ssd));
        m8.row_words = match8_row_words(pp.step, pp.radius);
        m8.key_bits = match8_key_bits(pp.side());
        m8.lists = lists;
        m8.counts = counts;
        match8_wide = !match8_keys_fit_32(m8.tau, m8.key_bits);
        const int full_tiles = tiles_x * std::min(batch_rows, tiles_y);
        match_split = match8_wide ? 1
                      : match_split_ > 0
                          ? match_split_
                          : auto_match8_split(K, full_tiles, pp.step, pp.radius, shared_limit);
        match8_shared = match8_shared_bytes(K, match_split, pp.step, pp.radius, match8_wide);
        m8.queue_offset = match8_queue_offset(match_split, pp.step, pp.radius);
        if (match8_shared > static_cast<std::size_t>(shared_limit))
          throw InvalidArgument("bm3d: bm3d-window and bm3d-step need " + std::to_string(match8_shared) +
                                " bytes of shared memory, more than this GPU's " + std::to_string(shared_limit));
      }

      MatchArgs ma;
      ma.guide = guide;
      ma.grid = grid;
      ma.radius = pp.radius;
      ma.side = pp.side();
      ma.tau = pp.tau_ssd;
      ma.lists = lists;
      ma.counts = counts;
      FilterArgs fa;
      fa.grid = grid;
      fa.radius = pp.radius;
      fa.side = pp.side();
      fa.lists = lists;
      fa.counts = counts;
      fa.lambda3d = pp.lambda3d;
      fa.t2d = pp.t2d;
      fa.t1d = pp.t1d;
      fa.vmax = static_cast<float>(1 << (depth + 1));
      fa.num_scale = std::ldexp(1.0f, fixed_point_bits(depth));
      fa.window_pixels = WindowArea::max_pixels(pp.step, pp.radius);
      const dim3 window_blocks((grid.nx + kWinTileX - 1) / kWinTileX, 1);
      for (int row0 = 0; row0 < tiles_y; row0 += batch_rows) {
        if (cancel && cancel->load()) throw Cancelled();
        const dim3 tiles(tiles_x, std::min(batch_rows, tiles_y - row0));
        ma.first_tile_row = row0;
        m8.first_tile_row = row0;
        timer.mark(kOther);
        if (use_match8) {
          const int S = match_split;
          auto launch = [&](auto kernel) {
            allow_dynamic_shared(kernel, match8_shared);
            kernel<<<dim3(tiles.x, tiles.y * S), dim3(kTileX, kTileY / S, S), match8_shared, stream>>>(m8);
          };
          with_match8_kernel(K, S, match8_wide, launch);
        } else {
          with_group_size(K, [&](auto k) {
            constexpr int kK = decltype(k)::value;
            allow_dynamic_shared(block_match_kernel<kK>, match_shared);
            block_match_kernel<kK><<<tiles, dim3(kTileX, kTileY), match_shared, stream>>>(ma);
          });
        }
        CDN_CHECK_LAUNCH("bm3d block_match_kernel");
        timer.mark(kMatch);
        for (int c : comps) {
          fa.noisy = noisy[c];
          fa.basic = basic[c];
          fa.sigma = static_cast<float>(sigma[c]);
          fa.first_tile_row = row0;
          fa.acc = acc[c];
          const std::size_t smem = filter_shared;
          if (!reference_kernels_) {
            const dim3 blocks(window_blocks.x, tiles.y);
            auto launch = [&](auto kernel) {
              allow_dynamic_shared(kernel, smem);
              kernel<<<blocks, kWinWarps * 32, smem, stream>>>(fa);
            };
            constexpr Transform2d kDct = Transform2d::Dct, kBior = Transform2d::Bior15;
            const bool bior = pp.t2d == kBior;
            with_group_size(K, [&](auto k) {
              constexpr int kK = decltype(k)::value;
              if (wiener)
                launch(filter_window_kernel<true, kK, kDct>);  // the DCT only (checked above)
              else if (bior)
                launch(filter_window_kernel<false, kK, kBior>);
              else
                launch(filter_window_kernel<false, kK, kDct>);
            });
            CDN_CHECK_LAUNCH("bm3d filter_window_kernel");
            continue;
          }
          auto launch = [&](auto kernel) {
            allow_dynamic_shared(kernel, smem);
            kernel<<<tiles, kFilterWarps * 32, smem, stream>>>(fa);
          };
          with_group_size(K, [&](auto k) {
            constexpr int kK = decltype(k)::value;
            if (wiener)
              launch(filter_kernel<true, kK, FilterArgs>);
            else
              launch(filter_kernel<false, kK, FilterArgs>);
          });
          CDN_CHECK_LAUNCH("bm3d filter_kernel");
        }
        timer.mark(kFilter);
      }
      const bool last_phase = phase + 1 == phases;
      for (int c : comps) {
        // Phase 1 keeps the basic estimate in float; the last phase writes the output.
        DevPlane estimate = wiener ? DevPlane{} : basic[c];
        estimate.width = noisy[c].width;
        estimate.height = noisy[c].height;
        divide_kernel<<<plane_grid(noisy[c].width, noisy[c].height), dim3(kDivideX, kDivideY), 0, stream>>>(
            acc[c], nullptr, noisy[c].pitch, estimate, out[c], last_phase ? 1 : 0, fixed_point_bits(depth));
        CDN_CHECK_LAUNCH("bm3d divide_kernel");
      }
    }
  }
  // Components with sigma 0 are copied as they are (through the same rounding path).
  for (int c = 0; c < filtered; ++c) {
    if (sigma[c] > 0) continue;
    DevPlane none;
    none.width = noisy[c].width;
    none.height = noisy[c].height;
    divide_kernel<<<plane_grid(noisy[c].width, noisy[c].height), dim3(kDivideX, kDivideY), 0, stream>>>(
        Accumulators{}, noisy[c].data, noisy[c].pitch, none, out[c], 1, 0);
    CDN_CHECK_LAUNCH("bm3d divide_kernel (copy)");
  }
  timer.mark(kOther);
  const auto ms = timer.result();
  last_ = Timing{ms[kMatch], ms[kFilter], ms[kOther]};
}

}  // namespace cdn
