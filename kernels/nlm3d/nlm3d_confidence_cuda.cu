// nlm3d_confidence_cuda.cu: frame confidence's factors on CUDA (nlm3d_confidence.h,
// the definition; nlm3d_confidence.cpp, its reference), before a chunk's passes.
//
// One block per cell and output frame: 64 x kLanes threads, x the sample pixel of the
// 8 x 8 grid, y a lane of frames (frame index k = y, y + kLanes, .. of the 2 Rt + 1 frames
// t - Rt .. t + Rt). Each pixel's patch of frame t is staged in shared memory (in registers
// it took 168 registers a thread: too few warps to hide the loads); a thread forms
// its best distance in each of its frames (frame t: b0, the others: b) from direct sums
// over the patch: per window row, kGroup horizontal offsets from one read of kGroup + 2r
// candidate samples per patch row (reads through L1; at 1080p with cells of 32 a frame has
// 130 K sample pixels, 1/16 of the filter's). The best distances meet in shared memory;
// one thread per frame then sums the cell's b - b0 in the reference's order (row-major
// sample pixels), in double: for 8-bit planes every distance is an integer exact in
// float, so the factors equal the reference's up to exp's last bit. (A first version, one
// thread per sample pixel looping over the frames, took 0.7 ms a 1080p frame at Rt = 4 on
// an H200: 4 K warps cannot hide the loads' latency.)
#include <cuda_runtime.h>

#include <cmath>

#include "cudadenoise/error.h"
#include "nlm3d/nlm3d_confidence.h"
#include "nlm3d/nlm3d_cuda.h"
#include "nlm3d/nlm3d_confidence_block.h"
#include "nlm3d/nlm3d_planar_block.h"  // frame_at

