// test_gpu_nlm3d.cpp: the CUDA temporal mode against the CPU reference (float
// against double: identical on at least 99.99% of samples, never more than one
// code value apart), chunk invariance on the GPU, device-frame streams, the
// paper's configurations, 2D patches, motion-centred windows (the kernel given
// motion fields directly: the streams do not make them yet), odd sizes and
// deep formats. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/named_sets.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/stream_denoiser.h"
#include "test_nlm3d_support.h"
#include "test_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "nlm3d/nlm3d_confidence.h"
#include "nlm3d/nlm3d_cuda.h"
#include "nlm3d/nlm3d_guide.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

std::vector<HostFrame> run(Backend b, const DenoiseSettings& s, const std::vector<HostFrame>& in,
                           const std::vector<int>& devices = {}) {
  const FrameView& f0 = in[0].view();
  auto d = StreamDenoiser::create(b, s, f0.format, f0.width, f0.height, devices);
  EXPECT_EQ(d->backend(), b);
  return test::run_clip(*d, in);
}

// Fraction of samples that differ; fails on any difference above one code value.
double compare(const std::vector<HostFrame>& a, const std::vector<HostFrame>& b, const std::string& what) {
  EXPECT_EQ(a.size(), b.size()) << what;
  long n = 0, diff = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const auto ca = components(a[i].view()), cb = components(b[i].view());
    for (std::size_t c = 0; c < ca.size(); ++c)
      for (int y = 0; y < ca[c].height; ++y)
        for (int x = 0; x < ca[c].width; ++x) {
          const int d = std::abs(ca[c].get(x, y) - cb[c].get(x, y));
          EXPECT_LE(d, 1) << what << " frame " << i << " component " << c << " at " << x << "," << y;
          if (d > 1) return 1.0;
          diff += d != 0;
          ++n;
        }
  }
  const double frac = n ? double(diff) / n : 0.0;
  std::printf("%s: %ld of %ld samples differ by one code value (%.5f%%)\n", what.c_str(), diff, n, 100 * frac);
  EXPECT_LE(frac, 1e-4) << what;
  return frac;
}

DenoiseSettings nlm(int R, int Rt, int r, int chunk) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.nlm = nlm_paper_params();  // cubes
  s.nlm.search_radius = R;
  s.nlm.temporal_radius = Rt;
  s.nlm.patch_radius = r;
  s.sigma = 18;
  s.nlm.chunk_size = chunk;
  return s;
}

TEST(GpuNlm3d, MatchesTheCpuReference) {
  CDN_REQUIRE_GPU();
  const auto in = test::moving_noisy_clip(PixelFormat::GRAY8, 14, 61, 37, 1);
  compare(run(Backend::Cuda, nlm(5, 5, 1, 6), in), run(Backend::Cpu, nlm(5, 5, 1, 6), in), "11^3 / 3^3");
  compare(run(Backend::Cuda, nlm(2, 1, 0, 4), in), run(Backend::Cpu, nlm(2, 1, 0, 4), in), "5x5x3 / 1^3");
}

TEST(GpuNlm3d, PaperConfigurationsRun) {
  CDN_REQUIRE_GPU();
  const auto in = test::moving_noisy_clip(PixelFormat::GRAY8, 12, 40, 24, 2);
  compare(run(Backend::Cuda, nlm(10, 10, 2, 50), in), run(Backend::Cpu, nlm(10, 10, 2, 50), in), "21^3 / 5^3");
  compare(run(Backend::Cuda, nlm(5, 5, 2, 50), in), run(Backend::Cpu, nlm(5, 5, 2, 50), in), "11^3 / 5^3");
}

TEST(GpuNlm3d, EveryFormatAndOddSizes) {
  CDN_REQUIRE_GPU();
  // Colour formats: chroma with the luma's weights (one pass for 4:4:4, a 2x2 luma guide for 4:2:0).
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::P016_LE, PixelFormat::I420,
                        PixelFormat::Y444}) {
    const auto in = test::moving_noisy_clip(f, 5, 35, 21, 3);
    compare(run(Backend::Cuda, nlm(3, 2, 1, 3), in), run(Backend::Cpu, nlm(3, 2, 1, 3), in), format_name(f));
  }
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12})
    for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {7, 5}}) {
      const auto in = test::moving_noisy_clip(f, 3, w, h, 4);
      compare(run(Backend::Cuda, nlm(5, 5, 1, 50), in), run(Backend::Cpu, nlm(5, 5, 1, 50), in),
              std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h));
    }
}

