// bm3d_transforms.h: the decorrelating transforms of BM3D and the Kaiser window
// of the aggregation, shared by the CPU reference and the CUDA kernels
// (__host__ __device__).
//
// 2D transforms of each 8x8 patch:
//   DCT-II (bm3d-gpu-honzatko-krulis-2017, footnote 7; both phases of the paper
//   profile, phase 2 of the reference): X[k] = a(k) sum_n x[n] cos(pi (2n + 1) k / 16),
//   a(0) = sqrt(1/8), a(k>0) = 1/2. dct8_* is the even/odd split of that sum (40
//   multiply-adds instead of 64); the tests check it against the formula.
//   Biorthogonal 1.5 (Dabov et al.'s reference implementation, phase 1): the full
//   3-level 1D decomposition of 8 samples with the bior1.5 analysis filters and
//   periodic extension, as a matrix T whose rows are then scaled to unit norm (so
//   white noise keeps std sigma in every coefficient, though coefficients are
//   correlated: T is not orthogonal); the 2D transform is T P T^T and its inverse
//   T^-1 P T^-T (bior15_matrices).
// 1D transforms across the n = 2^m patches of a group, both orthonormal:
//   Walsh-Hadamard (the paper): Y[k] = n^-1/2 sum_i (-1)^popcount(i & k) x[i].
//   Haar (the reference): the full dyadic Haar decomposition, in place: stage h =
//   1, 2, ..., n/2 replaces (v[i], v[i + h]), i a multiple of 2h, by their sum and
//   difference over sqrt(2); the inverse runs the stages backwards.
#pragma once

#include <cmath>
#include <utility>

#include "cudadenoise/plane.h"  // CDN_HD

#if defined(__CUDA_ARCH__)
#define CDN_BM3D_UNROLL _Pragma("unroll")
#else
#define CDN_BM3D_UNROLL
#endif

namespace cdn::bm3d {

// cos(pi k / 16), k = 0..8, and half of it.
#define CDN_BM3D_C(k) (k == 0 ? 1.0f : k == 1 ? 0.98078528040323043f : k == 2 ? 0.92387953251128674f : \
                       k == 3 ? 0.83146961230254524f : k == 4 ? 0.70710678118654752f : k == 5 ? 0.55557023301960218f : \
                       k == 6 ? 0.38268343236508977f : k == 7 ? 0.19509032201612827f : 0.0f)
#define CDN_BM3D_H(k) (0.5f * CDN_BM3D_C(k))

// The DCT matrix entry a(k) cos(pi (2n + 1) k / 16), from the formula.
inline double dct8_coefficient(int k, int n) {
  const double pi = 3.14159265358979323846;
  return (k == 0 ? std::sqrt(1.0 / 8.0) : 0.5) * std::cos(pi * (2 * n + 1) * k / 16.0);
}

// Orthonormal 8-point DCT-II of v[0], v[s], ..., v[7s], in place. The factor 1/2
// of a(k > 0) is folded into the cosines (CDN_BM3D_H): halving is exact in binary
// floating point, so in the source's arithmetic every sum is the same float as
// with a multiply by 1/2 after it, one instruction less an output. (On the GPU the
// compiler chooses, kernel by kernel, which products it fuses into multiply-adds,
// so kernels can differ in a last bit; the GPU tests compare the fast kernels'
// output bytes with the first kernels'.)
CDN_HD void dct8_forward(float* v, int s) {
  const float a = 0.35355339059327376f;  // sqrt(1/8)
  float e[4], o[4];
  for (int n = 0; n < 4; ++n) {
    e[n] = v[n * s] + v[(7 - n) * s];
    o[n] = v[n * s] - v[(7 - n) * s];
  }
  // Even outputs: X[2m] = a(2m) sum_{n<4} e[n] cos(pi (2n+1) 2m / 16).
  const float e03 = e[0] + e[3], e12 = e[1] + e[2], d03 = e[0] - e[3], d12 = e[1] - e[2];
  v[0] = a * (e03 + e12);
  v[4 * s] = a * (e03 - e12);
  v[2 * s] = CDN_BM3D_H(2) * d03 + CDN_BM3D_H(6) * d12;
  v[6 * s] = CDN_BM3D_H(6) * d03 - CDN_BM3D_H(2) * d12;
  // Odd outputs: X[k] = 1/2 sum_{n<4} o[n] cos(pi (2n+1) k / 16), k = 1, 3, 5, 7.
  v[1 * s] = CDN_BM3D_H(1) * o[0] + CDN_BM3D_H(3) * o[1] + CDN_BM3D_H(5) * o[2] + CDN_BM3D_H(7) * o[3];
  v[3 * s] = CDN_BM3D_H(3) * o[0] - CDN_BM3D_H(7) * o[1] - CDN_BM3D_H(1) * o[2] - CDN_BM3D_H(5) * o[3];
  v[5 * s] = CDN_BM3D_H(5) * o[0] - CDN_BM3D_H(1) * o[1] + CDN_BM3D_H(7) * o[2] + CDN_BM3D_H(3) * o[3];
  v[7 * s] = CDN_BM3D_H(7) * o[0] - CDN_BM3D_H(5) * o[1] + CDN_BM3D_H(3) * o[2] - CDN_BM3D_H(1) * o[3];
}

