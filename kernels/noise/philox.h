// philox.h: the Philox4x32 counter-based random number generator of Salmon,
// Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC11),
// its section on Philox, with the 10 rounds the authors recommend (Philox4x32-10).
//
// A counter-based generator is a keyed bijection of a 128-bit counter: the
// output for a counter depends on nothing else, so every sample of a frame can
// draw its own numbers, in any order, on the CPU or on the GPU, with the same
// result. One round: the two 32x32 -> 64-bit products of the multipliers with
// counter words 0 and 2 are taken apart in high and low halves, the high halves
// are xored with the other two counter words and the round key, and the words
// change places (the paper's permutation for N = 4); the key is bumped by the
// Weyl constants between rounds. Integer arithmetic only: the host and the
// device compute the same bits. Checked against the authors' known-answer
// vectors (Random123 tests/kat_vectors) by tests/kernels/test_counter_noise.cpp.
#pragma once

#include <cstdint>

#include "cudadenoise/plane.h"  // CDN_HD

namespace cdn {

struct Philox4x32 {
  std::uint32_t v[4];
};

namespace philox_detail {
constexpr std::uint32_t kMul0 = 0xD2511F53u;  // the paper's multipliers for Philox4x32
constexpr std::uint32_t kMul1 = 0xCD9E8D57u;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;  // key schedule: golden ratio
constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;  // and sqrt(3) - 1, in 32 bits

CDN_HD void round(std::uint32_t c[4], std::uint32_t k0, std::uint32_t k1) {
  const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * c[0];
  const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * c[2];
  const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
  const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
  const std::uint32_t c1 = c[1], c3 = c[3];
  c[0] = hi1 ^ c1 ^ k0;
  c[1] = lo1;
  c[2] = hi0 ^ c3 ^ k1;
  c[3] = lo0;
}
}  // namespace philox_detail

// Philox4x32 with `Rounds` rounds (10: the paper's Philox4x32-10) of `counter`
// under `key`.
template <int Rounds = 10>
CDN_HD Philox4x32 philox4x32(const Philox4x32& counter, std::uint32_t key0, std::uint32_t key1) {
  Philox4x32 x = counter;
#if defined(__CUDA_ARCH__)
#pragma unroll
#elif defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC unroll 16
#endif
  for (int r = 0; r < Rounds; ++r) {
    if (r > 0) {
      key0 += philox_detail::kWeyl0;
      key1 += philox_detail::kWeyl1;
    }
    philox_detail::round(x.v, key0, key1);
  }
  return x;
}

}  // namespace cdn
