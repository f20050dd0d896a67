// counter_noise.cpp: the counter-based AWGN on host frames (counter_noise.h):
// every sample through counter_noise_sample.h, the rows of all components shared
// among threads (parallel.h).
#include "cudadenoise/counter_noise.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "noise/counter_noise_sample.h"
#include "cudadenoise/error.h"
#include "core/parallel.h"

namespace cdn {

void validate_counter_noise(const FrameView& in, const FrameView& out, double sigma, MemoryKind memory) {
  if (!(sigma >= 0) || !std::isfinite(sigma)) throw InvalidArgument("noise sigma must be finite and >= 0");
  const char* kind = memory == MemoryKind::Host ? "host" : "device";
  if (in.memory != memory || out.memory != memory)
    throw InvalidArgument(std::string("counter noise: this path takes ") + kind + " frames");
  if (in.format != out.format || in.width != out.width || in.height != out.height)
    throw InvalidArgument("counter noise: input and output differ in format or size");
  validate_frame(in);
  validate_frame(out);
}

void add_counter_noise(const FrameView& in, const FrameView& out, double sigma, std::uint64_t seed, int threads) {
  validate_counter_noise(in, out, sigma, MemoryKind::Host);
  const std::vector<PlaneView> src = components(in), dst = components(out);
  // Units of about one luma row of samples (a 4:2:0 chroma unit is two rows), of
  // every component in one list, so that one set of threads shares them evenly.
  struct Unit {
    int c, y0, y1;
  };
  std::vector<Unit> units;
  for (int c = 0; c < static_cast<int>(src.size()); ++c) {
    const int rows = std::max(1, src[0].width / std::max(1, src[c].width));
    for (int y = 0; y < src[c].height; y += rows) units.push_back({c, y, std::min(src[c].height, y + rows)});
  }
  parallel_rows(static_cast<int>(units.size()), threads, [&](int u) {
    const int c = units[u].c;
    const PlaneView& s = src[c];
    const PlaneView& d = dst[c];
    const double scaled = std::ldexp(sigma, s.bit_depth - 8);
    const int top = s.max_value();
    for (int y = units[u].y0; y < units[u].y1; ++y) {
      std::uint64_t block = ~std::uint64_t{0};
      Gaussian4 g{};
      for (int x = 0; x < s.width; ++x) {
        const std::uint64_t i = static_cast<std::uint64_t>(y) * s.width + x;
        if (i / 4 != block) {  // a row may start or end inside a block
          block = i / 4;
          g = counter_gaussians(seed, c, block);
        }
        d.set(x, y, counter_noisy_value(s.get(x, y), scaled, g.z[i % 4], top));
      }
    }
  });
}

#ifndef CDN_HAVE_CUDA
std::unique_ptr<CounterNoiseCuda> CounterNoiseCuda::create() {
  throw Error("counter noise on the GPU: built without CUDA");
}
#endif

}  // namespace cdn
