// pipd_cuda.cu: CUDA kernels of PI-PD and hybrid PI-PD (pipd_cuda.h).
// Paper: pipd-isoline-gpu-filter, section VII (algorithms 1-3). The decisions
// and arithmetic are those of pipd_reference.cpp, step for step, so the output
// is identical; the differences are only in how threads map to work.
#include "pipd/pipd_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>

#include "cudadenoise/error.h"
#include "pipd/binomial_filter.h"
#include "pipd/pipd_glrt.h"
#include "pipd/pipd_patterns.h"

namespace cdn {

namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kApron = kMaxSegmentLength + 1;  // farthest pattern pixel, thickening included
constexpr int kTileW = kBlockX + 2 * kApron;
constexpr int kTileH = kBlockY + 2 * kApron;
constexpr std::uint32_t kDoneFlag = 0x80u;  // theta byte: output already written by stage 1 (hybrid)

// Everything the kernels need, passed by value (kernel parameter space, < 4 KB).
struct KernelParams {
  PatternSet patterns;               // patterns of the configured thickness
  Offset base[8][kMaxSegmentLength];  // thin patterns of directions 0, 4, ..., 28 (edge detector)
  int length;
  int max_segments;
  int hybrid;
  double exp_lengthen[kMaxGlrtCount / 2];  // exp(Tmax / N) for the N of lengthening step k (index k)
  double exp_edge;                         // exp(T2max / (8 l + 1))
};
static_assert(sizeof(KernelParams) < 4096, "kernel parameters must fit the classic 4 KB limit");

// I_sigma and I_theta of one pixel: theta in the top byte of s_theta (s < 2^24).
template <typename Q>
struct Stat {
  std::uint32_t s_theta;
  Q q;
};

template <typename Q>
__device__ __forceinline__ int stat_theta(const Stat<Q>& st) { return static_cast<int>(st.s_theta >> 24) & 31; }
template <typename Q>
__device__ __forceinline__ std::int64_t stat_sum(const Stat<Q>& st) { return st.s_theta & 0xFFFFFFu; }

// One pass of the direction prefilter (docs/PIPD.md; not in the paper): one
// thread per pixel, the nine reads go through the cache.
__global__ void binomial_kernel(PlaneView in, PlaneView out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= in.width || y >= in.height) return;
  out.set(x, y, binomial3x3_at(in, x, y));
}