TEST(GpuNlm3d, EstimatedSigmaMatchesTheCpu) {
  CDN_REQUIRE_GPU();
  // sigma = 0: both backends estimate it from the first frame's luma (the GPU
  // brings only that plane to the host), so the outputs agree as with a given sigma.
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::Y444}) {
    DenoiseSettings s = nlm(3, 2, 1, 3);
    s.sigma = 0;
    const auto in = test::moving_noisy_clip(f, 5, 48, 40, 7);
    compare(run(Backend::Cuda, s, in), run(Backend::Cpu, s, in), std::string("estimated sigma, ") + format_name(f));
  }
}

TEST(GpuNlm3d, ChunkBordersDoNotMatterOnTheGpu) {
  CDN_REQUIRE_GPU();
  // Under compute-sanitizer (CDN_TEST_SMALL) a shorter stream with the same structure.
  const bool small = std::getenv("CDN_TEST_SMALL") != nullptr;
  const int frames = small ? 30 : 120, chunk = small ? 7 : 50;
  const auto in = test::moving_noisy_clip(PixelFormat::GRAY8, frames, 64, 48, 5);
  const auto whole = run(Backend::Cuda, nlm(5, 5, 1, frames), in);
  const auto chunked = run(Backend::Cuda, nlm(5, 5, 1, chunk), in);
  ASSERT_EQ(whole.size(), std::size_t(frames));
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const PlaneView a = components(whole[i].view())[0], b = components(chunked[i].view())[0];
    for (int y = 0; y < a.height; ++y)
      for (int x = 0; x < a.width; ++x) ASSERT_EQ(a.get(x, y), b.get(x, y)) << "frame " << i;
  }
}

// Chunks spread over several workers give the same frames as one device, bit for
// bit: {0, 0} runs two workers on one GPU (the same code path), {0, 1} two GPUs.
TEST(GpuNlm3d, SeveralDevicesGiveTheSameOutput) {
  CDN_REQUIRE_GPU();
  int count = 0;
  CDN_CUDA_CHECK(cudaGetDeviceCount(&count));
  const bool small = std::getenv("CDN_TEST_SMALL") != nullptr;
  const int frames = small ? 30 : 120;
  std::vector<std::vector<int>> lists = {{0}, {0, 0}, {0, 0, 0}};
  if (count >= 2) lists.push_back({0, 1});
  if (count >= 2) lists.push_back({1, 0, 1});
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::P010_10LE}) {
    const auto in = test::moving_noisy_clip(f, frames, 64, 48, 9);
    for (int chunk : {50, 7}) {
      const DenoiseSettings s = nlm(3, 2, 1, small ? 5 : chunk);
      const auto one = run(Backend::Cuda, s, in);
      ASSERT_EQ(one.size(), in.size());
      for (const auto& devices : lists) {
        const auto many = run(Backend::Cuda, s, in, devices);
        ASSERT_EQ(many.size(), one.size());
        std::string name;
        for (int d : devices) name += std::to_string(d) + " ";
        for (std::size_t i = 0; i < one.size(); ++i) {
          const auto a = components(one[i].view()), b = components(many[i].view());
          for (std::size_t c = 0; c < a.size(); ++c)
            for (int y = 0; y < a[c].height; ++y)
              for (int x = 0; x < a[c].width; ++x)
                ASSERT_EQ(a[c].get(x, y), b[c].get(x, y))
                    << format_name(f) << " chunk " << chunk << " devices " << name << "frame " << i << " component " << c;
        }
        std::printf("%s chunk %d, devices { %s}: %zu frames identical to one device\n", format_name(f), s.nlm.chunk_size,
                    name.c_str(), many.size());
      }
    }
  }
  if (count < 2) std::printf("only %d CUDA device: the two-GPU lists were left out\n", count);
}

