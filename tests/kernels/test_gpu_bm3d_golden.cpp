// test_gpu_bm3d_golden.cpp: the BM3D and V-BM3D CUDA kernels give the same bytes
// before and after a change that must not change them (issue 34, item 5: the two
// came to share their device code). GPU and CPU differ by float rounding, so the
// GPU's bytes cannot be pinned on a machine without a GPU: this test hashes the
// outputs of bm3d_family_cases.h (BM3D with the fast and the first kernels,
// V-BM3D), prints them, and with CDN_GPU_GOLDEN=<prefix> writes each test's to
// <prefix>.bm3d and <prefix>.vbm3d when the file does not exist, else requires
// every hash to equal the file's. Run it once on the code before the change
// (writes), once after (compares), on the same GPU. Every test skips, with the reason, where no CUDA device can be used.
#include "test_support.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "bm3d/bm3d_cuda.h"
#include "bm3d_family_cases.h"
#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "vbm3d/vbm3d_cuda.h"
#endif

namespace cdn {
namespace {

#ifdef CDN_HAVE_CUDA

using test::Fnv64;

// Hashes of this run, by case; checked against or written to CDN_GPU_GOLDEN.<suffix>.
class GoldenFile {
 public:
  explicit GoldenFile(const char* suffix) : suffix_(suffix) {}
  void add(const std::string& name, std::uint64_t h) {
    std::printf("%016llx %s\n", static_cast<unsigned long long>(h), name.c_str());
    got_.emplace_back(name, h);
  }
  void finish() {
    const char* prefix = std::getenv("CDN_GPU_GOLDEN");
    if (!prefix) return;
    const std::string path = std::string(prefix) + "." + suffix_;
    std::ifstream in(path);
    if (!in) {
      std::ofstream out(path, std::ios::app);
      for (const auto& [name, h] : got_) out << std::hex << h << ' ' << name << '\n';
      std::printf("CDN_GPU_GOLDEN: %zu hashes written to %s\n", got_.size(), path.c_str());
      return;
    }
    std::map<std::string, std::uint64_t> want;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream s(line);
      std::uint64_t h = 0;
      s >> std::hex >> h;
      std::string name;
      std::getline(s >> std::ws, name);
      want[name] = h;
    }
    for (const auto& [name, h] : got_) {
      const auto it = want.find(name);
      if (it == want.end()) {
        ADD_FAILURE() << name << ": not in " << path;
        continue;
      }
      EXPECT_EQ(h, it->second) << name << ": the GPU output bytes changed";
    }
    EXPECT_EQ(want.size(), got_.size()) << path << " holds other cases";
  }

 private:
  std::string suffix_;
  std::vector<std::pair<std::string, std::uint64_t>> got_;
};

TEST(GpuBm3dGolden, Bm3dOutputsHash) {
  CDN_REQUIRE_GPU();
  GoldenFile golden("bm3d");
  for (const test::Bm3dCase& k : test::bm3d_cases()) {
    const HostFrame in = test::synthetic_frame(k.format, k.width, k.height, 0, 12, 7);
    CudaFramePool pool(k.format, k.width, k.height, 2);
    auto din = pool.acquire(nullptr), dout = pool.acquire(nullptr);
    copy_frame_async(in.view(), din->view(), nullptr);
    CDN_CUDA_CHECK(cudaDeviceSynchronize());
    for (bool first_kernels : {false, true}) {
      Bm3dCuda bm3d;
      bm3d.set_reference_kernels(first_kernels);
      const std::vector<PlaneView> ci = components(din->view()), co = components(dout->view());
      bm3d.run(ci, co, static_cast<int>(ci.size()), k.params, k.sigma, nullptr);
      HostFrame out(k.format, k.width, k.height);
      copy_frame_async(dout->view(), out.view(), nullptr);
      CDN_CUDA_CHECK(cudaDeviceSynchronize());
      Fnv64 h;
      test::hash_frame(h, out.view());
      golden.add("bm3d " + k.name + (first_kernels ? " first kernels" : ""), h.h);
    }
  }
  golden.finish();
}

TEST(GpuBm3dGolden, Vbm3dOutputsHash) {
  CDN_REQUIRE_GPU();
  GoldenFile golden("vbm3d");
  for (const test::Vbm3dCase& k : test::vbm3d_cases()) {
    const int outs = k.out_end - k.out_begin;
    CudaFramePool pool(k.format, k.width, k.height, k.frames + outs);
    std::vector<CudaFramePool::Handle> din, dout;
    std::vector<FrameView> window, out_views;
    for (int f = 0; f < k.frames; ++f) {
      const HostFrame frame = test::synthetic_frame(k.format, k.width, k.height, f, 12, 11);
      din.push_back(pool.acquire(nullptr));
      copy_frame_async(frame.view(), din.back()->view(), nullptr);
      CDN_CUDA_CHECK(cudaDeviceSynchronize());
      window.push_back(din.back()->view());
    }
    for (int i = 0; i < outs; ++i) {
      dout.push_back(pool.acquire(nullptr));
      out_views.push_back(dout.back()->view());
    }
    for (int batch : {0, 37}) {  // the default batch, and batches that split rows
      Vbm3dCuda vbm3d;
      if (batch) vbm3d.set_batch_references(batch);
      vbm3d.run(window, k.out_begin, k.out_end, out_views, format_info(k.format).components, k.params, k.sigma,
                nullptr);
      Fnv64 h;
      for (const FrameView& v : out_views) {
        HostFrame out(k.format, k.width, k.height);
        copy_frame_async(v, out.view(), nullptr);
        CDN_CUDA_CHECK(cudaDeviceSynchronize());
        test::hash_frame(h, out.view());
      }
      golden.add("vbm3d " + k.name + (batch ? " batch 37" : ""), h.h);
    }
  }
  golden.finish();
}

#else

TEST(GpuBm3dGolden, NeedsCuda) { GTEST_SKIP() << "built without CUDA (nvcc not found or -Dcuda=disabled)"; }

#endif

}  // namespace
}  // namespace cdn
