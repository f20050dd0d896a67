// bm3d_best_keys.h: the list of a reference's best candidates in BM3D's block
// matching on 8-bit guides (section 4.1.1's grouping: the N patches nearest the
// reference within tau), kept in registers as sorted integer keys, for
// bm3d_match8.cuh's kernels; host and device code, so that the CPU tests check
// its insertions against a sort.
#pragma once

#include "cudadenoise/plane.h"  // CDN_HD

namespace cdn::bm3d {

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
  static CDN_HD Key lesser(Key x, Key y) { return x < y ? x : y; }
  static CDN_HD Key greater(Key x, Key y) { return x < y ? y : x; }

  Key k[N];

  CDN_HD void clear(Key sentinel) {
    CDN_UNROLL
    for (int e = 0; e < N; ++e) k[e] = sentinel;
  }
  CDN_HD Key worst() const { return k[N - 1]; }
  // Inserts `key` (a no-op unless key < worst()): entry e takes its predecessor
  // when that is larger than key, else the smaller of its own and key (all from
  // the old values: no loop-carried chain, three instructions an entry).
  CDN_HD void insert(Key key) {
    CDN_UNROLL
    for (int e = N - 1; e > 0; --e) k[e] = k[e - 1] > key ? k[e - 1] : (key < k[e] ? key : k[e]);
    k[0] = key < k[0] ? key : k[0];
  }
  // Inserts a and b (a < b, or both the sentinel) at once: entry e becomes the
  // (e + 1)-th smallest of the list and the pair, the smallest of its own, the
  // larger of its predecessor and a, and the larger of the entry before that and b
  // (four instructions an entry for two keys).
  CDN_HD void insert_pair(Key a, Key b) {
    CDN_UNROLL
    for (int e = N - 1; e > 1; --e) k[e] = lesser(k[e], lesser(greater(k[e - 1], a), greater(k[e - 2], b)));
    if (N > 1) k[1] = lesser(k[1], lesser(greater(k[0], a), b));
    k[0] = lesser(k[0], a);
  }
  CDN_HD int count(Key sentinel) const {
    int n = 0;
    CDN_UNROLL
    for (int e = 0; e < N; ++e) n += k[e] < sentinel;
    return n;
  }
};

}  // namespace cdn::bm3d
