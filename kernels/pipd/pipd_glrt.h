// pipd_glrt.h: the GLRT decisions of PI-PD (paper eq. 8) and of the hybrid edge
// detector (eq. 11), decided exactly so that the CPU reference and the CUDA
// kernels agree bit for bit. Shared by both (host and device inline code).
//
// Two sample sets a and b (counts na, nb; sums S, sums of squares Q, all exact
// integers) are one isoline (eq. 8 accepts the lengthening) when
//     N log(s1^2 / s2^2) < T,   N = na + nb,
// with s1^2 the variance of the merged set around one mean and s2^2 the pooled
// variance around two means. (Algorithm 2's variance lines are misprinted; we use
// E[z^2] - E[z]^2.) Multiplying out the denominators, with
//     A  = N Q - S^2                       (N^2 s1^2, S and Q of the merged set)
//     Ba = na Qa - Sa^2, Bb = nb Qb - Sb^2 (na^2 sa^2, nb^2 sb^2)
// the ratio is s1^2 / s2^2 = A na nb / (N (nb Ba + na Bb)), and the test becomes
//     A na nb < exp(T / N) * N (nb Ba + na Bb).
// Both sides are exact 64-bit integers; each is converted to double once (round
// to nearest) and the right side is one IEEE multiplication by exp(T/N), which
// the host computes once per N into a table. No other floating point is
// involved, so host and device take the same decision on every input.
// A merged set without variance (A = 0) is accepted; a positive A against two
// variance-free parts (denominator 0) is rejected.
// The edge detector (eq. 11) flags an edge when the same test does NOT accept
// the two half-planes as one.
#pragma once

#include <cstdint>

#include "cudadenoise/plane.h"  // CDN_HD

namespace cdn {

constexpr int kMaxGlrtCount = 256;  // largest N the threshold table covers

struct GlrtTable {
  double exp_t_over_n[kMaxGlrtCount + 1];  // exp(T / N) for N = 1..kMaxGlrtCount
  double at(std::int64_t n) const { return exp_t_over_n[n]; }
};

// Fills table[N] = exp(t / N) (host only; std::exp).
void make_glrt_table(double t, GlrtTable* table);

// `exp_threshold` must be exp(T / (na + nb)) (from GlrtTable or a copy of its entries).
CDN_HD bool glrt_accepts_merge(std::int64_t sa, std::int64_t qa, std::int64_t na, std::int64_t sb, std::int64_t qb,
                               std::int64_t nb, double exp_threshold) {
  const std::int64_t n = na + nb;
  const std::int64_t s = sa + sb;
  const std::int64_t a = n * (qa + qb) - s * s;
  if (a == 0) return true;
  const std::int64_t ba = na * qa - sa * sa;
  const std::int64_t bb = nb * qb - sb * sb;
  const std::int64_t lhs = a * na * nb;
  const std::int64_t rhs = n * (nb * ba + na * bb);
#ifdef __CUDA_ARCH__
  return __ll2double_rn(lhs) < __dmul_rn(exp_threshold, __ll2double_rn(rhs));
#else
  return static_cast<double>(lhs) < exp_threshold * static_cast<double>(rhs);
#endif
}

// Rounded mean of a sum of non-negative samples.
CDN_HD int rounded_mean(std::int64_t sum, std::int64_t count) {
  return static_cast<int>((2 * sum + count) / (2 * count));
}

}  // namespace cdn