TEST(GpuNlm3d, UnknownDeviceIsRefused) {
  CDN_REQUIRE_GPU();
  int count = 0;
  CDN_CUDA_CHECK(cudaGetDeviceCount(&count));
  EXPECT_THROW(StreamDenoiser::create(Backend::Cuda, nlm(3, 2, 1, 4), PixelFormat::GRAY8, 16, 16, {0, count}),
               InvalidArgument);
}

TEST(GpuNlm3d, TheLargestCubesRunOrAreRefusedAtCreation) {
  CDN_REQUIRE_GPU();
  // 21^2 x 3 search, 7^3 patches, three components in one pass (Y444): the most
  // shared memory any valid setting needs. Where the GPU has it, the output
  // matches the CPU; where not, making the stream fails and says why.
  const DenoiseSettings s = nlm(10, 1, 3, 4);
  int device = 0, limit = 0;
  CDN_CUDA_CHECK(cudaGetDevice(&device));
  CDN_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t need = nlm3d_cuda_shared_bytes(nlm_params(s.nlm, false), 3);
  std::printf("21^2 x 3 / 7^3, 3 components: %zu KiB of shared memory per block, the GPU allows %d KiB\n", need / 1024,
              limit / 1024);
  if (need <= static_cast<std::size_t>(limit)) {
    const auto in = test::moving_noisy_clip(PixelFormat::Y444, 4, 40, 36, 21);
    compare(run(Backend::Cuda, s, in), run(Backend::Cpu, s, in), "largest cubes");
  } else {
    try {
      StreamDenoiser::create(Backend::Cuda, s, PixelFormat::Y444, 40, 36);
      ADD_FAILURE() << "a configuration beyond the GPU's shared memory was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
    }
  }
}

TEST(GpuNlm3d, DeviceFramesStayOnTheDevice) {
  CDN_REQUIRE_GPU();
  const auto in = test::moving_noisy_clip(PixelFormat::NV12, 9, 64, 32, 6);
  const auto want = run(Backend::Cpu, nlm(3, 2, 1, 4), in);
  auto d = StreamDenoiser::create(Backend::Cuda, nlm(3, 2, 1, 4), PixelFormat::NV12, 64, 32);
  CudaFramePool pool(PixelFormat::NV12, 64, 32, 2);
  std::vector<HostFrame> got;
  auto upload = [&](const FrameView& host, const FrameView& dev) {
    for (int p = 0; p < 2; ++p)
      CDN_CUDA_CHECK(cudaMemcpy2D(dev.data[p], dev.pitch[p], host.data[p], host.pitch[p],
                                  plane_row_bytes(host.format, host.width, p), plane_height(host.format, host.height, p),
                                  cudaMemcpyHostToDevice));
  };
  CudaFramePool::Handle out;  // the device frame the next output goes into
  FunctionSink sink([&] { return (out = pool.acquire(nullptr))->view(); },
                    [&] {
                      HostFrame h(PixelFormat::NV12, 64, 32);
                      for (int p = 0; p < 2; ++p)
                        CDN_CUDA_CHECK(cudaMemcpy2D(h.view().data[p], h.view().pitch[p], out->view().data[p],
                                                    out->view().pitch[p], plane_row_bytes(PixelFormat::NV12, 64, p),
                                                    plane_height(PixelFormat::NV12, 32, p), cudaMemcpyDeviceToHost));
                      got.push_back(std::move(h));
                      out.reset();
                      return true;
                    });
  for (const auto& f : in) {
    auto dev = pool.acquire(nullptr);
    upload(f.view(), dev->view());
    feed(*d, dev->view(), sink);
  }
  drain(*d, sink);
  compare(got, want, "device frames");
}

DenoiseSettings planar(int R, int Rt, int r, int chunk, bool offset = false) {
  DenoiseSettings s = nlm(R, Rt, r, chunk);
  s.nlm.patch_shape = NlmPatchShape::Planar;
  s.nlm.distance_offset = offset;
  s.nlm.beta = 0.25;
  return s;
}