// Stage 1 (algorithm 1) and, in hybrid mode, the edge detector (algorithm 3).
// One thread per pixel; the block's pixels and an apron of kApron pixels are
// staged in shared memory with the border rule (clamp) applied at load time, so
// every pattern read below is a shared-memory read. Threads of a warp read the
// same pattern offset at consecutive x: conflict-free. With the direction
// prefilter a second tile holds the guide, on which the directions are picked.
template <typename Acc, typename Q, bool kGuided>
__global__ void __launch_bounds__(kBlockX * kBlockY)
    stage1_kernel(PlaneView in, PlaneView guide, PlaneView out, Stat<Q>* stats, KernelParams kp) {
  __shared__ int tile[kTileH][kTileW];
  __shared__ int guide_tile[kGuided ? kTileH : 1][kGuided ? kTileW : 1];
  const int x0 = blockIdx.x * kBlockX - kApron;
  const int y0 = blockIdx.y * kBlockY - kApron;
  for (int i = threadIdx.y * kBlockX + threadIdx.x; i < kTileW * kTileH; i += kBlockX * kBlockY) {
    const int ty = i / kTileW, tx = i % kTileW;
    const int gx = clamp_coord(x0 + tx, in.width), gy = clamp_coord(y0 + ty, in.height);
    tile[ty][tx] = in.get(gx, gy);
    if constexpr (kGuided) guide_tile[ty][tx] = guide.get(gx, gy);
  }
  __syncthreads();

  const int x = blockIdx.x * kBlockX + threadIdx.x;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= in.width || y >= in.height) return;
  const int cx = threadIdx.x + kApron, cy = threadIdx.y + kApron;
  const PatternSet& p = kp.patterns;

  // The direction's key is computed on the guide when there is one, else on the
  // input, whose sums along the winning pattern are then I_sigma as they stand.
  auto key_sample = [&](int ty, int tx) -> Acc {
    if constexpr (kGuided)
      return guide_tile[ty][tx];
    else
      return tile[ty][tx];
  };
  const Acc count = p.thickness + p.pixels;
  int best_d = 0;
  bool best_inside = false;
  Acc best_s = 0, best_q = 0, best_key = 0;
  for (int d = 0; d < kDirections; ++d) {
    // The border rule of pipd_reference.cpp: segments that end inside the frame first.
    const int ex = x + p.end[d].dx, ey = y + p.end[d].dy;
    const bool ends_inside = ex >= 0 && ey >= 0 && ex < in.width && ey < in.height;
    Acc s = 0, q = 0;
    for (int k = 0; k < p.pixels; ++k) {
      const Acc z = key_sample(cy + p.pixel[d][k].dy, cx + p.pixel[d][k].dx);
      s += z;
      q += z * z;
    }
    Acc cs = 0, cq = 0;  // the centre (and its thickening) belongs to the isoline too
    for (int t = 0; t < p.thickness; ++t) {
      const Acc z = key_sample(cy + p.centre[d][t].dy, cx + p.centre[d][t].dx);
      cs += z;
      cq += z * z;
    }
    const Acc key = count * (q + cq) - (s + cs) * (s + cs);  // count^2 * variance; the first direction wins ties
    if (d == 0 || (ends_inside && !best_inside) || (ends_inside == best_inside && key < best_key)) {
      best_key = key;
      best_s = s;
      best_q = q;
      best_d = d;
      best_inside = ends_inside;
    }
  }
  if constexpr (kGuided) {  // I_sigma: the input's sums along the chosen pattern
    best_s = 0;
    best_q = 0;
    for (int k = 0; k < p.pixels; ++k) {
      const Acc z = tile[cy + p.pixel[best_d][k].dy][cx + p.pixel[best_d][k].dx];
      best_s += z;
      best_q += z * z;
    }
  }

  std::uint32_t flags = 0;
  if (kp.hybrid) {
    Acc bs[8], bq[8];
#pragma unroll
    for (int b = 0; b < 8; ++b) {
      bs[b] = 0;
      bq[b] = 0;
      for (int k = 0; k < kp.length; ++k) {
        const Acc z = tile[cy + kp.base[b][k].dy][cx + kp.base[b][k].dx];
        bs[b] += z;
        bq[b] += z * z;
      }
    }
    const Acc centre = tile[cy][cx];
    const std::int64_t nh = 5 * kp.length + 1, nl = 3 * kp.length;
    int edges = 0;
    std::int64_t edge_sum = 0, hs = 0, hq = 0, ls = 0, lq = 0;
#pragma unroll
    for (int b = 0; b < 8; ++b) {
      hs = centre;
      hq = static_cast<std::int64_t>(centre) * centre;
      ls = 0;
      lq = 0;
#pragma unroll
      for (int j = 0; j < 5; ++j) {
        hs += bs[(b + j) % 8];
        hq += bq[(b + j) % 8];
      }
#pragma unroll
      for (int j = 5; j < 8; ++j) {
        ls += bs[(b + j) % 8];
        lq += bq[(b + j) % 8];
      }
      if (!glrt_accepts_merge(hs, hq, nh, ls, lq, nl, kp.exp_edge)) {
        ++edges;
        edge_sum = hs;
      }
    }
    if (edges <= 1) {
      out.set(x, y, edges == 0 ? rounded_mean(hs + ls, nh + nl) : rounded_mean(edge_sum, nh));
      flags = kDoneFlag;
    }
  }

  Stat<Q> st;
  st.s_theta = static_cast<std::uint32_t>(best_s) | ((static_cast<std::uint32_t>(best_d) | flags) << 24);
  st.q = static_cast<Q>(best_q);
  stats[static_cast<std::size_t>(y) * in.width + x] = st;
}

// Stage 2 (algorithm 2): follow I_theta from segment end to segment end while
// the GLRT accepts, then write the rounded mean along the poly-isoline.
template <typename Q>
__global__ void __launch_bounds__(256) stage2_kernel(PlaneView in, PlaneView out, const Stat<Q>* __restrict__ stats,
                                                     KernelParams kp) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= in.width || y >= in.height) return;
  const Stat<Q> first = stats[static_cast<std::size_t>(y) * in.width + x];
  if ((first.s_theta >> 24) & kDoneFlag) return;  // hybrid: stage 1 wrote this pixel

  const PatternSet& p = kp.patterns;
  int d = stat_theta(first);
  std::int64_t s = stat_sum(first), q = static_cast<std::int64_t>(first.q);
  for (int t = 0; t < p.thickness; ++t) {
    const std::int64_t z =
        in.get(clamp_coord(x + p.centre[d][t].dx, in.width), clamp_coord(y + p.centre[d][t].dy, in.height));
    s += z;
    q += z * z;
  }
  std::int64_t count = p.thickness + p.pixels;
  int ex = x + p.end[d].dx, ey = y + p.end[d].dy;
  for (int k = 1; k < kp.max_segments; ++k) {
    if (ex < 0 || ey < 0 || ex >= in.width || ey >= in.height) break;  // lengthening stops at the border
    const Stat<Q> next = stats[static_cast<std::size_t>(ey) * in.width + ex];
    const int nd = stat_theta(next);
    if (direction_distance(nd, d) > kDirections / 4) break;  // no turning back
    const std::int64_t ns = stat_sum(next), nq = static_cast<std::int64_t>(next.q);
    if (!glrt_accepts_merge(s, q, count, ns, nq, p.pixels, kp.exp_lengthen[k])) break;
    s += ns;
    q += nq;
    count += p.pixels;
    d = nd;
    ex += p.end[d].dx;
    ey += p.end[d].dy;
  }
  out.set(x, y, rounded_mean(s, count));
}

