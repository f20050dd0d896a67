// nlm3d_cuda.cu: the 3D non-local means kernel (nlm3d_cuda.h). Step for step
// the computation of nlm3d_reference.cpp, in float instead of double.
#include "nlm3d_cuda.h"

#include <cuda_runtime.h>

#include "error.h"
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
  int p, cw, ch, rw, rh;
  __host__ __device__ Layout(int R, int r)
      : p(2 * r + 1), cw(kTileW + 2 * r), ch(kTileH + 2 * r), rw(kTileW + 2 * r + 2 * R), rh(kTileH + 2 * r + 2 * R) {}
  __host__ __device__ int floats() const { return p * ch * cw + p * rh * rw + ch * cw + ch * kTileW; }
};

// Component of stream frame t (clamped to the stream, which the window covers).
__device__ __forceinline__ PlaneView frame_at(const NlmChunk& c, int t) {
  t = t < 0 ? 0 : (t >= c.stream_length ? c.stream_length - 1 : t);
  PlaneView v = c.proto;
  v.data = const_cast<void*>(c.window[t - c.window_first]);
  return v;
}

__global__ void __launch_bounds__(kTileW * kTileH) nlm3d_kernel(Args a) {
  extern __shared__ float sm[];
  const Layout L(a.R, a.r);
  float* cen = sm;                         // [p][ch][cw]   tile + patch apron, frames t-r..t+r
  float* reg = cen + L.p * L.ch * L.cw;    // [p][rh][rw]   search region, frames tc-r..tc+r
  float* d3 = reg + L.p * L.rh * L.rw;     // [ch][cw]      squared differences summed over frames
  float* hs = d3 + L.ch * L.cw;            // [ch][kTileW]  ... then box-summed along x

  const NlmChunk& c = a.c;
  const int w = c.proto.width, h = c.proto.height;
  const int t = c.out_first + blockIdx.z;
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
  const int tid = threadIdx.y * kTileW + threadIdx.x, nth = kTileW * kTileH;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  const int r = a.r, R = a.R;

  // Thread mapping changes below: loads and the two box passes walk the shared
  // arrays linearly with all threads; the weights are one thread per pixel.
  for (int k = 0; k < L.p; ++k) {
    const PlaneView f = frame_at(c, t + k - r);
    for (int i = tid; i < L.ch * L.cw; i += nth)
      cen[k * L.ch * L.cw + i] =
          f.get(clamp_coord(x0 - r + i % L.cw, w), clamp_coord(y0 - r + i / L.cw, h));
  }

  // Sums in double (cheap on sm_90 next to the shared-memory traffic): the GPU then
  // differs from the double-precision reference only through expf.
  double num = 0.0, den = 0.0;
  float wmax = 0.f;
  for (int dt = -a.Rt; dt <= a.Rt; ++dt) {
    const int tc = t + dt;
    if (tc < 0 || tc >= c.stream_length) continue;  // the same for the whole block
    __syncthreads();  // everyone is done with the previous region
    for (int k = 0; k < L.p; ++k) {
      const PlaneView f = frame_at(c, tc + k - r);
      for (int i = tid; i < L.rh * L.rw; i += nth)
        reg[k * L.rh * L.rw + i] =
            f.get(clamp_coord(x0 - r - R + i % L.rw, w), clamp_coord(y0 - r - R + i / L.rw, h));
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
          const float v = reg[(r * L.rh + threadIdx.y + r + R + dy) * L.rw + threadIdx.x + r + R + dx];
          num += static_cast<double>(wt) * v;
          den += wt;
          wmax = fmaxf(wmax, wt);
        }
        // The next offset overwrites d3 only (hs after one more barrier): safe without a third barrier.
      }
  }
  if (x >= w || y >= h) return;
  const double self = den > 0.0 ? wmax : 1.0;
  const double centre = cen[(r * L.ch + threadIdx.y + r) * L.cw + threadIdx.x + r];
  const double v = (num + self * centre) / (den + self);
  PlaneView out = c.out_proto;
  out.data = c.outputs[blockIdx.z];
  const int q = static_cast<int>(floor(v + 0.5));
  out.set(x, y, q < 0 ? 0 : (q > out.max_value() ? out.max_value() : q));
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
  const Layout L(a.R, a.r);
  const std::size_t smem = static_cast<std::size_t>(L.floats()) * sizeof(float);
  CDN_CUDA_CHECK(cudaFuncSetAttribute(nlm3d_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const dim3 block(kTileW, kTileH);
  const dim3 grid((chunk.proto.width + kTileW - 1) / kTileW, (chunk.proto.height + kTileH - 1) / kTileH, chunk.out_count);
  nlm3d_kernel<<<grid, block, smem, static_cast<cudaStream_t>(stream)>>>(a);
  CDN_CHECK_LAUNCH("nlm3d_kernel");
}

}  // namespace cdn