TEST(GpuNlm3d, PlanarPatchesMatchTheCpuReference) {
  CDN_REQUIRE_GPU();
  const auto in = test::moving_noisy_clip(PixelFormat::GRAY8, 9, 77, 45, 31);
  compare(run(Backend::Cuda, planar(2, 3, 4, 4), in), run(Backend::Cpu, planar(2, 3, 4, 4), in), "2d 5x5x7 / 9x9");
  compare(run(Backend::Cuda, planar(2, 3, 4, 4, true), in), run(Backend::Cpu, planar(2, 3, 4, 4, true), in),
          "2d 5x5x7 / 9x9, distance-offset");
  compare(run(Backend::Cuda, planar(5, 2, 2, 9), in), run(Backend::Cpu, planar(5, 2, 2, 9), in), "2d 11x11x5 / 5x5");
  compare(run(Backend::Cuda, planar(1, 1, 0, 3), in), run(Backend::Cpu, planar(1, 1, 0, 3), in), "2d 3x3x3 / 1x1");
  DenoiseSettings wide = planar(1, 2, 3, 4);
  wide.nlm.neighbour_search_radius = 4;  // a larger window in the other frames
  compare(run(Backend::Cuda, wide, in), run(Backend::Cpu, wide, in), "2d 3x3 in t, 9x9 in t+-1, t+-2 / 7x7");
  for (PixelFormat f : {PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::I420, PixelFormat::Y444}) {
    const auto c = test::moving_noisy_clip(f, 5, 35, 21, 32);
    compare(run(Backend::Cuda, planar(2, 2, 3, 2, true), c), run(Backend::Cpu, planar(2, 2, 3, 2, true), c),
            std::string("2d, ") + format_name(f));
  }
  // The papers' cubes with distance-offset (the cube kernel's weight).
  DenoiseSettings cube = nlm(3, 2, 1, 4);
  cube.nlm.distance_offset = true;
  compare(run(Backend::Cuda, cube, in), run(Backend::Cpu, cube, in), "cube 7x7x5 / 3^3, distance-offset");
}

// Issue 33 item 9: frames smaller than the patch (and the tile), clean, at sigma
// 0.5: most weights lie far below self-weight-floor, many below what float holds
// (expf gives 0 where the reference's exp does not; with the papers' self weight
// alone the two then differed by several code values). The defaults through the
// streams (motion estimated on frames smaller than a motion cell), one frame and
// three, and the cube kernel with the floor. All sizes in one comparison.
TEST(GpuNlm3d, TinyCleanFramesMatchTheCpuReference) {
  CDN_REQUIRE_GPU();
  std::vector<std::pair<int, int>> sizes;
  for (int w = 1; w <= 8; ++w)
    for (int h = 1; h <= 8; ++h) sizes.push_back({w, h});
  for (auto wh : {std::pair{3, 5}, {2, 17}, {17, 2}, {40, 3}}) sizes.push_back(wh);
  DenoiseSettings video;
  video.mode = Mode::Nlm3d;  // NlmSettings{}, the video defaults
  video.sigma = 0.5;
  DenoiseSettings cube = nlm(3, 1, 1, 50);
  cube.sigma = 0.5;
  cube.nlm.self_weight_floor = video.nlm.self_weight_floor;
  for (const DenoiseSettings& s : {video, cube})
    for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::Y444})
      for (int frames : {1, 3}) {
        std::vector<HostFrame> gpu, cpu;
        for (auto [w, h] : sizes) {
          std::vector<HostFrame> in;
          for (int i = 0; i < frames; ++i) {
            in.emplace_back(f, w, h);
            int k = 0;
            for (const auto& p : components(in.back().view())) {
              for (int y = 0; y < p.height; ++y)
                for (int x = 0; x < p.width; ++x) p.set(x, y, 100 + (4 + 9 * k) * ((x + 2 * y + i + k) % 5));
              ++k;
            }
          }
          for (auto& o : run(Backend::Cuda, s, in)) gpu.push_back(std::move(o));
          for (auto& o : run(Backend::Cpu, s, in)) cpu.push_back(std::move(o));
        }
        compare(gpu, cpu, std::string(s.nlm.patch_shape == NlmPatchShape::Cube ? "cube" : "defaults") +
                              ", tiny clean frames, " + format_name(f) + ", " + std::to_string(frames) + " frame(s)");
      }
}