// Its inverse (the transpose), in place.
CDN_HD void dct8_inverse(float* v, int s) {
  const float a = 0.35355339059327376f;
  const float X0 = v[0], X1 = v[s], X2 = v[2 * s], X3 = v[3 * s], X4 = v[4 * s], X5 = v[5 * s], X6 = v[6 * s],
              X7 = v[7 * s];
  // e[n] = x[n] + x[7-n] and o[n] = x[n] - x[7-n] recovered from the even / odd outputs.
  const float p = a * (X0 + X4), q = a * (X0 - X4);
  const float r = CDN_BM3D_H(2) * X2 + CDN_BM3D_H(6) * X6;
  const float t = CDN_BM3D_H(6) * X2 - CDN_BM3D_H(2) * X6;
  const float e0 = p + r, e3 = p - r, e1 = q + t, e2 = q - t;  // halves of e[n]
  const float o0 = CDN_BM3D_H(1) * X1 + CDN_BM3D_H(3) * X3 + CDN_BM3D_H(5) * X5 + CDN_BM3D_H(7) * X7;
  const float o1 = CDN_BM3D_H(3) * X1 - CDN_BM3D_H(7) * X3 - CDN_BM3D_H(1) * X5 - CDN_BM3D_H(5) * X7;
  const float o2 = CDN_BM3D_H(5) * X1 - CDN_BM3D_H(1) * X3 + CDN_BM3D_H(7) * X5 + CDN_BM3D_H(3) * X7;
  const float o3 = CDN_BM3D_H(7) * X1 - CDN_BM3D_H(5) * X3 + CDN_BM3D_H(3) * X5 - CDN_BM3D_H(1) * X7;
  v[0] = e0 + o0;
  v[7 * s] = e0 - o0;
  v[1 * s] = e1 + o1;
  v[6 * s] = e1 - o1;
  v[2 * s] = e2 + o2;
  v[5 * s] = e2 - o2;
  v[3 * s] = e3 + o3;
  v[4 * s] = e3 - o3;
}

// 2D transforms of a row-major 8x8 patch: rows, then columns.
CDN_HD void dct8x8_forward(float* p) {
  for (int r = 0; r < 8; ++r) dct8_forward(p + 8 * r, 1);
  for (int c = 0; c < 8; ++c) dct8_forward(p + c, 8);
}
CDN_HD void dct8x8_inverse(float* p) {
  for (int c = 0; c < 8; ++c) dct8_inverse(p + c, 8);
  for (int r = 0; r < 8; ++r) dct8_inverse(p + 8 * r, 1);
}

// The 8-point DCT from the formula, in double (the tests' definition).
inline void dct8_direct(const double* in, double* out) {
  for (int k = 0; k < 8; ++k) {
    double s = 0;
    for (int n = 0; n < 8; ++n) s += dct8_coefficient(k, n) * in[n];
    out[k] = s;
  }
}

// Orthonormal Walsh-Hadamard transform of n = 2^m values v[0], v[s], ...,
// v[(n-1)s], in place (its own inverse).
CDN_HD void wht_inplace(float* v, int n, int s) {
  for (int h = 1; h < n; h <<= 1)
    for (int i = 0; i < n; ++i)
      if ((i & h) == 0) {
        const float a = v[i * s], b = v[(i + h) * s];
        v[i * s] = a + b;
        v[(i + h) * s] = a - b;
      }
  const float scale = 1.0f / sqrtf(static_cast<float>(n));
  for (int i = 0; i < n; ++i) v[i * s] *= scale;
}

// Orthonormal Haar decomposition of n = 2^m values v[0], v[s], ..., in place
// (coefficients in the in-place order described above), and its inverse.
CDN_HD void haar_forward(float* v, int n, int s) {
  const float r = 0.70710678118654752f;
  for (int h = 1; h < n; h <<= 1)
    for (int i = 0; i < n; i += 2 * h) {
      const float a = v[i * s], b = v[(i + h) * s];
      v[i * s] = (a + b) * r;
      v[(i + h) * s] = (a - b) * r;
    }
}
CDN_HD void haar_inverse(float* v, int n, int s) {
  const float r = 0.70710678118654752f;
  for (int h = n / 2; h >= 1; h >>= 1)
    for (int i = 0; i < n; i += 2 * h) {
      const float a = v[i * s], b = v[(i + h) * s];
      v[i * s] = (a + b) * r;
      v[(i + h) * s] = (a - b) * r;
    }
}

