// test_gpu_pipd.cpp: the CUDA kernels against the CPU reference (bit-exact), the
// front door's CUDA backend (StreamDenoiser) on every format (device and host
// frames), and the frame pool. Every test skips, with the reason, where no CUDA device can be used.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "convert.h"
#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "image_io.h"
#include "pipd/pipd_reference.h"
#include "test_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/error.h"
#include "pipd/pipd_cuda.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

// A device copy of a host plane (same geometry, own pitch), freed on scope exit.
struct DevicePlane {
  PlaneView view;
  explicit DevicePlane(const PlaneView& like) {
    view = like;
    view.memory = MemoryKind::Device;
    view.pixel_stride = 1;
    view.component_offset = 0;
    CDN_CUDA_CHECK(cudaMallocPitch(&view.data, &view.pitch, std::size_t(like.width) * like.bytes_per_sample, like.height));
    CDN_CUDA_CHECK(cudaMemset2D(view.data, view.pitch, 0xCD, std::size_t(like.width) * like.bytes_per_sample, like.height));
  }
  ~DevicePlane() { cudaFree(view.data); }
  void upload(const PlaneView& host) {
    CDN_CUDA_CHECK(cudaMemcpy2D(view.data, view.pitch, host.data, host.pitch, std::size_t(host.width) * host.bytes_per_sample,
                                host.height, cudaMemcpyHostToDevice));
  }
  void download(const PlaneView& host) const {
    CDN_CUDA_CHECK(cudaMemcpy2D(host.data, host.pitch, view.data, view.pitch, std::size_t(host.width) * host.bytes_per_sample,
                                host.height, cudaMemcpyDeviceToHost));
  }
};

// Runs the kernels (on `reuse`, or a new PipdCuda) and the reference on `in`
// (host, contiguous component) and expects identical output; returns the number
// of pixels compared.
long compare_plane(const PlaneView& in, Mode mode, const PipdParams& params, const std::string& what,
                   PipdCuda* reuse = nullptr) {
  test::HostPlane want(in.width, in.height, in.bytes_per_sample, in.bit_depth), got(in.width, in.height, in.bytes_per_sample, in.bit_depth);
  want.view.shift = got.view.shift = in.shift;
  pipd_reference(in, want.view, mode, params);
  DevicePlane din(in), dout(in);
  din.upload(in);
  PipdCuda own;
  PipdCuda& cuda = reuse ? *reuse : own;
  cuda.run(din.view, dout.view, mode, params, nullptr);
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  dout.download(got.view);
  long diff = 0;
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      if (got.view.get(x, y) != want.view.get(x, y)) {
        if (diff < 5)
          ADD_FAILURE() << what << ": pixel " << x << "," << y << " gpu " << got.view.get(x, y) << " cpu "
                        << want.view.get(x, y);
        ++diff;
      }
  EXPECT_EQ(diff, 0) << what << ": " << diff << " of " << long(in.width) * in.height << " pixels differ";
  return long(in.width) * in.height;
}

struct Variant {
  Mode mode;
  int thickness;
  int prefilter;  // direction-prefilter passes

  PipdParams params() const {
    PipdParams p;
    p.thickness = thickness;
    p.direction_prefilter = prefilter;
    return p;
  }
};
const Variant kVariants[] = {{Mode::Pipd, 1, 0}, {Mode::Hybrid, 1, 0}, {Mode::Pipd, 3, 0}, {Mode::Hybrid, 3, 0},
                             {Mode::Pipd, 1, 1}, {Mode::Hybrid, 3, 1}, {Mode::Hybrid, 1, 2}};

std::string name(const Variant& v, int w, int h, int depth) {
  return std::string(mode_name(v.mode)) + " t" + std::to_string(v.thickness) + " prefilter " +
         std::to_string(v.prefilter) + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
         std::to_string(depth) + "-bit";
}

TEST(GpuPipd, RandomImagesOfOddSizesMatchTheReference) {
  CDN_REQUIRE_GPU();
  const int sizes[][2] = {{1, 1}, {2, 3}, {7, 5}, {33, 17}, {64, 48}, {1921, 1081}};
  for (const auto& s : sizes)
    for (int depth : {8, 10, 16})
      for (const Variant& v : kVariants) {
        // Keeps the CPU side short; under compute-sanitizer (CDN_TEST_SMALL) the big frame runs once.
        if (s[0] > 1000 && (v.thickness == 3 || depth == 10 || v.prefilter == 2)) continue;
        if (s[0] > 1000 && std::getenv("CDN_TEST_SMALL") && (depth != 8 || v.mode != Mode::Hybrid)) continue;
        test::HostPlane in(s[0], s[1], depth == 8 ? 1 : 2, depth);
        if (depth == 10) in.view.shift = 6;  // P010 layout
        test::fill_random(in.view, s[0] * 131 + s[1] + depth);
        compare_plane(in.view, v.mode, v.params(), name(v, s[0], s[1], depth));
      }
}

