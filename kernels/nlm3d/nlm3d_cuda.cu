// nlm3d_cuda.cu: the 3D non-local means kernels (nlm3d_cuda.h). Step for step
// the computation of nlm3d_reference.cpp, in float instead of double: the
// papers' cubes here, 2D patches from nlm3d_planar_block.h.
#include "nlm3d/nlm3d_cuda.h"

#include <cuda_runtime.h>

#include <string>

#include "cuda/dynamic_shared.h"
#include "cuda/warp_reduce.cuh"
#include "cudadenoise/error.h"
#include "nlm3d/nlm3d_guide.h"
#include "nlm3d/nlm3d_planar_block.h"
#include "nlm3d/nlm3d_reference.h"  // nlm_h2

namespace cdn {

namespace {

using nlm_planar::frame_at;

struct Args {
  NlmChunk c;
  int R, Rt, r;
  float inv_h2;
  float offset;  // distance-offset's 2 sigma^2 |B| (0 when off)
  float self_floor;  // self-weight-floor (0: the papers' rule)
};

// A warp filters kRows output rows of 32 - 2r columns; its lanes hold 32
// columns (r apron columns each side). Per offset each lane walks its column
// down kRows + 2r rows: the squared differences summed over the patch's frames
// (from shared memory), the x box sum by shuffles from the next 2r lanes, the y
// box sum over the last 2r + 1 rows kept in registers, then the weight. No block
// barrier inside the offset loops. Same float operations in the same order as
// the reference's sums (frames, then x, then y).
constexpr int kWarps = 4;                    // warps per block, stacked vertically
constexpr int kRows = 8;                     // output rows per warp
constexpr int kBlockRows = kWarps * kRows;

struct Layout {
  int p, cr, rr, rw, vr, vw;
  __host__ __device__ Layout(int R, int r)
      : p(2 * r + 1),
        cr(kBlockRows + 2 * r),           // centre rows, 32 columns each
        rr(kBlockRows + 2 * r + 2 * R),   // search region rows
        rw(32 + 2 * R),                   // ... and columns
        vr(kBlockRows + 2 * R),           // value region rows
        vw(32 - 2 * r + 2 * R) {}         // ... and columns
  // Frames interleave within a row: [row][frame][column].
  __host__ __device__ int floats(int values) const { return cr * p * 32 + rr * p * rw + vr * values * vw; }
};

template <int r, int NV>
__global__ void __launch_bounds__(32 * kWarps) nlm3d_kernel(Args a) {
  constexpr int p = 2 * r + 1, ow = 32 - 2 * r;
  extern __shared__ float sm[];
  const int R = a.R;
  const Layout L(R, r);
  float* cen = sm;                          // [cr][p][32]    guide: block + patch apron, frames t-r..t+r
  float* reg = cen + L.cr * p * 32;         // [rr][p][rw]    guide: search region, frames tc-r..tc+r
  float* val = reg + L.rr * p * L.rw;       // [vr][NV][vw]   values: search region of frame tc

  const NlmChunk& c = a.c;
  const int w = c.value_proto[0].width, h = c.value_proto[0].height;
  const int t = c.out_first + blockIdx.z;
  const int lane = threadIdx.x, warp = threadIdx.y;
  const int tid = warp * 32 + lane, nth = 32 * kWarps;
  const int x0 = blockIdx.x * ow, y0 = blockIdx.y * kBlockRows;
  const int x = x0 + lane;  // output column (lane < ow)
  auto guide = [&](const PlaneView& luma, int gx, int gy) {
    return static_cast<float>(luma_guide_sample(luma, clamp_coord(gx, w), clamp_coord(gy, h), c.fx, c.fy));
  };

  for (int k = 0; k < p; ++k) {
    const PlaneView f = frame_at(c, c.guide_proto, c.guide_window, t + k - r);
    for (int i = tid; i < L.cr * 32; i += nth) cen[((i / 32) * p + k) * 32 + i % 32] = guide(f, x0 - r + i % 32, y0 - r + i / 32);
  }

  double num[kRows][NV], den[kRows];
  float wmax[kRows];
#pragma unroll
  for (int o = 0; o < kRows; ++o) {
    for (int v = 0; v < NV; ++v) num[o][v] = 0.0;
    den[o] = 0.0;
    wmax[o] = 0.f;
  }
  for (int dt = -a.Rt; dt <= a.Rt; ++dt) {
    const int tc = t + dt;
    if (tc < 0 || tc >= c.stream_length) continue;  // the same for the whole block
    __syncthreads();  // everyone is done with the previous regions
    for (int k = 0; k < p; ++k) {
      const PlaneView f = frame_at(c, c.guide_proto, c.guide_window, tc + k - r);
      for (int i = tid; i < L.rr * L.rw; i += nth)
        reg[((i / L.rw) * p + k) * L.rw + i % L.rw] = guide(f, x0 - r - R + i % L.rw, y0 - r - R + i / L.rw);
    }
    for (int v = 0; v < NV; ++v) {
      const PlaneView f = frame_at(c, c.value_proto[v], c.value_window[v], tc);
      for (int i = tid; i < L.vr * L.vw; i += nth)
        val[((i / L.vw) * NV + v) * L.vw + i % L.vw] =
            f.get(clamp_coord(x0 - R + i % L.vw, w), clamp_coord(y0 - R + i / L.vw, h));
    }
    __syncthreads();
    const int row0 = warp * kRows;  // the warp's first centre row
    const float* cb = cen + row0 * p * 32 + lane;
    for (int dy = -R; dy <= R; ++dy) {
      for (int dx = -R; dx <= R; ++dx) {
        if (dx == 0 && dy == 0 && dt == 0) continue;  // the self weight is set at the end
        const float* rbx = reg + (row0 + R + dy) * p * L.rw + lane + R + dx;
        const float* vb = val + (row0 + R + dy) * NV * L.vw + lane + R + dx;
        const bool qx_in = lane < ow && x + dx >= 0 && x + dx < w;  // apron lanes only feed the x sums
        float ring[p];
#pragma unroll
        for (int j = 0; j < kRows + 2 * r; ++j) {
          float s = 0.f;
#pragma unroll
          for (int k = 0; k < p; ++k) {
            const float d = cb[(j * p + k) * 32] - rbx[(j * p + k) * L.rw];
            s += d * d;
          }
          float hsum = s;
#pragma unroll
          for (int m = 1; m <= 2 * r; ++m) hsum += __shfl_down_sync(0xffffffffu, s, m);
          ring[j % p] = hsum;
          if (j >= 2 * r) {
            const int o = j - 2 * r;
            float d2 = 0.f;
#pragma unroll
            for (int m = 0; m < p; ++m) d2 += ring[(o + m) % p];
            const int yo = y0 + row0 + o, qy = yo + dy;
            if (qx_in && qy >= 0 && qy < h) {
              const float wt = expf(-fmaxf(d2 - a.offset, 0.f) * a.inv_h2);
#pragma unroll
              for (int v = 0; v < NV; ++v) num[o][v] += static_cast<double>(wt) * vb[(o * NV + v) * L.vw];
              den[o] += wt;
              wmax[o] = fmaxf(wmax[o], wt);
            }
          }
        }
      }
    }
  }
  if (lane >= ow || x >= w) return;
#pragma unroll
  for (int o = 0; o < kRows; ++o) {
    const int y = y0 + warp * kRows + o;
    if (y >= h) break;
    const double self = den[o] > 0.0 ? fmaxf(wmax[o], a.self_floor) : 1.0;
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const double centre = frame_at(c, c.value_proto[v], c.value_window[v], t).get(x, y);
      const double value = (num[o][v] + self * centre) / (den[o] + self);
      PlaneView out = c.out_proto[v];
      out.data = c.outputs[v][blockIdx.z];
      const int q = static_cast<int>(floor(value + 0.5));
      out.set(x, y, q < 0 ? 0 : (q > out.max_value() ? out.max_value() : q));
    }
  }
}

// Dynamic shared memory of one block, in bytes.
std::size_t shared_bytes(int R, int r, int values) {
  return static_cast<std::size_t>(Layout(R, r).floats(values)) * sizeof(float);
}

template <int r, int NV>
void launch(const Args& a, cudaStream_t stream) {
  const NlmChunk& c = a.c;
  const std::size_t smem = shared_bytes(a.R, r, NV);  // checked against the device by nlm3d_cuda_check_device
  allow_dynamic_shared(nlm3d_kernel<r, NV>, smem);
  const int ow = 32 - 2 * r;
  const dim3 block(32, kWarps);
  const dim3 grid((c.value_proto[0].width + ow - 1) / ow, (c.value_proto[0].height + kBlockRows - 1) / kBlockRows,
                  c.out_count);
  nlm3d_kernel<r, NV><<<grid, block, smem, stream>>>(a);
  CDN_CHECK_LAUNCH("nlm3d_kernel");
}

template <int NV>
void launch_for_patch(const Args& a, cudaStream_t stream) {
  switch (a.r) {
    case 0: launch<0, NV>(a, stream); break;
    case 1: launch<1, NV>(a, stream); break;
    case 2: launch<2, NV>(a, stream); break;
    case 3: launch<3, NV>(a, stream); break;
    default: throw InvalidArgument("nlm3d: patch radius above 3");
  }
}


// ---- 2D patches (nlm3d_planar_block.h) --------------------------------------------------------

namespace np = nlm_planar;

template <int r, int NV>
__global__ void __launch_bounds__(32 * nlm_planar::kWarps) nlm3d_planar_kernel(nlm_planar::Params P) {
  extern __shared__ float sm[];
  __shared__ int extent[4];  // the tile's vectors: min x, max x, min y, max y
  const np::Layout L(P.R > P.Rn ? P.R : P.Rn, r);
  float* cen = sm;
  float* reg = cen + L.cen_side * L.cen_side;
  float* val = reg + L.reg_w * L.reg_h;

  const NlmChunk& c = P.c;
  const int z = blockIdx.z, t = c.out_first + z;
  const int lane = threadIdx.x, warp = threadIdx.y, tid = warp * 32 + lane, nth = 32 * np::kWarps;
  const int x0 = blockIdx.x * np::kTile, y0 = blockIdx.y * np::kTile;
  np::load_centre(P, cen, r, t, x0, y0, tid, nth);

  np::LaneSums<NV> sums;
  sums.clear();
  for (int dt = -P.Rt; dt <= P.dt_last; ++dt) {
    const int tc = t + dt;
    if (tc < 0 || tc >= c.stream_length) continue;  // the same for the whole block
    int vx, vy;
    np::lane_vector(P, z, dt, x0 + lane, y0 + warp * np::kRows, &vx, &vy);
    const float conf = np::lane_confidence(P, z, dt, x0 + lane, y0 + warp * np::kRows);
    __syncthreads();  // everyone is done with the previous regions (and the last extent)
    const int R = np::search_radius(P, dt);
    np::Regions g = np::plan_regions(x0, y0, R, r, 0, 0, 0, 0);
    if (P.fields && dt != 0) {  // the tile's spread of vectors
      if (tid == 0) {
        extent[0] = INT_MAX;
        extent[1] = INT_MIN;
        extent[2] = INT_MAX;
        extent[3] = INT_MIN;
      }
      __syncthreads();
      const int mnx = warp_min(vx), mxx = warp_max(vx), mny = warp_min(vy), mxy = warp_max(vy);
      if (lane == 0) {
        atomicMin(&extent[0], mnx);
        atomicMax(&extent[1], mxx);
        atomicMin(&extent[2], mny);
        atomicMax(&extent[3], mxy);
      }
      __syncthreads();
      g = np::plan_regions(x0, y0, R, r, extent[0], extent[1], extent[2], extent[3]);
    }
    if (g.shared) np::load_regions(P, g, reg, val, NV, tc, tid, nth);
    __syncthreads();
    if (g.shared)
      np::lane_offsets<r, NV>(P, sums, cen, np::SharedReader{reg, val, g, NV}, lane, warp, x0, y0, dt, vx, vy, conf);
    else
      np::lane_offsets<r, NV>(P, sums, cen, np::GlobalReader{&c, tc}, lane, warp, x0, y0, dt, vx, vy, conf);
  }
  np::lane_write(P, sums, lane, warp, x0, y0, z);
}

std::size_t planar_shared_bytes(int R, int r, int values) {
  return static_cast<std::size_t>(nlm_planar::Layout(R, r).floats(values)) * sizeof(float);
}

template <int r, int NV>
void launch_planar(const nlm_planar::Params& P, cudaStream_t stream) {
  const std::size_t smem = planar_shared_bytes(P.R > P.Rn ? P.R : P.Rn, r, NV);  // checked against the device by nlm3d_cuda_check_device
  allow_dynamic_shared(nlm3d_planar_kernel<r, NV>, smem);
  const dim3 block(32, np::kWarps);
  const dim3 grid((P.c.value_proto[0].width + np::kTile - 1) / np::kTile, (P.c.value_proto[0].height + np::kTile - 1) / np::kTile,
                  P.c.out_count);
  nlm3d_planar_kernel<r, NV><<<grid, block, smem, stream>>>(P);
  CDN_CHECK_LAUNCH("nlm3d_planar_kernel");
}

template <int NV>
void launch_planar_for_patch(const nlm_planar::Params& P, int r, cudaStream_t stream) {
  switch (r) {
    case 0: launch_planar<0, NV>(P, stream); break;
    case 1: launch_planar<1, NV>(P, stream); break;
    case 2: launch_planar<2, NV>(P, stream); break;
    case 3: launch_planar<3, NV>(P, stream); break;
    case 4: launch_planar<4, NV>(P, stream); break;
    default: throw InvalidArgument("nlm3d: 2D patch radius above 4");
  }
}

}  // namespace

