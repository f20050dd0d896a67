// test_gpu_counter_noise.cpp: the counter-based AWGN's CUDA kernel
// (kernels/noise/counter_noise.cu) against the CPU (counter_noise.cpp) on every
// format, odd sizes, pitched device frames, 1080p and 4K, out of place and in
// place. Bit identity is not required: CUDA's double log, sin and cos may differ
// from glibc's in the last ulp (counter_noise.h), which moves a sample by one
// code value when v + s z falls within a few ulp of a rounding boundary, a
// chance of about 1e-14 per sample. So: every sample within one code value, at
// most one sample in a million differing (any real fault, a wrong counter,
// component, pitch, shift or lane, differs on most samples), and every raw
// 16-bit word with P010's padding bits zero. The input of an out-of-place call
// stays as it was. Skips, with the reason, where no CUDA device can be used.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cudadenoise/counter_noise.h"
#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "test_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

void fill_picture(const FrameView& f) {
  int c = 0;
  for (const PlaneView& p : components(f)) test::fill_random(p, 31 + c++);
}

struct Agreement {
  long long total = 0, differing = 0, over_one = 0, dirty_padding = 0;
};

// Sample by sample, raw words included (P010's padding bits must be zero on both).
Agreement agreement(const FrameView& want, const FrameView& got) {
  Agreement a;
  const auto cw = components(want), cg = components(got);
  for (std::size_t c = 0; c < cw.size(); ++c)
    for (int y = 0; y < cw[c].height; ++y)
      for (int x = 0; x < cw[c].width; ++x) {
        const int d = std::abs(cw[c].get(x, y) - cg[c].get(x, y));
        ++a.total;
        a.differing += d != 0;
        a.over_one += d > 1;
        if (cg[c].is_16bit() && cg[c].shift > 0) {
          const auto* row = static_cast<const unsigned char*>(cg[c].data) + y * cg[c].pitch;
          const std::uint16_t raw = reinterpret_cast<const std::uint16_t*>(row)[x * cg[c].pixel_stride + cg[c].component_offset];
          a.dirty_padding += (raw & ((1 << cg[c].shift) - 1)) != 0;
        }
      }
  return a;
}

bool same_bytes(const FrameView& a, const FrameView& b) {
  for (int p = 0; p < format_info(a.format).planes; ++p)
    for (int y = 0; y < plane_height(a.format, a.height, p); ++y)
      if (std::memcmp(static_cast<const char*>(a.data[p]) + y * a.pitch[p],
                      static_cast<const char*>(b.data[p]) + y * b.pitch[p], plane_row_bytes(a.format, a.width, p)))
        return false;
  return true;
}

void check(PixelFormat f, int w, int h, double sigma, std::uint64_t seed) {
  SCOPED_TRACE(std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h));
  HostFrame in(f, w, h), want(f, w, h), got(f, w, h), got_in_place(f, w, h), in_after(f, w, h);
  fill_picture(in.view());
  add_counter_noise(in.view(), want.view(), sigma, seed);

  auto noise = CounterNoiseCuda::create();
  CudaFramePool pool(f, w, h, 3);
  auto din = pool.acquire(nullptr), dout = pool.acquire(nullptr), dinplace = pool.acquire(nullptr);
  copy_frame_async(in.view(), din->view(), nullptr);
  copy_frame_async(in.view(), dinplace->view(), nullptr);
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  noise->add(din->view(), dout->view(), sigma, seed);
  noise->add(dinplace->view(), dinplace->view(), sigma, seed);
  copy_frame_async(dout->view(), got.view(), nullptr);
  copy_frame_async(dinplace->view(), got_in_place.view(), nullptr);
  copy_frame_async(din->view(), in_after.view(), nullptr);
  CDN_CUDA_CHECK(cudaDeviceSynchronize());

  const Agreement a = agreement(want.view(), got.view());
  std::printf("%s %dx%d sigma %g: %lld of %lld samples differ from the CPU\n", format_name(f), w, h, sigma,
              a.differing, a.total);
  EXPECT_EQ(a.over_one, 0);
  EXPECT_LE(a.differing, a.total / 1000000) << "more than one sample in a million differs from the CPU";
  EXPECT_EQ(a.dirty_padding, 0);
  EXPECT_TRUE(same_bytes(got.view(), got_in_place.view())) << "in place differs from out of place";
  EXPECT_TRUE(same_bytes(in.view(), in_after.view())) << "the input was written";
}

TEST(GpuCounterNoise, KernelEqualsTheCpu) {
  CDN_REQUIRE_GPU();
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::GRAY16_LE, PixelFormat::NV12, PixelFormat::I420,
                        PixelFormat::P010_10LE, PixelFormat::P016_LE, PixelFormat::Y444})
    check(f, 333, 201, 20, 1000);
  check(PixelFormat::NV12, 1, 1, 20, 1);  // one Philox block, mostly unused
  check(PixelFormat::GRAY8, 7, 3, 255, 2);
  check(PixelFormat::NV12, 1920, 1080, 20, 77);
  check(PixelFormat::P010_10LE, 1920, 1080, 20, 78);
  check(PixelFormat::NV12, 3840, 2160, 20, 79);
  check(PixelFormat::NV12, 640, 360, 0, 5);  // sigma 0: the input itself
}

TEST(GpuCounterNoise, ClearErrors) {
  CDN_REQUIRE_GPU();
  auto noise = CounterNoiseCuda::create();
  HostFrame host(PixelFormat::NV12, 32, 16);
  EXPECT_THROW(noise->add(host.view(), host.view(), 10, 0), InvalidArgument);  // host frames
  CudaFramePool pool(PixelFormat::NV12, 32, 16, 1);
  auto d = pool.acquire(nullptr);
  EXPECT_THROW(noise->add(d->view(), d->view(), -2, 0), InvalidArgument);
}

#else

TEST(GpuCounterNoise, KernelEqualsTheCpu) { GTEST_SKIP() << "built without CUDA"; }

#endif

}  // namespace
}  // namespace cdn
