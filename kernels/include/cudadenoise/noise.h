// noise.h: deterministic additive white Gaussian noise (AWGN) for tests and tools,
// and Gaussian noise whose variance depends on the signal (var = a x + b).
//
// sigma is given in 8-bit code values and scaled by 2^(bit_depth - 8) for deeper
// planes (sigma 25 on a 10-bit plane adds noise of std 100). Each sample becomes
// clamp(round(value + sigma * z), 0, max_value) with z ~ N(0, 1).
//
// Signal-dependent noise (issue 37's protocol; docs/NOISE.md): each sample of
// clean value v (x = v / 2^(bit_depth - 8), its 8-bit code value) becomes
// clamp(round(v + 2^(bit_depth - 8) sqrt(max(a x + b, 0)) z), 0, max_value):
// Gaussian noise of variance a x + b in 8-bit code values. a = 0 is AWGN of
// sigma sqrt(b), the same samples as add_gaussian_noise for the same seed.
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

// Noise of variance a x + b (above) in place. Throws InvalidArgument for device
// memory, a < 0, or a or b not finite.
void add_signal_dependent_noise(const PlaneView& plane, double a, double b, NoiseRng& rng);
// Every component of a host frame (components(frame), luma first), one stream.
void add_signal_dependent_noise(const FrameView& frame, double a, double b, std::uint64_t seed);

}  // namespace cdn