// The bior1.5 analysis low-pass filter (10 taps, times 128 sqrt(2)); its
// high-pass is (x[2j + 1] - x[2j]) / sqrt(2). Output j of the low-pass is
// sum_k kBior15Low[k] x[(2j + k - 4) mod L] / (128 sqrt(2)) on L samples.
constexpr double kBior15Low[10] = {3, -3, -22, 22, 128, 128, 22, -22, -3, 3};

// The forward matrix T (row-major, rows of unit norm; row order: the level-3
// approximation, the level-3, 2 and 1 details) and its inverse, in double.
struct Bior15Matrices {
  double forward[64], inverse[64];
};
inline Bior15Matrices bior15_matrices() {
  Bior15Matrices m{};
  const double r2 = std::sqrt(2.0);
  for (int c = 0; c < 8; ++c) {  // column c of T: the decomposition of the unit vector e_c
    double x[8] = {}, out[8] = {};
    x[c] = 1;
    for (int len = 8; len >= 2; len /= 2) {
      double low[4] = {}, high[4] = {};
      for (int j = 0; j < len / 2; ++j) {
        for (int k = 0; k < 10; ++k) low[j] += kBior15Low[k] * x[((2 * j + k - 4) % len + len) % len];
        low[j] /= 128 * r2;
        high[j] = (x[2 * j + 1] - x[2 * j]) / r2;
      }
      for (int j = 0; j < len / 2; ++j) {
        out[len / 2 + j] = high[j];  // details of this level: entries len/2 .. len-1
        x[j] = low[j];
      }
    }
    out[0] = x[0];
    for (int r = 0; r < 8; ++r) m.forward[r * 8 + c] = out[r];
  }
  for (int r = 0; r < 8; ++r) {
    double n2 = 0;
    for (int c = 0; c < 8; ++c) n2 += m.forward[r * 8 + c] * m.forward[r * 8 + c];
    for (int c = 0; c < 8; ++c) m.forward[r * 8 + c] /= std::sqrt(n2);
  }
  // Inverse by Gauss-Jordan elimination with partial pivoting.
  double a[8][16];
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) a[r][c] = c < 8 ? m.forward[r * 8 + c] : (c - 8 == r ? 1.0 : 0.0);
  for (int col = 0; col < 8; ++col) {
    int piv = col;
    for (int r = col + 1; r < 8; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[piv][col])) piv = r;
    for (int c = 0; c < 16; ++c) std::swap(a[col][c], a[piv][c]);
    const double d = a[col][col];
    for (int c = 0; c < 16; ++c) a[col][c] /= d;
    for (int r = 0; r < 8; ++r)
      if (r != col) {
        const double f = a[r][col];
        for (int c = 0; c < 16; ++c) a[r][c] -= f * a[col][c];
      }
  }
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) m.inverse[r * 8 + c] = a[r][c + 8];
  return m;
}

// p <- M p M^T for a row-major 8x8 patch p and matrix M (rows, then columns):
// the bior1.5 forward transform with M = T, its inverse with M = T^-1.
// (Unrolled on the GPU, where p lives in registers.)
CDN_HD void matrix8x8_apply(float* p, const float* M) {
  float t[8];
  CDN_BM3D_UNROLL
  for (int r = 0; r < 8; ++r) {
    CDN_BM3D_UNROLL
    for (int k = 0; k < 8; ++k) {
      float acc = 0.f;
      CDN_BM3D_UNROLL
      for (int j = 0; j < 8; ++j) acc += M[k * 8 + j] * p[r * 8 + j];
      t[k] = acc;
    }
    CDN_BM3D_UNROLL
    for (int k = 0; k < 8; ++k) p[r * 8 + k] = t[k];
  }
  CDN_BM3D_UNROLL
  for (int c = 0; c < 8; ++c) {
    CDN_BM3D_UNROLL
    for (int k = 0; k < 8; ++k) {
      float acc = 0.f;
      CDN_BM3D_UNROLL
      for (int j = 0; j < 8; ++j) acc += M[k * 8 + j] * p[j * 8 + c];
      t[k] = acc;
    }
    CDN_BM3D_UNROLL
    for (int k = 0; k < 8; ++k) p[k * 8 + c] = t[k];
  }
}

// Kaiser window (beta) of length 8 at n: I0(beta sqrt(1 - (2n/7 - 1)^2)) / I0(beta).
inline double kaiser8(int n, double beta) {
  auto i0 = [](double x) {  // modified Bessel function of order 0, power series
    double sum = 1, term = 1;
    for (int k = 1; k < 50; ++k) {
      term *= (x / (2 * k)) * (x / (2 * k));
      sum += term;
    }
    return sum;
  };
  const double r = 2.0 * n / 7.0 - 1.0;
  return i0(beta * std::sqrt(1.0 - r * r)) / i0(beta);
}

}  // namespace cdn::bm3d

#undef CDN_BM3D_C
#undef CDN_BM3D_H
#undef CDN_BM3D_UNROLL