// The defaults (the video settings): the streams estimate the motion fields on
// each backend (motion_cuda.h equals motion_reference.h bit for bit), so the GPU
// output equals the CPU reference's within the kernels' bound, on every format;
// the content moves 2 px per frame, so the fields are not zero. Causal too, and
// fast-nomotion (no fields, frame confidence where the moving content mismatches).
TEST(GpuNlm3d, DefaultsWithStreamMotionMatchTheCpuReference) {
  CDN_REQUIRE_GPU();
  const bool small = std::getenv("CDN_TEST_SMALL") != nullptr;
  DenoiseSettings video;
  video.mode = Mode::Nlm3d;
  video.sigma = 18;
  video.nlm.chunk_size = 4;
  DenoiseSettings causal = video;
  causal.window = TemporalWindow::Causal;
  DenoiseSettings still = video;
  still.nlm = named_set_settings("nlm3d", "fast-nomotion").nlm;
  still.nlm.chunk_size = 4;
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::Y444}) {
    const auto c = test::moving_noisy_clip(f, small ? 6 : 10, small ? 48 : 83, small ? 32 : 52, 34);
    compare(run(Backend::Cuda, video, c), run(Backend::Cpu, video, c), std::string("video defaults, ") + format_name(f));
    compare(run(Backend::Cuda, causal, c), run(Backend::Cpu, causal, c), std::string("video, causal, ") + format_name(f));
    compare(run(Backend::Cuda, still, c), run(Backend::Cpu, still, c), std::string("fast-nomotion, ") + format_name(f));
  }
}

TEST(GpuNlm3d, DefaultsChunkBordersDoNotMatter) {
  CDN_REQUIRE_GPU();
  const auto in = test::moving_noisy_clip(PixelFormat::NV12, 24, 64, 48, 35);
  DenoiseSettings a;
  a.mode = Mode::Nlm3d;
  a.sigma = 18;
  a.nlm.chunk_size = 24;
  DenoiseSettings b = a;
  b.nlm.chunk_size = 5;
  const auto whole = run(Backend::Cuda, a, in);
  const auto chunked = run(Backend::Cuda, b, in);
  ASSERT_EQ(whole.size(), in.size());
  ASSERT_EQ(chunked.size(), in.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const auto x = components(whole[i].view()), y = components(chunked[i].view());
    for (std::size_t c = 0; c < x.size(); ++c)
      for (int r = 0; r < x[c].height; ++r)
        for (int q = 0; q < x[c].width; ++q) ASSERT_EQ(x[c].get(q, r), y[c].get(q, r)) << "frame " << i;
  }
}

TEST(GpuNlm3d, PlanarChunkBordersDoNotMatter) {
  CDN_REQUIRE_GPU();
  const auto in = test::moving_noisy_clip(PixelFormat::NV12, 40, 64, 48, 33);
  const auto whole = run(Backend::Cuda, planar(2, 3, 4, 40), in);
  const auto chunked = run(Backend::Cuda, planar(2, 3, 4, 7), in);
  ASSERT_EQ(whole.size(), in.size());
  ASSERT_EQ(chunked.size(), in.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const auto a = components(whole[i].view()), b = components(chunked[i].view());
    for (std::size_t c = 0; c < a.size(); ++c)
      for (int y = 0; y < a[c].height; ++y)
        for (int x = 0; x < a[c].width; ++x) ASSERT_EQ(a[c].get(x, y), b[c].get(x, y)) << "frame " << i;
  }
}

