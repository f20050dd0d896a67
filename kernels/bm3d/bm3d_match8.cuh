// bm3d_match8.cuh: the device pieces of BM3D's block matching on 8-bit guides
// (the match8 profiles, bm3d_profile.h), for bm3d_cuda.cu's block_match8_kernel
// and for any kernel that matches 8x8 patches of 8-bit planes the same way (a
// temporal variant would stage one area per frame and keep one list across them;
// its keys would need the frame in them too, since a scan index repeats from one
// frame's window to the next and BestKeys relies on unique keys).
//
// Distances: ||P - Q||^2 = |P|^2 + |Q|^2 - 2 P.Q in integers (exact), P.Q by
// __dp4a (four 8-bit products an instruction). An area of a plane is staged in
// shared memory as four copies shifted by 0..3 bytes and interleaved word by word
// ([row][word][copy]): the 4-byte word starting at any byte b of a row is word
// 4 (b / 4) + b % 4 of the row, and the 12 words a block of 8 candidates needs
// (byte offsets c..c+7, c a multiple of 4, each 8 bytes wide) are 12 consecutive
// words, three 128-bit loads. The best candidates are kept in registers as
// sorted keys (distance and scan index in one integer) and take a new entry by a
// fixed sequence of compares and selects.
#pragma once

#include <cstdint>

namespace cdn::bm3d {

// A plane of bytes (the guide rounded to 8-bit code values), row pitch in bytes.
struct BytePlane {
  unsigned char* data = nullptr;
  int width = 0, height = 0, pitch = 0;
  __device__ unsigned at(int x, int y) const { return data[static_cast<std::size_t>(y) * pitch + x]; }
};

// Stages the area (x0, y0, w x h) of `g` as the four interleaved shifted copies,
// row_words words a row (at least (w + 3) / 4 + 3; bytes past w are 0), with the
// `threads` threads of the block (t: this one's index). Ends with a block barrier.
__device__ inline void stage_area8(const BytePlane& g, int x0, int y0, int w, int h, int row_words,
                                   unsigned* copies, int t, int threads) {
  for (int k = t; k < row_words * h; k += threads) {
    const int y = k / row_words, x = 4 * (k % row_words);
    unsigned word = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b)
      if (x + b < w) word |= g.at(x0 + x + b, y0 + y) << (8 * b);
    copies[4 * k] = word;
  }
  __syncthreads();
  for (int k = t; k < row_words * h; k += threads) {
    const unsigned lo = copies[4 * k], hi = (k % row_words) + 1 < row_words ? copies[4 * (k + 1)] : 0u;
#pragma unroll
    for (int s = 1; s < 4; ++s) copies[4 * k + s] = __funnelshift_r(lo, hi, 8 * s);
  }
  __syncthreads();
}

// The 8x8 patch at area byte offset (ox, oy): two words a row into p; returns |P|^2.
__device__ inline unsigned load_patch8(const unsigned* copies, int row_words, int ox, int oy, unsigned (&p)[16]) {
  unsigned sq = 0;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const unsigned* w = copies + 4 * ((oy + r) * row_words + (ox >> 2)) + (ox & 3);
    p[2 * r] = w[0];
    p[2 * r + 1] = w[4];
    sq = __dp4a(p[2 * r], p[2 * r], sq);
    sq = __dp4a(p[2 * r + 1], p[2 * r + 1], sq);
  }
  return sq;
}

// P.Q for the 8 candidates at area byte offsets c..c+7 (c a multiple of 4) of
// rows oy..oy+7.
__device__ inline void dot_block8(const unsigned* copies, int row_words, int c, int oy, const unsigned (&p)[16],
                                  unsigned (&acc)[8]) {
  const uint4* rows = reinterpret_cast<const uint4*>(copies + 4 * (oy * row_words) + c);  // 16-byte aligned
#pragma unroll
  for (int q = 0; q < 8; ++q) acc[q] = 0u;
#pragma unroll
  for (int pj = 0; pj < 8; ++pj) {
    // Words q = 0..11: bytes c + q .. c + q + 3 of the row.
    const uint4 w0 = rows[pj * row_words], w1 = rows[pj * row_words + 1], w2 = rows[pj * row_words + 2];
    const unsigned w[12] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w, w2.x, w2.y, w2.z, w2.w};
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      acc[q] = __dp4a(p[2 * pj], w[q], acc[q]);
      acc[q] = __dp4a(p[2 * pj + 1], w[q + 4], acc[q]);
    }
  }
}

// The N best candidates so far as keys (distance << index_bits) | scan index:
// unique within a reference's window, so "smaller key" is "smaller distance, or
// the same distance and earlier in the scan order", the order of the reference
// implementation, and the N smallest keys are the same set whatever the order in
// which candidates arrive. Sorted ascending, in registers (N a compile-time
// constant); Key is 32-bit where (tau + 1) << index_bits fits (match8_key_bits),
// else 64-bit. Empty entries hold the sentinel (tau + 1) << index_bits, which no
// admissible candidate reaches, so one compare tests tau and the last entry.
template <int N, typename Key>
struct BestKeys {
  Key k[N];

  __device__ void clear(Key sentinel) {
#pragma unroll
    for (int e = 0; e < N; ++e) k[e] = sentinel;
  }
  __device__ Key worst() const { return k[N - 1]; }
  // Inserts `key` (a no-op unless key < worst()): entry e takes its predecessor
  // when that is larger than key, else the smaller of its own and key (all from
  // the old values: no loop-carried chain, three instructions an entry).
  __device__ void insert(Key key) {
#pragma unroll
    for (int e = N - 1; e > 0; --e) k[e] = k[e - 1] > key ? k[e - 1] : (key < k[e] ? key : k[e]);
    k[0] = key < k[0] ? key : k[0];
  }
  __device__ int count(Key sentinel) const {
    int n = 0;
#pragma unroll
    for (int e = 0; e < N; ++e) n += k[e] < sentinel;
    return n;
  }
};

}  // namespace cdn::bm3d