std::size_t nlm3d_cuda_shared_bytes(const NlmParams& params, int values) {
  if (params.patch_shape == NlmPatchShape::Planar)
    return planar_shared_bytes(params.max_search_radius(), params.patch_radius, values);
  return shared_bytes(params.search_radius, params.patch_radius, values);
}

void nlm3d_cuda_check_device(const NlmParams& params, int values, int device) {
  const int R = params.search_radius, r = params.patch_radius;
  int limit = 0;
  CDN_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t smem = nlm3d_cuda_shared_bytes(params, values) + 4 * sizeof(int);  // + the planar kernel's static
  if (smem > static_cast<std::size_t>(limit))
    throw Error("nlm3d: search radius " + std::to_string(R) + " with patch radius " + std::to_string(r) + " needs " +
                std::to_string(smem / 1024) + " KiB of shared memory per block; CUDA device " +
                std::to_string(device) + " allows " + std::to_string(limit / 1024) +
                " KiB (use a smaller search or patch radius)");
}

void nlm3d_cuda_chunk(const NlmChunk& chunk, const NlmParams& params, double sigma, void* stream) {
  if (chunk.out_count <= 0) return;
  if (chunk.values < 1 || chunk.values > kNlmMaxValues) throw InvalidArgument("nlm3d: a pass averages 1 to 3 components");
  if (params.patch_shape == NlmPatchShape::Planar) {
    nlm_planar::Params P;
    P.c = chunk;
    P.R = params.search_radius_at(0);
    P.Rn = params.search_radius_at(1);
    P.Rt = params.temporal_radius;
    P.dt_last = params.last_dt();
    P.inv_h2 = sigma > 0 ? static_cast<float>(1.0 / nlm_h2(params, sigma)) : 0.f;
    P.offset = static_cast<float>(nlm_distance_offset(params, sigma));
    P.self_floor = static_cast<float>(params.self_weight_floor);
    if (params.motion_search) {
      if (!chunk.motion) throw InvalidArgument("nlm3d: motion-search needs the chunk's motion fields (NlmChunk::motion)");
      if (chunk.motion_cell % (nlm_planar::kRows * chunk.fy) != 0)
        throw InvalidArgument("nlm3d: motion cells of " + std::to_string(chunk.motion_cell) +
                              " luma pixels; the kernel needs a multiple of " +
                              std::to_string(nlm_planar::kRows * chunk.fy) + " for this pass");
      P.fields = chunk.motion;
    }
    if (params.frame_confidence > 0) {
      if (!chunk.confidence.factor)
        throw InvalidArgument("nlm3d: frame-confidence needs the chunk's factors (NlmChunk::confidence)");
      if (chunk.confidence.cell % (nlm_planar::kRows * chunk.fy) != 0 || chunk.confidence.fx != chunk.fx ||
          chunk.confidence.fy != chunk.fy)
        throw InvalidArgument("nlm3d: frame-confidence's cells of " + std::to_string(chunk.confidence.cell) +
                              " luma pixels do not fit this pass (a multiple of " +
                              std::to_string(nlm_planar::kRows * chunk.fy) + ", the pass's fx and fy)");
      P.confidence = chunk.confidence;
    }
    const auto s = static_cast<cudaStream_t>(stream);
    switch (chunk.values) {
      case 1: launch_planar_for_patch<1>(P, params.patch_radius, s); break;
      case 2: launch_planar_for_patch<2>(P, params.patch_radius, s); break;
      default: launch_planar_for_patch<3>(P, params.patch_radius, s); break;
    }
    return;
  }
  if (params.motion_search) throw InvalidArgument("nlm3d: motion-search needs patch-shape=2d");
  if (params.causal) throw InvalidArgument("nlm3d: causal needs patch-shape=2d");
  if (params.frame_confidence > 0) throw InvalidArgument("nlm3d: frame-confidence needs patch-shape=2d");
  Args a;
  a.c = chunk;
  a.R = params.search_radius;
  a.Rt = params.temporal_radius;
  a.r = params.patch_radius;
  a.inv_h2 = sigma > 0 ? static_cast<float>(1.0 / nlm_h2(params, sigma)) : 0.f;
  a.offset = static_cast<float>(nlm_distance_offset(params, sigma));
  a.self_floor = static_cast<float>(params.self_weight_floor);
  const auto s = static_cast<cudaStream_t>(stream);
  switch (chunk.values) {
    case 1: launch_for_patch<1>(a, s); break;
    case 2: launch_for_patch<2>(a, s); break;
    case 3: launch_for_patch<3>(a, s); break;
    default: throw InvalidArgument("nlm3d: a pass averages 1 to 3 components");
  }
}

}  // namespace cdn