TEST(GpuPipd, NonDefaultParametersMatchTheReference) {
  CDN_REQUIRE_GPU();
  test::HostPlane in(97, 61, 1, 8);
  test::fill_random(in.view, 99);
  for (int l : {2, 4, 8}) {
    PipdParams p;
    p.segment_length = l;
    p.max_length = 4 * l;
    p.tmax = 2.5;
    p.t2max = 0.5;
    compare_plane(in.view, Mode::Hybrid, p, "l=" + std::to_string(l));
    p.thickness = 3;
    compare_plane(in.view, Mode::Pipd, p, "thick l=" + std::to_string(l));
    p.direction_prefilter = 2;
    compare_plane(in.view, Mode::Hybrid, p, "thick prefiltered l=" + std::to_string(l));
  }
}

TEST(GpuPipd, ScratchGrowsForThePrefilterGuides) {
  CDN_REQUIRE_GPU();
  // One PipdCuda: the stats alone, then room for one and two guide planes, then
  // a smaller frame in the grown buffer.
  PipdCuda cuda;
  for (int depth : {8, 16}) {
    test::HostPlane big(301, 203, depth / 8, depth), small(45, 31, depth / 8, depth);
    test::fill_random(big.view, 5 + depth);
    test::fill_random(small.view, 6 + depth);
    for (int passes : {0, 1, 2}) {
      PipdParams p;
      p.direction_prefilter = passes;
      const std::size_t before = cuda.scratch_bytes();
      compare_plane(big.view, Mode::Pipd, p, "grown, prefilter " + std::to_string(passes), &cuda);
      if (passes > 0) {
        EXPECT_GT(cuda.scratch_bytes(), before) << "a guide plane needs room";
      }
    }
    PipdParams p;
    p.direction_prefilter = 2;
    compare_plane(small.view, Mode::Hybrid, p, "small frame in a grown buffer", &cuda);
  }
}

TEST(GpuPipd, RealImagesMatchTheReference) {
  CDN_REQUIRE_GPU();
  int used = 0;
  for (const char* file : {"camera.png", "astronaut.png", "coffee.png", "moon.png"}) {
    tools::Image img;
    try {
      img = tools::to_8bit(tools::read_image(test::test_data_dir() + "/" + file));
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << " (run scripts/fetch-test-data.sh)";
      continue;
    }
    HostFrame frame = tools::image_to_frame(img);
    const PlaneView luma = components(frame.view())[0];
    test::HostPlane noisy(luma.width, luma.height, 1, 8);
    for (int y = 0; y < luma.height; ++y)
      for (int x = 0; x < luma.width; ++x) noisy.view.set(x, y, luma.get(x, y));
    add_gaussian_noise(noisy.view, 25.0, 1234);
    for (const Variant& v : kVariants)
      compare_plane(noisy.view, v.mode, v.params(), std::string(file) + " " + name(v, luma.width, luma.height, 8));
    ++used;
  }
  EXPECT_EQ(used, 4);
}

class GpuFrames : public ::testing::TestWithParam<PixelFormat> {};

