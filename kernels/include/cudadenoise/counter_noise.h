// counter_noise.h: counter-based additive white Gaussian noise (AWGN) on frames,
// the same noise on the CPU and on the GPU, for the cudaaddnoise element.
//
// The generator is Philox4x32-10 (Salmon et al., "Parallel random numbers: as
// easy as 1, 2, 3", SC11; philox.h), keyed by the seed, its counter the sample's
// index within its component and the component's number; uniforms become
// Gaussians by the Box-Muller transform (counter_noise_sample.h gives the exact
// formulas). No sample depends on another, so the CPU splits the rows among
// threads and the CUDA kernel gives each thread four samples, and both compute
// the same function of (seed, component, index, value).
//
// Each sample becomes clamp(round(v + sigma * 2^(depth - 8) * z), 0, 2^depth - 1)
// with z ~ N(0, 1): sigma in 8-bit code values, as noise.h. The noise of a
// component depends on its size and its number (Y 0, U 1, V 2), not on pitch or
// layout: NV12 and I420 frames of the same picture get the same noise, and P010's
// padding bits stay zero. A different generator from add_gaussian_noise (noise.h,
// xoshiro256** in one sequential stream), whose exact noise the tools and tests
// keep: the two give different noise for the same seed.
//
// CPU and GPU: the generator, the integer-to-uniform mapping, sqrt, the products
// and the final fma are exact or correctly rounded IEEE operations, the same
// bits on both sides. log, sin and cos are not: CUDA documents at most 1 ulp for
// log and 2 ulp for sin and cos in double precision, glibc is within 1 ulp. A
// sample's z may so differ in its last few bits, which changes the output only
// when v + s z lands within a few ulp of a rounding boundary: a chance of the
// order of 1e-14 per sample (one sample in millions of 4K frames), and then by
// one code value. The GPU test (tests/kernels/test_gpu_counter_noise.cpp) allows
// that and nothing more: at most one code value anywhere, on at most one sample
// in a million. The same holds between glibc versions.
#pragma once

#include <cstdint>
#include <memory>

#include "cudadenoise/frame.h"

namespace cdn {

// Throws InvalidArgument for a negative or non-finite sigma, frames of
// different format or size, or frames not of the memory kind `memory`.
void validate_counter_noise(const FrameView& in, const FrameView& out, double sigma, MemoryKind memory);

// out = in plus the noise of `seed` (in == out: in place).
// Host frames, rows split among `threads` threads (<= 0: every hardware thread).
void add_counter_noise(const FrameView& in, const FrameView& out, double sigma, std::uint64_t seed,
                       int threads = 0);

// Device frames: the CUDA kernel, on a stream of its own made in the CUDA context
// current at create() (use the object under that context).
class CounterNoiseCuda {
 public:
  // Throws cdn::Error in builds without CUDA, or when no stream can be made.
  static std::unique_ptr<CounterNoiseCuda> create();
  virtual ~CounterNoiseCuda() = default;

  // out = in plus the noise of `seed` (in == out: in place), device frames.
  // Launches the kernel and waits for it: `out` is complete on return. CUDA
  // failures throw cdn::Error with CUDA's message.
  virtual void add(const FrameView& in, const FrameView& out, double sigma, std::uint64_t seed) = 0;
};

}  // namespace cdn