KernelParams make_kernel_params(Mode mode, const PipdParams& params) {
  KernelParams kp{};
  kp.patterns = make_patterns(params.segment_length, params.thickness);
  const PatternSet thin = make_patterns(params.segment_length, 1);
  for (int b = 0; b < 8; ++b)
    for (int k = 0; k < params.segment_length; ++k) kp.base[b][k] = thin.pixel[4 * b][k];
  kp.length = params.segment_length;
  kp.max_segments = params.max_segments();
  kp.hybrid = mode == Mode::Hybrid;
  if (kp.max_segments > kMaxGlrtCount / 2) throw InvalidArgument("too many isoline segments for the CUDA kernels");
  // The same table entries the reference reads: step k merges count = t + k p with p.
  GlrtTable tmax, t2max;
  make_glrt_table(params.tmax, &tmax);
  make_glrt_table(params.t2max, &t2max);
  const int p = kp.patterns.pixels, t = kp.patterns.thickness;
  for (int k = 1; k < kp.max_segments; ++k) kp.exp_lengthen[k] = tmax.at(t + (k + 1) * p);
  kp.exp_edge = t2max.at(8 * params.segment_length + 1);
  return kp;
}

// A guide plane of the direction prefilter, at `base` in the scratch buffer
// (after the stats; two of them, used in turn by the passes): in's size, sample
// size and range, rows packed.
PlaneView guide_plane(const PlaneView& in, void* base) {
  PlaneView g;
  g.data = base;
  g.pitch = static_cast<std::size_t>(in.width) * in.bytes_per_sample;
  g.width = in.width;
  g.height = in.height;
  g.bytes_per_sample = in.bytes_per_sample;
  g.bit_depth = in.is_16bit() ? 16 : 8;
  g.memory = MemoryKind::Device;
  return g;
}

template <typename Acc, typename Q>
void launch(const PlaneView& in, const PlaneView& out, const KernelParams& kp, int prefilter_passes, void* scratch,
            cudaStream_t stream) {
  auto* stats = static_cast<Stat<Q>*>(scratch);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((in.width + kBlockX - 1) / kBlockX, (in.height + kBlockY - 1) / kBlockY);
  auto* guide_base = reinterpret_cast<unsigned char*>(stats + static_cast<std::size_t>(in.width) * in.height);
  const std::size_t guide_bytes = static_cast<std::size_t>(in.width) * in.height * in.bytes_per_sample;
  PlaneView guide = in;
  for (int pass = 0; pass < prefilter_passes; ++pass) {
    const PlaneView next = guide_plane(in, guide_base + (pass % 2) * guide_bytes);
    binomial_kernel<<<grid, block, 0, stream>>>(guide, next);
    CDN_CHECK_LAUNCH("pipd binomial_kernel");
    guide = next;
  }
  if (prefilter_passes > 0)  // directions picked on the guide
    stage1_kernel<Acc, Q, true><<<grid, block, 0, stream>>>(in, guide, out, stats, kp);
  else
    stage1_kernel<Acc, Q, false><<<grid, block, 0, stream>>>(in, guide, out, stats, kp);
  CDN_CHECK_LAUNCH("pipd stage1_kernel");
  stage2_kernel<Q><<<grid, block, 0, stream>>>(in, out, stats, kp);
  CDN_CHECK_LAUNCH("pipd stage2_kernel");
}

}  // namespace

PipdCuda::~PipdCuda() {
  if (scratch_) cudaFree(scratch_);  // no throwing from a destructor; nothing to report to
}

void PipdCuda::run(const PlaneView& in, const PlaneView& out, Mode mode, const PipdParams& params, void* stream_ptr) {
  if (in.memory != MemoryKind::Device || out.memory != MemoryKind::Device)
    throw InvalidArgument("PipdCuda::run needs device planes");
  if (in.width != out.width || in.height != out.height) throw InvalidArgument("input and output sizes differ");
  if (in.width <= 0 || in.height <= 0) return;
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  const bool wide = in.is_16bit();
  const int passes = params.direction_prefilter;
  // The stats, then up to two guide planes (the prefilter ping-pongs between them).
  const std::size_t pixels = static_cast<std::size_t>(in.width) * in.height;
  const std::size_t need = pixels * (wide ? sizeof(Stat<std::uint64_t>) : sizeof(Stat<std::uint32_t>)) +
                           static_cast<std::size_t>(passes < 2 ? passes : 2) * pixels * in.bytes_per_sample;
  if (need > scratch_bytes_) {
    if (scratch_) {
      CDN_CUDA_CHECK(cudaStreamSynchronize(stream));  // earlier launches may still read it
      CDN_CUDA_CHECK(cudaFree(scratch_));
      scratch_ = nullptr;
      scratch_bytes_ = 0;
    }
    CDN_CUDA_CHECK(cudaMalloc(&scratch_, need));
    scratch_bytes_ = need;
  }
  const KernelParams kp = make_kernel_params(mode, params);
  // 8-bit sums fit 32-bit arithmetic (27 * 27 * 255^2 < 2^31); 16-bit needs 64 bits.
  if (wide)
    launch<std::int64_t, std::uint64_t>(in, out, kp, passes, scratch_, stream);
  else
    launch<std::int32_t, std::uint32_t>(in, out, kp, passes, scratch_, stream);
}

}  // namespace cdn
