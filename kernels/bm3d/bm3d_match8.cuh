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
// sorted keys (distance and scan index in one integer) and take a new entry, or a
// pair of them, by a fixed sequence of compares and selects; for lists of 31, the
// entering keys wait in a queue a thread in shared memory and go in by pairs.
#pragma once

#include <cstdint>

#include "bm3d/bm3d_best_keys.h"
#include "cuda/warp_reduce.cuh"

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

// The keys a thread found to beat its list's last entry and has not inserted yet,
// in shared memory ([entry][thread]: a warp's lanes touch consecutive words). A
// warp drains its lanes' queues together when one of them could not take another
// block of candidates, two keys a turn (BestKeys::insert_pair): as many turns as
// half its longest queue, where inserting each block's entering keys one by one
// takes as many as the block's busiest lane, block after block (on a 1080p frame
// at the reference geometry, a simulation counted about half the turns before
// pairing). A queued key that the list's last entry beats by the time it is
// inserted leaves the list as it is, so the list is the same whenever the queues
// are drained.
constexpr int kMatchQueue = 24;  // entries a thread's queue holds

// Whether block_match8_kernel queues the keys for lists of K - 1 entries. Measured
// on the H200 (docs/PERFORMANCE.md): at K = 32 the queues save more than their
// pushes cost (balanced's phase 2, 1.61 to 1.19 ms); at K = 8 and 16 an entry is
// cheap to insert, and the queues' 12 KB of shared memory a block cost occupancy
// (rapid's phase 1, 240 to 381 us: its grid no longer fits in one wave).
constexpr bool match8_queued(int K) { return K >= 32; }

template <typename Key>
struct MatchQueue {
  Key* mine;   // entry 0 of this thread's queue
  int stride;  // threads sharing the queues
  int size = 0;

  __device__ MatchQueue(Key* queues, int thread, int threads) : mine(queues + thread), stride(threads) {}
  __device__ void push(Key key) {
    mine[size * stride] = key;
    ++size;
  }
  // Every lane of the warp calls this together; a lane with a shorter queue pads
  // its last pairs with the sentinel (no entry is larger: no change).
  template <int N>
  __device__ void drain_into(BestKeys<N, Key>& best, Key sentinel) {
    const int turns = (warp_max(size) + 1) / 2;
    for (int e = 0; e < turns; ++e) {
      const Key x = 2 * e < size ? mine[2 * e * stride] : sentinel;
      const Key y = 2 * e + 1 < size ? mine[(2 * e + 1) * stride] : sentinel;
      best.insert_pair(min(x, y), max(x, y));
    }
    size = 0;
  }
};

}  // namespace cdn::bm3d