namespace cdn {

namespace {

constexpr int kThreads = kNlmConfidenceSamples * kNlmConfidenceSamples;  // sample pixels of a cell
constexpr int kLanes = 3;       // lanes of frames per block (3 frames each at Rt = 4)
constexpr int kMaxFrames = 21;  // 2 Rt + 1 for the largest temporal radius, 10

struct ConfidenceArgs {
  NlmChunk c;  // the luma pass
  int Rt = 0, dt_last = 0, Rn = 1, R0 = 1;
  int cell = 32, cols = 0, rows = 0;
  double scale = 0;  // c^2 sigma^2 |B|
  float* factor = nullptr;
};

template <int r>
__global__ void __launch_bounds__(kThreads * kLanes) nlm_confidence_kernel(ConfidenceArgs a) {
  constexpr int p = 2 * r + 1;
  __shared__ float best[kMaxFrames][kThreads];  // [k][sample]: the sample's best distance in frame t - Rt + k
  __shared__ float patch[kThreads][p * p];      // each sample pixel's patch of frame t (odd stride: no bank conflicts)
  const NlmChunk& c = a.c;
  const int cx = blockIdx.x, cy = blockIdx.y, z = blockIdx.z, t = c.out_first + z;
  const int sample = threadIdx.x, lane = threadIdx.y, frames = 2 * a.Rt + 1;
  const int step = a.cell / kNlmConfidenceSamples;
  const int px = cx * a.cell + (sample % kNlmConfidenceSamples) * step;
  const int py = cy * a.cell + (sample / kNlmConfidenceSamples) * step;
  const PlaneView ref = nlm_planar::frame_at(c, c.guide_proto, c.guide_window, t);
  const bool inside = px < ref.width && py < ref.height;
  float* cen = patch[sample];
  for (int e = lane; e < p * p; e += kLanes)
    cen[e] = static_cast<float>(ref.get(clamp_coord(px + e % p - r, ref.width), clamp_coord(py + e / p - r, ref.height)));
  __syncthreads();
  for (int k = lane; k < frames; k += kLanes) {
    const int dt = k - a.Rt, tc = t + dt;
    float b = INFINITY;
    if (!inside || dt > a.dt_last || tc < 0 || tc >= c.stream_length) {
      // no candidate: the frame is not searched, or the sample pixel lies outside the frame
    } else if (dt == 0) {
      b = nlm_confidence::best_distance<r>(cen, ref, px, py, px, py, a.R0, true);
    } else {
      int vx = 0, vy = 0;
      if (c.motion) nlm_motion_vector(c.motion[z * frames + k], px, py, 1, 1, &vx, &vy);
      const PlaneView other = nlm_planar::frame_at(c, c.guide_proto, c.guide_window, tc);
      b = nlm_confidence::best_distance<r>(cen, other, px, py, px + vx, py + vy, a.Rn, false);
    }
    best[k][sample] = b;
  }
  __syncthreads();
  // One thread per frame: the cell's mean excess, in the reference's order.
  const int k = lane * kThreads + sample;
  if (k >= frames) return;
  const int dt = k - a.Rt;
  double sum = 0;
  int count = 0;
  if (dt != 0)
    for (int s = 0; s < kThreads; ++s) {
      const float own = best[a.Rt][s], b = best[k][s];
      if (isinf(own) || isinf(b)) continue;
      sum += static_cast<double>(b - own);
      ++count;
    }
  const long plane = static_cast<long>(a.rows) * a.cols;
  a.factor[(static_cast<long>(z) * frames + k) * plane + static_cast<long>(cy) * a.cols + cx] =
      count == 0 || a.scale <= 0 ? 1.f : static_cast<float>(exp(-fmax(sum / count, 0.0) / a.scale));
}

template <int r>
void launch(const ConfidenceArgs& a, cudaStream_t stream) {
  const dim3 grid(a.cols, a.rows, a.c.out_count);
  nlm_confidence_kernel<r><<<grid, dim3(kThreads, kLanes), 0, stream>>>(a);
  CDN_CHECK_LAUNCH("nlm_confidence_kernel");
}

}  // namespace

void nlm3d_cuda_confidence(const NlmChunk& chunk, const NlmParams& params, double sigma, float* factor, void* stream) {
  if (chunk.out_count <= 0) return;
  if (params.patch_shape != NlmPatchShape::Planar) throw InvalidArgument("nlm3d: frame-confidence needs patch-shape=2d");
  if (params.confidence_cell <= 0 || params.confidence_cell % 16 != 0)
    throw InvalidArgument("nlm3d: confidence-cell must be a multiple of 16");
  if (chunk.fx != 1 || chunk.fy != 1) throw InvalidArgument("nlm3d: frame confidence is computed on the luma pass");
  if (params.motion_search && !chunk.motion)
    throw InvalidArgument("nlm3d: frame confidence with motion-search needs the chunk's motion fields");
  ConfidenceArgs a;
  a.c = chunk;
  if (!params.motion_search) a.c.motion = nullptr;
  a.Rt = params.temporal_radius;
  if (2 * a.Rt + 1 > kMaxFrames) throw InvalidArgument("nlm3d: frame confidence up to temporal radius 10");
  a.dt_last = params.last_dt();
  a.Rn = params.search_radius_at(1);
  a.R0 = a.Rn > 1 ? a.Rn : 1;
  a.cell = params.confidence_cell;
  a.cols = nlm_confidence_cols(chunk.guide_proto.width, a.cell);
  a.rows = nlm_confidence_rows(chunk.guide_proto.height, a.cell);
  a.scale = params.frame_confidence * params.frame_confidence * sigma * sigma * params.patch_samples();
  a.factor = factor;
  const auto s = static_cast<cudaStream_t>(stream);
  switch (params.patch_radius) {
    case 0: launch<0>(a, s); break;
    case 1: launch<1>(a, s); break;
    case 2: launch<2>(a, s); break;
    case 3: launch<3>(a, s); break;
    case 4: launch<4>(a, s); break;
    default: throw InvalidArgument("nlm3d: 2D patch radius above 4");
  }
}

}  // namespace cdn