// Device memory freed when the test leaves.
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { CDN_CUDA_CHECK(cudaMalloc(&p, bytes)); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// The whole clip as one chunk through nlm3d_cuda_chunk, every pass, with the
// fields (copied to the device) when given; all components filtered. With
// frame-confidence the luma pass first computes the factors (nlm3d_cuda_confidence),
// copied into *factors when asked for.
std::vector<HostFrame> gpu_chunk(const std::vector<HostFrame>& in, const NlmParams& p, double sigma,
                                 const test::HostFields* fields, std::vector<float>* factors = nullptr) {
  const FrameView& f0 = in[0].view();
  const int n = static_cast<int>(in.size()), planes = format_info(f0.format).planes;
  CudaFramePool pool(f0.format, f0.width, f0.height, 2 * n);
  std::vector<CudaFramePool::Handle> din, dout;
  for (const auto& f : in) {
    din.push_back(pool.acquire(nullptr));
    dout.push_back(pool.acquire(nullptr));
    for (int q = 0; q < planes; ++q) {
      for (auto* d : {&din.back()->view(), &dout.back()->view()})
        CDN_CUDA_CHECK(cudaMemcpy2D(d->data[q], d->pitch[q], f.view().data[q], f.view().pitch[q],
                                    plane_row_bytes(f0.format, f0.width, q), plane_height(f0.format, f0.height, q),
                                    cudaMemcpyHostToDevice));
    }
  }
  std::vector<std::unique_ptr<DeviceBuffer>> keep;
  auto to_device = [&](const void* host, std::size_t bytes) {
    keep.push_back(std::make_unique<DeviceBuffer>(bytes));
    CDN_CUDA_CHECK(cudaMemcpy(keep.back()->p, host, bytes, cudaMemcpyHostToDevice));
    return keep.back()->p;
  };
  const NlmMotionField* dfields = nullptr;
  if (fields) {
    std::vector<NlmMotionField> f = fields->fields;
    for (std::size_t i = 0; i < f.size(); ++i)
      f[i].v = static_cast<const std::int16_t*>(
          to_device(fields->storage[i].data(), fields->storage[i].size() * sizeof(std::int16_t)));
    dfields = static_cast<const NlmMotionField*>(to_device(f.data(), f.size() * sizeof(NlmMotionField)));
  }
  int device = 0;
  CDN_CUDA_CHECK(cudaGetDevice(&device));
  const std::size_t nfactors = n * nlm_confidence_floats(p, f0.width, f0.height);
  DeviceBuffer dfactors(p.frame_confidence > 0 ? nfactors * sizeof(float) : 1);
  CDN_CUDA_CHECK(cudaMemset(dfactors.p, 0xff, p.frame_confidence > 0 ? nfactors * sizeof(float) : 1));  // NaN: unwritten
  for (const NlmPass& pass : nlm_passes(f0.format, format_info(f0.format).components)) {
    const int nv = static_cast<int>(pass.values.size());
    NlmChunk k;
    std::vector<const void*> guide;
    for (const auto& d : din) guide.push_back(components(d->view())[0].data);
    k.guide_proto = components(din[0]->view())[0];
    k.guide_window = static_cast<const void* const*>(to_device(guide.data(), n * sizeof(void*)));
    k.fx = pass.fx;
    k.fy = pass.fy;
    k.values = nv;
    for (int v = 0; v < nv; ++v) {
      std::vector<const void*> vals;
      std::vector<void*> outs;
      for (int i = 0; i < n; ++i) {
        vals.push_back(components(din[i]->view())[pass.values[v]].data);
        outs.push_back(components(dout[i]->view())[pass.values[v]].data);
      }
      k.value_proto[v] = components(din[0]->view())[pass.values[v]];
      k.value_window[v] = static_cast<const void* const*>(to_device(vals.data(), n * sizeof(void*)));
      k.out_proto[v] = components(dout[0]->view())[pass.values[v]];
      k.outputs[v] = static_cast<void* const*>(to_device(outs.data(), n * sizeof(void*)));
    }
    k.window_first = 0;
    k.window_count = n;
    k.stream_length = n;
    k.out_first = 0;
    k.out_count = n;
    k.motion = dfields;
    k.motion_cell = fields ? fields->cell : 16;
    if (p.frame_confidence > 0) {
      if (pass.fx == 1 && pass.fy == 1) nlm3d_cuda_confidence(k, p, sigma, static_cast<float*>(dfactors.p), nullptr);
      k.confidence = nlm_confidence_view(static_cast<const float*>(dfactors.p), p, f0.width, f0.height, pass.fx, pass.fy);
    }
    nlm3d_cuda_check_device(p, nv, device);
    nlm3d_cuda_chunk(k, p, sigma, nullptr);
  }
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  if (factors && p.frame_confidence > 0) {
    factors->resize(nfactors);
    CDN_CUDA_CHECK(cudaMemcpy(factors->data(), dfactors.p, nfactors * sizeof(float), cudaMemcpyDeviceToHost));
  }
  std::vector<HostFrame> out;
  for (int i = 0; i < n; ++i) {
    out.emplace_back(f0.format, f0.width, f0.height);
    for (int q = 0; q < planes; ++q)
      CDN_CUDA_CHECK(cudaMemcpy2D(out.back().view().data[q], out.back().view().pitch[q], dout[i]->view().data[q],
                                  dout[i]->view().pitch[q], plane_row_bytes(f0.format, f0.width, q),
                                  plane_height(f0.format, f0.height, q), cudaMemcpyDeviceToHost));
  }
  return out;
}

TEST(GpuNlm3d, MotionSearchMatchesTheCpuReference) {
  CDN_REQUIRE_GPU();
  std::mt19937 rng(5);
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::P010_10LE, PixelFormat::Y444}) {
    const int w = 83, h = 51, frames = 6;
    const auto in = test::moving_noisy_clip(f, frames, w, h, 40);
    const double sigma = 18.0 * (1 << (components(in[0].view())[0].bit_depth - 8));
    NlmParams p;  // 7x7 in frame t, 5x5 in the others
    p.temporal_radius = 2;
    // A known global shift, per-cell vectors, and vectors spread beyond a tile's
    // shared memory (cells of 16: 4:2:0 chroma takes 8 rows of each).
    const auto shift = test::make_fields(frames, 2, w, h, 16, [](int, int dt, int, int) {
      return std::pair{2 * dt, -dt};
    });
    const auto cells = test::make_fields(frames, 2, w, h, 16, [&](int, int dt, int, int) {
      return std::pair{int(rng() % 9) - 4 + dt, int(rng() % 7) - 3};
    });
    const auto spread = test::make_fields(frames, 2, w, h, 16, [&](int, int dt, int cx, int) {
      return std::pair{(cx % 2 ? 21 : -19) * (dt != 0), int(rng() % 41) - 20};
    });
    for (const auto& [name, fields] : {std::pair{"global shift", &shift}, {"per-cell vectors", &cells},
                                       {"spread vectors", &spread}}) {
      p.distance_offset = fields == &cells;
      compare(gpu_chunk(in, p, sigma, fields), test::reference_clip(in, p, sigma, fields),
              std::string("motion-search, ") + name + ", " + format_name(f));
    }
    // Without motion, the same kernel.
    p.motion_search = false;
    compare(gpu_chunk(in, p, sigma, nullptr), test::reference_clip(in, p, sigma, nullptr),
            std::string("2d without motion, ") + format_name(f));
  }
}