TEST_P(GpuFrames, CudaEqualsCpuOnDeviceAndHostFramesThroughProcessAndPushPop) {
  CDN_REQUIRE_GPU();
  const PixelFormat f = GetParam();
  // The paper's settings on all planes and on luma only; then the quality settings
  // (direction prefilter: its guide of an interleaved NV12 / P010 chroma plane is packed).
  for (int run = 0; run < 3; ++run) {
    const PlaneSelection sel = run == 1 ? PlaneSelection::Luma : PlaneSelection::All;
    DenoiseSettings s;
    s.mode = Mode::Hybrid;
    s.planes = sel;
    if (run == 2) s.pipd = pipd_quality_params();
    HostFrame in(f, 161, 97), want(f, 161, 97), got_host(f, 161, 97), got_dev(f, 161, 97), got_push(f, 161, 97);
    int i = 0;
    for (const auto& c : components(in.view())) test::fill_random(c, 77 + i++);
    test::denoise_frame(Backend::Cpu, s, in.view(), want.view());
    auto gpu = StreamDenoiser::create(Backend::Cuda, s, f, 161, 97);
    ASSERT_EQ(gpu->backend(), Backend::Cuda);
    // Host frames: staged through the denoiser's pool.
    gpu->process(in.view(), got_host.view());
    // Device frames: zero-copy, from a pool of our own, on a stream of our own.
    CudaFramePool pool(f, 161, 97, 3);
    cudaStream_t stream;
    CDN_CUDA_CHECK(cudaStreamCreate(&stream));
    {
      auto din = pool.acquire(stream), dout = pool.acquire(stream);
      for (int p = 0; p < format_info(f).planes; ++p)
        CDN_CUDA_CHECK(cudaMemcpy2D(din->view().data[p], din->view().pitch[p], in.view().data[p], in.view().pitch[p],
                                    plane_row_bytes(f, 161, p), plane_height(f, 97, p), cudaMemcpyHostToDevice));
      gpu->process(din->view(), dout->view(), stream);
      for (int p = 0; p < format_info(f).planes; ++p)
        CDN_CUDA_CHECK(cudaMemcpy2D(got_dev.view().data[p], got_dev.view().pitch[p], dout->view().data[p],
                                    dout->view().pitch[p], plane_row_bytes(f, 161, p), plane_height(f, 97, p),
                                    cudaMemcpyDeviceToHost));
      // push() and pop() of device frames: filtered into a device frame of the stream's own, then copied.
      auto dpop = pool.acquire(stream);
      gpu->push(din->view(), stream);
      ASSERT_EQ(gpu->held(), 1);
      ASSERT_TRUE(gpu->pop(dpop->view(), stream));
      for (int p = 0; p < format_info(f).planes; ++p)
        CDN_CUDA_CHECK(cudaMemcpy2D(got_push.view().data[p], got_push.view().pitch[p], dpop->view().data[p],
                                    dpop->view().pitch[p], plane_row_bytes(f, 161, p), plane_height(f, 97, p),
                                    cudaMemcpyDeviceToHost));
    }
    CDN_CUDA_CHECK(cudaStreamDestroy(stream));
    const auto w = components(want.view()), gh = components(got_host.view()), gd = components(got_dev.view()),
               gp = components(got_push.view());
    for (std::size_t c = 0; c < w.size(); ++c)
      for (int y = 0; y < w[c].height; ++y)
        for (int x = 0; x < w[c].width; ++x) {
          ASSERT_EQ(gh[c].get(x, y), w[c].get(x, y)) << format_name(f) << " host path, component " << c << ", run " << run;
          ASSERT_EQ(gd[c].get(x, y), w[c].get(x, y)) << format_name(f) << " device path, component " << c << ", run " << run;
          ASSERT_EQ(gp[c].get(x, y), w[c].get(x, y)) << format_name(f) << " push/pop, component " << c << ", run " << run;
        }
  }
}

INSTANTIATE_TEST_SUITE_P(All, GpuFrames, ::testing::ValuesIn(all_formats()),
                         [](const auto& info) { return std::string(format_name(info.param)); });

TEST(GpuFramePool, ReusesABoundedSetOfFrames) {
  CDN_REQUIRE_GPU();
  CudaFramePool pool(PixelFormat::NV12, 1920, 1080, 3);
  std::vector<void*> seen;
  for (int i = 0; i < 20; ++i) {
    auto a = pool.acquire(nullptr);
    auto b = pool.acquire(nullptr);
    seen.push_back(a->view().data[0]);
    EXPECT_EQ(pool.in_use(), 2);
  }
  EXPECT_LE(pool.allocated(), 2);  // frames come back and are reused: no allocation per frame
  EXPECT_EQ(pool.in_use(), 0);
  auto a = pool.acquire(nullptr), b = pool.acquire(nullptr), c = pool.acquire(nullptr);
  EXPECT_EQ(pool.allocated(), 3);
  EXPECT_EQ(pool.try_acquire(nullptr), nullptr);  // bounded
  EXPECT_GE(a->view().pitch[0], 1920u);
  EXPECT_GE(a->view().pitch[1], 1920u);
}

TEST(GpuFramePool, FramesPassSafelyBetweenStreams) {
  CDN_REQUIRE_GPU();
  CudaFramePool pool(PixelFormat::GRAY8, 4096, 2048, 1);
  cudaStream_t s1, s2;
  CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  std::vector<unsigned char> host(4096);
  for (int round = 0; round < 5; ++round) {
    {
      auto f = pool.acquire(s1);
      CDN_CUDA_CHECK(cudaMemset2DAsync(f->view().data[0], f->view().pitch[0], round + 1, 4096, 2048, s1));
    }  // released on s1 with work still queued
    auto g = pool.acquire(s2);  // must wait for s1's memset on the device
    CDN_CUDA_CHECK(cudaMemcpy2DAsync(host.data(), 4096, static_cast<char*>(g->view().data[0]) + 2047 * g->view().pitch[0],
                                     g->view().pitch[0], 4096, 1, cudaMemcpyDeviceToHost, s2));
    CDN_CUDA_CHECK(cudaStreamSynchronize(s2));
    EXPECT_EQ(host[4095], round + 1);
  }
  CDN_CUDA_CHECK(cudaStreamDestroy(s1));
  CDN_CUDA_CHECK(cudaStreamDestroy(s2));
}

#else

TEST(GpuPipd, RequiresCudaBuild) { GTEST_SKIP() << "built without CUDA (-Dcuda=disabled or no nvcc): no GPU tests"; }

#endif

}  // namespace
}  // namespace cdn
