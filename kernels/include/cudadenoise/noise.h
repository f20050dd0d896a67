// noise.h: deterministic additive white Gaussian noise (AWGN) for tests and tools.
//
// sigma is given in 8-bit code values and scaled by 2^(bit_depth - 8) for deeper
// planes (sigma 25 on a 10-bit plane adds noise of std 100). Each sample becomes
// clamp(round(value + sigma * z), 0, max_value) with z ~ N(0, 1).
//
// The generator is our own, so a seed gives the same image with any standard
// library: xoshiro256** (Blackman & Vigna) seeded through splitmix64, 53-bit
// uniform doubles, and the Box-Muller transform (both outputs used). Samples are
// visited row by row, left to right, components in order.
#pragma once

#include <cstdint>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/plane.h"

namespace cdn {

class NoiseRng {
 public:
  explicit NoiseRng(std::uint64_t seed);
  std::uint64_t next_u64();  // xoshiro256**
  double uniform();          // in (0, 1): never 0, so log() is finite
  double gaussian();         // N(0, 1), Box-Muller

 private:
  std::uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

// Adds noise in place to a host plane. Throws InvalidArgument for device memory
// or a negative sigma.
void add_gaussian_noise(const PlaneView& plane, double sigma, NoiseRng& rng);
void add_gaussian_noise(const PlaneView& plane, double sigma, std::uint64_t seed);
// All given components from one stream (e.g. the R, G, B of an interleaved image).
void add_gaussian_noise(const std::vector<PlaneView>& planes, double sigma, std::uint64_t seed);
// Every component of a host frame (components(frame), luma first).
void add_gaussian_noise(const FrameView& frame, double sigma, std::uint64_t seed);

}  // namespace cdn