// frame-confidence: the kernel's factors against the reference's (8-bit distances are
// exact integers in float, so equal up to exp's last bit; 10-bit within rounding), every
// entry written, then the filter with them; cells of 16 and 32, frames cut by the cells.
// (The cases of patch radius 1 and 2 were added after the last GPU run of 2026-11-27;
// nlm3d_confidence_block.h's search is checked for every radius in CI.)
TEST(GpuNlm3d, FrameConfidenceMatchesTheCpuReference) {
  CDN_REQUIRE_GPU();
  const bool small = std::getenv("CDN_TEST_SMALL") != nullptr;  // the sanitizers' size
  std::mt19937 rng(9);
  for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::P010_10LE}) {
    const int w = small ? 45 : 83, h = small ? 35 : 51, frames = small ? 4 : 6;
    const auto in = test::moving_noisy_clip(f, frames, w, h, 43);
    const double sigma = 18.0 * (1 << (components(in[0].view())[0].bit_depth - 8));
    const auto cells = test::make_fields(frames, 2, w, h, 16, [&](int, int dt, int cx, int) {
      return std::pair{cx == 2 ? 30 * dt : int(rng() % 9) - 4 + 2 * dt, int(rng() % 7) - 3};
    });
    // The defaults' radii (patch 4, windows of 2 in the others), then other radii: groups of
    // offsets past the window (radius 1 and 3), other kernel instantiations (patch 1 and 2).
    struct Radii {
      int cell, patch, neighbour;
      bool motion;
    };
    for (const Radii& rc : {Radii{16, 4, 2, true}, Radii{16, 4, 2, false}, Radii{32, 4, 2, true},
                            Radii{32, 4, 2, false}, Radii{32, 1, 1, true}, Radii{16, 2, 3, true}}) {
      NlmParams p;
      p.temporal_radius = 2;
      p.confidence_cell = rc.cell;
      p.frame_confidence = 0.3;
      p.motion_search = rc.motion;
      p.patch_radius = rc.patch;
      p.neighbour_search_radius = rc.neighbour;
      const bool motion = rc.motion;
      const std::string what = std::string("confidence, cells of ") + std::to_string(rc.cell) + ", patch radius " +
                               std::to_string(rc.patch) + ", windows of radius " + std::to_string(rc.neighbour) +
                               (motion ? ", motion, " : ", no motion, ") + format_name(f);
      std::vector<float> got;
      const auto out = gpu_chunk(in, p, sigma, motion ? &cells : nullptr, &got);
      FrameWindow luma;
      luma.stream_length = frames;
      for (const auto& fr : in) luma.frames.push_back(components(fr.view())[0]);
      std::size_t k = 0;
      double worst = 0;
      for (int t = 0; t < frames; ++t) {
        NlmMotion m{cells.of_frame(t), 1, 1};
        for (float want : nlm_frame_confidence(luma, t, p, sigma, motion ? &m : nullptr)) {
          ASSERT_LT(k, got.size());
          ASSERT_FALSE(std::isnan(got[k])) << what << ": entry " << k << " not written";
          worst = std::max(worst, std::fabs(double(got[k]) - want));
          ++k;
        }
      }
      std::printf("%s: factors at most %.3g from the reference's\n", what.c_str(), worst);
      EXPECT_LE(worst, components(in[0].view())[0].bit_depth == 8 ? 1e-6 : 1e-3) << what;
      compare(out, test::reference_clip(in, p, sigma, motion ? &cells : nullptr), what);
    }
  }
}

