// counter_noise.cu: the counter-based AWGN on device frames (counter_noise.h).
// One launch per frame: blockIdx.y is the component, and each thread takes the
// four samples of one Philox block (counter_noise_sample.h), in the component's
// row-major order, so a thread may cross a row end. Reads `in`, writes `out`
// (the same frame for in place): a thread reads its samples before it writes them
// and touches no other, so there is no race.
#include <cuda_runtime.h>

#include <cmath>

#include "cudadenoise/counter_noise.h"
#include "noise/counter_noise_sample.h"
#include "cuda/host_wait.h"
#include "cudadenoise/error.h"

namespace cdn {

namespace {

constexpr int kThreads = 256;

struct NoiseJob {
  PlaneView in[3];
  PlaneView out[3];
  double scaled_sigma[3];
  std::uint64_t blocks[3];  // Philox blocks of the component: ceil(width * height / 4)
};

__global__ void counter_noise_kernel(const NoiseJob job, std::uint64_t seed) {
  const int c = blockIdx.y;
  const std::uint64_t b = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= job.blocks[c]) return;
  const PlaneView& src = job.in[c];
  const PlaneView& dst = job.out[c];
  const std::uint64_t total = static_cast<std::uint64_t>(src.width) * src.height;
  const Gaussian4 g = counter_gaussians(seed, c, b);
  const std::uint64_t first = 4 * b;
  int y = static_cast<int>(first / src.width);
  int x = static_cast<int>(first - static_cast<std::uint64_t>(y) * src.width);
  const int top = src.max_value();
  for (int j = 0; j < 4 && first + j < total; ++j) {
    dst.set(x, y, counter_noisy_value(src.get(x, y), job.scaled_sigma[c], g.z[j], top));
    if (++x == src.width) {
      x = 0;
      ++y;
    }
  }
}

class CudaCounterNoise final : public CounterNoiseCuda {
 public:
  CudaCounterNoise() { CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaCounterNoise() override {
    if (stream_) cudaStreamDestroy(stream_);
  }

  void add(const FrameView& in, const FrameView& out, double sigma, std::uint64_t seed) override {
    validate_counter_noise(in, out, sigma, MemoryKind::Device);
    const std::vector<PlaneView> src = components(in), dst = components(out);
    NoiseJob job{};
    std::uint64_t most = 0;
    for (std::size_t c = 0; c < src.size(); ++c) {
      job.in[c] = src[c];
      job.out[c] = dst[c];
      job.scaled_sigma[c] = std::ldexp(sigma, src[c].bit_depth - 8);
      job.blocks[c] = (static_cast<std::uint64_t>(src[c].width) * src[c].height + 3) / 4;
      if (job.blocks[c] > most) most = job.blocks[c];
    }
    const std::uint64_t grid_x = (most + kThreads - 1) / kThreads;
    if (grid_x > 0x7fffffffu) throw InvalidArgument("counter noise: frame too large for one launch");
    counter_noise_kernel<<<dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(src.size())), kThreads, 0,
                           stream_>>>(job, seed);
    CDN_CHECK_LAUNCH("counter_noise_kernel");
    wait_for_stream(stream_);
  }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<CounterNoiseCuda> CounterNoiseCuda::create() { return std::make_unique<CudaCounterNoise>(); }

}  // namespace cdn
