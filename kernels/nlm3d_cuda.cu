// nlm3d_cuda.cu: the 3D non-local means kernel (nlm3d_cuda.h). Step for step
// the computation of nlm3d_reference.cpp, in float instead of double.
#include "nlm3d_cuda.h"

#include <cuda_runtime.h>

#include "error.h"
#include "nlm3d_guide.h"
#include "nlm3d_reference.h"  // nlm_h2

namespace cdn {

namespace {

constexpr int kTileW = 32;
constexpr int kTileH = 8;

struct Args {
  NlmChunk c;
  int R, Rt, r;
  float inv_h2;
};

struct Layout {
  int p, cw, ch, rw, rh, vw, vh;
  __host__ __device__ Layout(int R, int r)
      : p(2 * r + 1),
        cw(kTileW + 2 * r),
        ch(kTileH + 2 * r),
        rw(kTileW + 2 * r + 2 * R),
        rh(kTileH + 2 * r + 2 * R),
        vw(kTileW + 2 * R),
        vh(kTileH + 2 * R) {}
  __host__ __device__ int floats(int values) const {
    return p * ch * cw + p * rh * rw + values * vh * vw + ch * cw + ch * kTileW;
  }
};

// Frame t of a window table (t clamped to the stream, which the window covers).
__device__ __forceinline__ PlaneView frame_at(const NlmChunk& c, const PlaneView& proto, const void* const* table,
                                              int t) {
  t = t < 0 ? 0 : (t >= c.stream_length ? c.stream_length - 1 : t);
  PlaneView v = proto;
  v.data = const_cast<void*>(table[t - c.window_first]);
  return v;
}

template <int NV>
__global__ void __launch_bounds__(kTileW * kTileH) nlm3d_kernel(Args a) {
  extern __shared__ float sm[];
  const Layout L(a.R, a.r);
  float* cen = sm;                         // [p][ch][cw]   guide: tile + patch apron, frames t-r..t+r
  float* reg = cen + L.p * L.ch * L.cw;    // [p][rh][rw]   guide: search region, frames tc-r..tc+r
  float* val = reg + L.p * L.rh * L.rw;    // [NV][vh][vw]  values: search region of frame tc
  float* d3 = val + NV * L.vh * L.vw;      // [ch][cw]      squared differences summed over frames
  float* hs = d3 + L.ch * L.cw;            // [ch][kTileW]  ... then box-summed along x

  const NlmChunk& c = a.c;
  const int w = c.value_proto[0].width, h = c.value_proto[0].height;  // the pass's grid
  const int t = c.out_first + blockIdx.z;
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
  const int tid = threadIdx.y * kTileW + threadIdx.x, nth = kTileW * kTileH;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  const int r = a.r, R = a.R;
  auto guide = [&](const PlaneView& luma, int gx, int gy) {
    return static_cast<float>(luma_guide_sample(luma, clamp_coord(gx, w), clamp_coord(gy, h), c.fx, c.fy));
  };

  // Thread mapping changes below: loads and the two box passes walk the shared
  // arrays linearly with all threads; the weights are one thread per pixel.
  for (int k = 0; k < L.p; ++k) {
    const PlaneView f = frame_at(c, c.guide_proto, c.guide_window, t + k - r);
    for (int i = tid; i < L.ch * L.cw; i += nth) cen[k * L.ch * L.cw + i] = guide(f, x0 - r + i % L.cw, y0 - r + i / L.cw);
  }

  // Sums in double (cheap on sm_90 next to the shared-memory traffic): the GPU then
  // differs from the double-precision reference only through expf.
  double num[NV];
  for (int v = 0; v < NV; ++v) num[v] = 0.0;
  double den = 0.0;
  float wmax = 0.f;
  for (int dt = -a.Rt; dt <= a.Rt; ++dt) {
    const int tc = t + dt;
    if (tc < 0 || tc >= c.stream_length) continue;  // the same for the whole block
    __syncthreads();  // everyone is done with the previous region
    for (int k = 0; k < L.p; ++k) {
      const PlaneView f = frame_at(c, c.guide_proto, c.guide_window, tc + k - r);
      for (int i = tid; i < L.rh * L.rw; i += nth)
        reg[k * L.rh * L.rw + i] = guide(f, x0 - r - R + i % L.rw, y0 - r - R + i / L.rw);
    }
    for (int v = 0; v < NV; ++v) {
      const PlaneView f = frame_at(c, c.value_proto[v], c.value_window[v], tc);
      for (int i = tid; i < L.vh * L.vw; i += nth)
        val[v * L.vh * L.vw + i] = f.get(clamp_coord(x0 - R + i % L.vw, w), clamp_coord(y0 - R + i / L.vw, h));
    }
    __syncthreads();
    for (int dy = -R; dy <= R; ++dy)
      for (int dx = -R; dx <= R; ++dx) {
        if (dx == 0 && dy == 0 && dt == 0) continue;  // the self weight is set at the end
        for (int i = tid; i < L.ch * L.cw; i += nth) {
          const int cy = i / L.cw, cx = i % L.cw;
          float s = 0.f;
          for (int k = 0; k < L.p; ++k) {
            const float d = cen[(k * L.ch + cy) * L.cw + cx] - reg[(k * L.rh + cy + R + dy) * L.rw + cx + R + dx];
            s += d * d;
          }
          d3[i] = s;
        }
        __syncthreads();
        for (int i = tid; i < L.ch * kTileW; i += nth) {
          const int hy = i / kTileW, hx = i % kTileW;
          float s = 0.f;
          for (int k = 0; k < L.p; ++k) s += d3[hy * L.cw + hx + k];
          hs[i] = s;
        }
        __syncthreads();
        const int qx = x + dx, qy = y + dy;
        if (x < w && y < h && qx >= 0 && qy >= 0 && qx < w && qy < h) {
          float d2 = 0.f;
          for (int k = 0; k < L.p; ++k) d2 += hs[(threadIdx.y + k) * kTileW + threadIdx.x];
          const float wt = expf(-d2 * a.inv_h2);
          const int vi = (threadIdx.y + R + dy) * L.vw + threadIdx.x + R + dx;
          for (int v = 0; v < NV; ++v) num[v] += static_cast<double>(wt) * val[v * L.vh * L.vw + vi];
          den += wt;
          wmax = fmaxf(wmax, wt);
        }
        // The next offset overwrites d3 only (hs after one more barrier): safe without a third barrier.
      }
  }
  if (x >= w || y >= h) return;
  const double self = den > 0.0 ? wmax : 1.0;
  for (int v = 0; v < NV; ++v) {
    const double centre = frame_at(c, c.value_proto[v], c.value_window[v], t).get(x, y);
    const double value = (num[v] + self * centre) / (den + self);
    PlaneView out = c.out_proto[v];
    out.data = c.outputs[v][blockIdx.z];
    const int q = static_cast<int>(floor(value + 0.5));
    out.set(x, y, q < 0 ? 0 : (q > out.max_value() ? out.max_value() : q));
  }
}

template <int NV>
void launch(const Args& a, cudaStream_t stream) {
  const NlmChunk& c = a.c;
  const Layout L(a.R, a.r);
  const std::size_t smem = static_cast<std::size_t>(L.floats(NV)) * sizeof(float);
  CDN_CUDA_CHECK(cudaFuncSetAttribute(nlm3d_kernel<NV>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const dim3 block(kTileW, kTileH);
  const dim3 grid((c.value_proto[0].width + kTileW - 1) / kTileW, (c.value_proto[0].height + kTileH - 1) / kTileH,
                  c.out_count);
  nlm3d_kernel<NV><<<grid, block, smem, stream>>>(a);
  CDN_CHECK_LAUNCH("nlm3d_kernel");
}

}  // namespace

void nlm3d_cuda_chunk(const NlmChunk& chunk, const NlmParams& params, double sigma, void* stream) {
  if (chunk.out_count <= 0) return;
  Args a;
  a.c = chunk;
  a.R = params.search_radius;
  a.Rt = params.temporal_radius;
  a.r = params.patch_radius;
  a.inv_h2 = sigma > 0 ? static_cast<float>(1.0 / nlm_h2(params, sigma)) : 0.f;
  const auto s = static_cast<cudaStream_t>(stream);
  switch (chunk.values) {
    case 1: launch<1>(a, s); break;
    case 2: launch<2>(a, s); break;
    case 3: launch<3>(a, s); break;
    default: throw InvalidArgument("nlm3d: a pass averages 1 to 3 components");
  }
}

}  // namespace cdn
