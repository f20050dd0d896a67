// nlm3d_table.cpp: the NLM-3D kernel timings of cudadenoise-bench (nlm3d_table.h).
#include "nlm3d_table.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "content.h"
#include "cudadenoise/named_sets.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "nlm3d/nlm3d_cuda.h"
#include "nlm3d/nlm3d_guide.h"
#endif

namespace cdn::bench {

namespace {

struct Row {
  const char* name;
  NlmParams params;
};

// nlm3d's named sets (named_sets.h), their causal window applied to the parameters.
std::vector<Row> rows() {
  std::vector<Row> v;
  for (const NamedSet* set : named_sets_of("nlm3d")) {
    const DenoiseSettings s = named_set_settings(*set);
    v.push_back({set->name, nlm_params(s.nlm, resolve_window(s, false) == TemporalWindow::Causal)});
  }
  return v;
}

// Candidates per pixel: every frame's window (the other frames' may be smaller), less the pixel itself.
long offsets(const NlmParams& p) {
  long n = -1;
  for (int dt = -p.temporal_radius; dt <= p.last_dt(); ++dt) {
    const long side = 2 * p.search_radius_at(dt) + 1;
    n += side * side;
  }
  return n;
}

#ifdef CDN_HAVE_CUDA
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { CDN_CUDA_CHECK(cudaMalloc(&p, bytes)); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Kernel ms per output frame of one chunk of `frames` frames.
double time_chunk(const FrameView& host, const NlmParams& p, int frames, int iterations) {
  const int reach = p.reach(), n = frames + 2 * reach;
  CudaFramePool pool(host.format, host.width, host.height, n + frames);
  std::vector<CudaFramePool::Handle> in, out;
  for (int i = 0; i < n; ++i) {
    in.push_back(pool.acquire(nullptr));
    copy_frame_async(host, in.back()->view(), nullptr);
  }
  for (int i = 0; i < frames; ++i) out.push_back(pool.acquire(nullptr));
  std::vector<std::unique_ptr<DeviceBuffer>> keep;
  auto to_device = [&](const void* data, std::size_t bytes) {
    keep.push_back(std::make_unique<DeviceBuffer>(bytes));
    CDN_CUDA_CHECK(cudaMemcpy(keep.back()->p, data, bytes, cudaMemcpyHostToDevice));
    return keep.back()->p;
  };
  // A global shift of (2 dt, dt) luma pixels for every output frame and dt.
  const NlmMotionField* fields = nullptr;
  const int cell = 16;
  if (p.motion_search) {
    const int cols = (host.width + cell - 1) / cell, rows = (host.height + cell - 1) / cell;
    std::vector<NlmMotionField> f;
    for (int z = 0; z < frames; ++z)
      for (int dt = -p.temporal_radius; dt <= p.temporal_radius; ++dt) {
        std::vector<std::int16_t> v(2 * cols * rows);
        for (int i = 0; i < cols * rows; ++i) {
          v[2 * i] = static_cast<std::int16_t>(2 * dt);
          v[2 * i + 1] = static_cast<std::int16_t>(dt);
        }
        f.push_back({static_cast<const std::int16_t*>(to_device(v.data(), v.size() * sizeof(std::int16_t))), cols,
                     rows, cell});
      }
    fields = static_cast<const NlmMotionField*>(to_device(f.data(), f.size() * sizeof(NlmMotionField)));
  }
  int device = 0;
  CDN_CUDA_CHECK(cudaGetDevice(&device));
  // frame-confidence: its factors, computed in the timed region by the luma pass.
  DeviceBuffer factors(frames * nlm_confidence_floats(p, host.width, host.height) * sizeof(float));
  std::vector<NlmChunk> chunks;
  for (const NlmPass& pass : nlm_passes(host.format, format_info(host.format).components)) {
    NlmChunk k;
    const int nv = static_cast<int>(pass.values.size());
    std::vector<const void*> guide;
    for (const auto& f : in) guide.push_back(components(f->view())[0].data);
    k.guide_proto = components(in[0]->view())[0];
    k.guide_window = static_cast<const void* const*>(to_device(guide.data(), n * sizeof(void*)));
    k.fx = pass.fx;
    k.fy = pass.fy;
    k.values = nv;
    for (int v = 0; v < nv; ++v) {
      std::vector<const void*> vals;
      std::vector<void*> outs;
      for (const auto& f : in) vals.push_back(components(f->view())[pass.values[v]].data);
      for (const auto& f : out) outs.push_back(components(f->view())[pass.values[v]].data);
      k.value_proto[v] = components(in[0]->view())[pass.values[v]];
      k.value_window[v] = static_cast<const void* const*>(to_device(vals.data(), n * sizeof(void*)));
      k.out_proto[v] = components(out[0]->view())[pass.values[v]];
      k.outputs[v] = static_cast<void* const*>(to_device(outs.data(), frames * sizeof(void*)));
    }
    k.window_first = 0;
    k.window_count = n;
    k.stream_length = n;
    k.out_first = reach;
    k.out_count = frames;
    k.motion = fields;
    k.motion_cell = cell;
    if (p.frame_confidence > 0)
      k.confidence = nlm_confidence_view(static_cast<const float*>(factors.p), p, host.width, host.height, pass.fx, pass.fy);
    nlm3d_cuda_check_device(p, nv, device);
    chunks.push_back(k);
  }
  const double sigma = 20.0 * (1 << (format_info(host.format).bit_depth - 8));
  cudaEvent_t a, b;
  CDN_CUDA_CHECK(cudaEventCreate(&a));
  CDN_CUDA_CHECK(cudaEventCreate(&b));
  std::vector<double> ms;
  for (int i = 0; i <= iterations; ++i) {
    CDN_CUDA_CHECK(cudaEventRecord(a, nullptr));
    for (const NlmChunk& k : chunks) {
      if (p.frame_confidence > 0 && k.fx == 1 && k.fy == 1)
        nlm3d_cuda_confidence(k, p, sigma, static_cast<float*>(factors.p), nullptr);
      nlm3d_cuda_chunk(k, p, sigma, nullptr);
    }
    CDN_CUDA_CHECK(cudaEventRecord(b, nullptr));
    CDN_CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    CDN_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    if (i > 0) ms.push_back(t / frames);  // the first: module load
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(ms);
}
#endif

}  // namespace

void nlm3d_kernel_table(const FrameView& source, int frames, int iterations, bool gpu) {
  std::printf("\nnlm3d kernels at 1920x1080 (nlm3d_cuda_chunk on device frames, no stream): ms per output frame of a\n"
              "%d-frame chunk, median of %d launches; NV12 filters all planes (chroma on the luma's weights);\n"
              "motion-search reads a global shift of (2 dt, dt) px in cells of 16 (estimation not included);\n"
              "Goff/s: 10^9 candidate weights per second (luma pixels x candidates / time)\n",
              frames, iterations);
  std::printf("%-18s %-7s %-6s %-6s %-9s %9s %10s %9s %8s\n", "set", "shape", "patch", "motion", "candidates",
              "format", "ms/frame", "fps", "Goff/s");
#ifdef CDN_HAVE_CUDA
  if (!gpu) return;
  for (const Row& row : rows())
    for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12}) {
      const NlmParams& p = row.params;
      const HostFrame frame = make_frame(source, f, 1920, 1080);
      const double ms = time_chunk(frame.view(), p, frames, iterations);
      const int side = 2 * p.patch_radius + 1;
      char patch[16];
      std::snprintf(patch, sizeof patch, p.patch_shape == NlmPatchShape::Cube ? "%d^3" : "%dx%d", side, side);
      std::printf("%-18s %-7s %-6s %-6s %-9ld %9s %10.3f %9.1f %8.1f\n", row.name, patch_shape_name(p.patch_shape),
                  patch, p.motion_search ? "on" : "off", offsets(p), format_name(f), ms, 1000.0 / ms,
                  1920.0 * 1080 * offsets(p) / (ms * 1e6));
      std::fflush(stdout);
    }
#else
  (void)source;
  (void)gpu;
#endif
}

}  // namespace cdn::bench