TEST(GpuNlm3d, MotionSearchNeedsFieldsOfAFittingCell) {
  CDN_REQUIRE_GPU();
  const auto in = test::moving_noisy_clip(PixelFormat::NV12, 3, 32, 32, 41);
  NlmParams p = nlm_params(nlm_paper_params(), false);
  p.patch_shape = NlmPatchShape::Planar;
  p.motion_search = true;
  p.temporal_radius = 1;
  EXPECT_THROW(gpu_chunk(in, p, 18.0, nullptr), InvalidArgument);
  // Cells of 8 luma rows give the 4:2:0 chroma pass cells of 4 rows: refused.
  const auto fine = test::make_fields(3, 1, 32, 32, 8, [](int, int, int, int) { return std::pair{0, 0}; });
  EXPECT_THROW(gpu_chunk(in, p, 18.0, &fine), InvalidArgument);
}

TEST(GpuNlm3d, TheLargestPlanarSearchRunsOrIsRefusedAtCreation) {
  CDN_REQUIRE_GPU();
  DenoiseSettings s = planar(10, 1, 4, 4);
  int device = 0, limit = 0;
  CDN_CUDA_CHECK(cudaGetDevice(&device));
  CDN_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t need = nlm3d_cuda_shared_bytes(nlm_params(s.nlm, false), 3);
  std::printf("2d 21^2 x 3 / 9x9, 3 components: %zu KiB of shared memory per block, the GPU allows %d KiB\n",
              need / 1024, limit / 1024);
  ASSERT_LE(need, static_cast<std::size_t>(limit)) << "an H100/H200 has room for every 2D setting";
  const auto in = test::moving_noisy_clip(PixelFormat::Y444, 4, 40, 36, 42);
  compare(run(Backend::Cuda, s, in), run(Backend::Cpu, s, in), "largest 2d search");
}

#else
TEST(GpuNlm3d, RequiresCudaBuild) { GTEST_SKIP() << "built without CUDA: no GPU tests"; }
#endif

}  // namespace
}  // namespace cdn
