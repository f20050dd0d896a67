// vbm3d_cuda.cu: the V-BM3D kernels and their schedule (vbm3d_cuda.h). Step for
// step the computation of vbm3d_reference.cpp: same padded planes, reference
// grid, candidate windows, dedup rule, ranking keys, group cut, transforms and
// weights; the aggregation sums in 64-bit fixed point (deterministic). The
// planes, the filter kernel family (bm3d_filter_lanes.cuh: V-BM3D's groups are
// its temporal form) and the run's plumbing are BM3D's.
#include "vbm3d/vbm3d_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>

#include "bm3d/bm3d_device_planes.cuh"
#include "bm3d/bm3d_device_run.cuh"
#include "bm3d/bm3d_filter_lanes.cuh"
#include "bm3d/bm3d_profile.h"
#include "bm3d/bm3d_reference.h"  // kaiser_window, components_by_size
#include "cuda/dynamic_shared.h"
#include "cudadenoise/error.h"
#include "motion/motion_cuda.h"
#include "vbm3d/vbm3d_reference.h"  // phase_setup

namespace cdn {

using namespace bm3d;

namespace {

constexpr int kMaxWindow = 17;      // 2 x the largest radius + 1
constexpr int kMaxGroup = 32;
constexpr int kMaxFrameList = 16;   // max(seeds, per_frame) on the GPU
constexpr int kMaxSeeds = 8;
constexpr int kMatchWarps = 4;
constexpr int kRefsPerMatchBlock = kMatchWarps * 4;  // 8 lanes per reference
constexpr int kFilterWarps = 4;
constexpr int kFilterRefs = 32;     // references per filter block
constexpr float kFixedScale = 16777216.0f;  // 2^24: aggregation units per unit of weight
constexpr int kDefaultBatch = 1 << 18;

// Keys of the ranking: (rank or window frame) << 27 | y << 14 | x; with the
// distance first, the order of the reference's sorts.
__host__ __device__ __forceinline__ std::uint32_t pack(int frame, int x, int y) {
  return (static_cast<std::uint32_t>(frame) << 27) | (static_cast<std::uint32_t>(y) << 14) |
         static_cast<std::uint32_t>(x);
}
__device__ __forceinline__ int key_x(std::uint32_t k) { return k & 0x3FFF; }
__device__ __forceinline__ int key_y(std::uint32_t k) { return (k >> 14) & 0x1FFF; }
__device__ __forceinline__ int key_frame(std::uint32_t k) { return k >> 27; }

// ---------------------------------------------------------------- planes

// num / den of the fixed-point accumulators into the float estimate (when
// given) and/or rounded into `out`.
__global__ void divide_kernel(const long long* num, const long long* den, int pitch, DevPlane estimate, PlaneView out,
                              int write_out, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const std::size_t at = static_cast<std::size_t>(y) * pitch + x;
  const float v = static_cast<float>(static_cast<double>(num[at]) / static_cast<double>(den[at]));
  if (estimate.data) estimate.data[static_cast<std::size_t>(y) * estimate.pitch + x] = v;
  if (write_out && x < out.width && y < out.height) store_rounded(out, x, y, v);
}

// A float plane rounded into `out` as an output is (Vbm3dParams::motion_on_basic:
// the basic estimate's luma the Wiener phase's motion is estimated on).
__global__ void round_plane_kernel(DevPlane in, PlaneView out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  store_rounded(out, x, y, in.at(x, y));
}

__global__ void copy_component_kernel(PlaneView in, PlaneView out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  out.set(x, y, in.get(x, y));
}

// ---------------------------------------------------------------- block matching

struct MatchArgs {
  DevPlane guide[kMaxWindow];                // entry k: window frame t - R + k; searched for k in [lo, hi]
  const MotionVector* forward[kMaxWindow];   // k: the field from frame t - R + k to the next (luma cells)
  const MotionVector* backward[kMaxWindow];  // k: the field from frame t - R + k + 1 to t - R + k
  int field_cols, field_rows, field_cell;
  int R, lo, hi;
  int fx, fy;
  RefGrid grid;
  int first_ref, count;  // the batch: references first_ref .. first_ref + count - 1 (row-major in the grid)
  int window, predictive, seeds, per_frame, group, own_frame, motion;
  float tau;
  std::uint32_t* lists;  // [batch reference][group]: window frame k << 27 | y << 14 | x
  std::uint8_t* counts;
};

__device__ __forceinline__ bool ranks_before(float d, std::uint32_t k, float ed, std::uint32_t ek) {
  return d < ed || (d == ed && k < ek);
}

// Inserts (d, k) into the sorted list of at most cap entries (the smallest keep).
__device__ void list_insert(float* ld, std::uint32_t* lk, int& count, int cap, float d, std::uint32_t k) {
  if (cap <= 0) return;
  if (count == cap && !ranks_before(d, k, ld[cap - 1], lk[cap - 1])) return;
  int e = count < cap ? count++ : cap - 1;
  while (e > 0 && ranks_before(d, k, ld[e - 1], lk[e - 1])) {
    ld[e] = ld[e - 1];
    lk[e] = lk[e - 1];
    --e;
  }
  ld[e] = d;
  lk[e] = k;
}

// The distances of the origins [x0, x1] x [y0, y1] of plane p to the reference
// (lane `row` holds its row `ref`), visited in rows of y then x; consume(x, y, d)
// is called with every lane of the 8-lane group holding the same d. A row of
// candidates is taken kCols at a time: each lane loads kCols + 7 samples of its
// row once and sums kCols rows of squared differences, left to right without
// fused multiply-adds; the rows are then added pairwise by the xor butterfly,
// ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) in every lane: the order
// of the reference's patch_distance. kCols = 5 fits the default predictive
// window (5 x 5) without idle columns.
template <int kCols, typename Consume>
__device__ void scan(const DevPlane& p, const float (&ref)[kPatch], int row, unsigned mask, int x0, int x1, int y0,
                     int y1, Consume consume) {
  for (int y = y0; y <= y1; ++y) {
    const float* line = p.data + static_cast<std::size_t>(y + row) * p.pitch;
    for (int xb = x0; xb <= x1; xb += kCols) {
      float v[kCols + kPatch - 1];
#pragma unroll
      for (int m = 0; m < kCols + kPatch - 1; ++m) v[m] = xb + m < p.width ? __ldg(line + xb + m) : 0.f;
      float part[kCols];
#pragma unroll
      for (int q = 0; q < kCols; ++q) {
        float s = 0.f;
#pragma unroll
        for (int c = 0; c < kPatch; ++c) {
          const float t = __fsub_rn(ref[c], v[q + c]);
          s = __fadd_rn(s, __fmul_rn(t, t));
        }
        part[q] = s;
      }
#pragma unroll
      for (int q = 0; q < kCols; ++q) {
#pragma unroll
        for (int h = 1; h < 8; h <<= 1) part[q] = __fadd_rn(part[q], __shfl_xor_sync(mask, part[q], h));
      }
#pragma unroll
      for (int q = 0; q < kCols; ++q)
        if (xb + q <= x1) consume(xb + q, y, part[q]);
    }
  }
}

// Thread mapping: 8 lanes per reference patch (lane % 8 = its row), 4
// references per warp, kMatchWarps warps per block. The lists are kept by the
// group's first lane in shared memory; __syncwarp(mask) publishes them.
__global__ void __launch_bounds__(kMatchWarps * 32) match_kernel(MatchArgs a) {
  __shared__ float s_gd[kRefsPerMatchBlock][kMaxGroup];
  __shared__ std::uint32_t s_gk[kRefsPerMatchBlock][kMaxGroup];
  __shared__ float s_fd[kRefsPerMatchBlock][kMaxFrameList];
  __shared__ std::uint32_t s_fk[kRefsPerMatchBlock][kMaxFrameList];
  __shared__ int s_seed[kRefsPerMatchBlock][4][kMaxSeeds];  // x, y of the walk's seeds, then of frame t's
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = warp * 4 + lane / 8, row = lane % 8;
  const unsigned mask = 0xFFu << (lane / 8 * 8);
  const int local = blockIdx.x * kRefsPerMatchBlock + g;
  if (local >= a.count) return;  // the whole 8-lane group
  const int r = a.first_ref + local;
  const int rx = a.grid.x(r % a.grid.nx), ry = a.grid.y(r / a.grid.nx);
  const DevPlane& gt = a.guide[a.R];
  const int last_x = gt.width - kPatch, last_y = gt.height - kPatch;
  float ref[kPatch];
#pragma unroll
  for (int c = 0; c < kPatch; ++c) ref[c] = gt.at(rx + c, ry + row);
  float* gd = s_gd[g];
  std::uint32_t* gk = s_gk[g];
  float* fd = s_fd[g];
  std::uint32_t* fk = s_fk[g];
  const int gcap = max(a.group - 1, a.seeds - 1);
  const int fcap = max(a.seeds, a.per_frame);
  int gcount = 0;  // meaningful in the group's first lane

  // 1. Frame t.
  {
    const int w = a.window / 2;
    scan<8>(gt, ref, row, mask, max(0, rx - w), min(last_x, rx + w), max(0, ry - w), min(last_y, ry + w),
         [&](int x, int y, float d) {
           if (row == 0 && (x != rx || y != ry)) list_insert(gd, gk, gcount, gcap, d, pack(0, x, y));
         });
  }
  __syncwarp(mask);
  gcount = __shfl_sync(mask, gcount, 0, 8);
  int* sx = s_seed[g][0];
  int* sy = s_seed[g][1];
  int* tx = s_seed[g][2];
  int* ty = s_seed[g][3];
  const int seeds_t = min(a.seeds, 1 + gcount);
  const int p = a.predictive / 2;
  if (row == 0) {  // frame t's seeds: the reference and its best matches (the list holds frame t's alone so far)
    tx[0] = rx;
    ty[0] = ry;
    for (int m = 1; m < seeds_t; ++m) {
      tx[m] = key_x(gk[m - 1]);
      ty[m] = key_y(gk[m - 1]);
    }
    gcount = min(gcount, a.own_frame);  // frame t's members in the pool
  }

  // 2. Predictive search, forward then backward.
  for (int dir = 1; dir >= -1; dir -= 2) {
    if (row == 0)
      for (int m = 0; m < seeds_t; ++m) {
        sx[m] = tx[m];
        sy[m] = ty[m];
      }
    __syncwarp(mask);
    int nseeds = seeds_t;
    for (int k = 1; k <= a.R; ++k) {
      const int f = a.R + dir * k, prev = f - dir;
      if (f < a.lo || f > a.hi) break;
      const int rank = dir > 0 ? k : a.R + k;
      int cx[kMaxSeeds], cy[kMaxSeeds];
      for (int m = 0; m < nseeds; ++m) {
        cx[m] = sx[m];
        cy[m] = sy[m];
        if (a.motion) {
          const MotionFieldView field{dir > 0 ? a.forward[prev] : a.backward[f], a.field_cols, a.field_rows,
                                      a.field_cell};
          const MotionVector v = field.at_pixel(a.fx * (sx[m] + kPatch / 2), a.fy * (sy[m] + kPatch / 2));
          cx[m] = clamp_coord(sx[m] + scale_displacement(v.dx, a.fx), last_x + 1);
          cy[m] = clamp_coord(sy[m] + scale_displacement(v.dy, a.fy), last_y + 1);
        }
      }
      __syncwarp(mask);  // the seeds are read; the first lane may overwrite them below
      int fcount = 0;
      for (int j = 0; j < nseeds; ++j) {
        auto consume = [&](int x, int y, float d) {
          if (row != 0) return;
          for (int i = 0; i < j; ++i)
            if (abs(x - cx[i]) <= p && abs(y - cy[i]) <= p) return;  // an earlier centre's window holds it
          list_insert(fd, fk, fcount, fcap, d, pack(rank, x, y));
        };
        const int x0 = max(0, cx[j] - p), x1 = min(last_x, cx[j] + p), y0 = max(0, cy[j] - p), y1 = min(last_y, cy[j] + p);
        if (a.predictive == 5)
          scan<5>(a.guide[f], ref, row, mask, x0, x1, y0, y1, consume);
        else
          scan<8>(a.guide[f], ref, row, mask, x0, x1, y0, y1, consume);
      }
      if (row == 0) {
        nseeds = min(a.seeds, fcount);
        for (int m = 0; m < nseeds; ++m) {
          sx[m] = key_x(fk[m]);
          sy[m] = key_y(fk[m]);
        }
        for (int m = 0; m < min(a.per_frame, fcount); ++m) list_insert(gd, gk, gcount, gcap, fd[m], fk[m]);
      }
      __syncwarp(mask);
      nseeds = __shfl_sync(mask, nseeds, 0, 8);
      if (nseeds == 0) break;
    }
  }

  // 3. The group: the reference, then the list's entries within tau, cut to a power of 2.
  if (row == 0) {
    int within = 0;
    const int listed = min(gcount, a.group - 1);
    while (within < listed && gd[within] <= a.tau) ++within;
    const int n = floor_pow2(min(1 + within, a.group));
    std::uint32_t* out = a.lists + static_cast<std::size_t>(local) * a.group;
    out[0] = pack(a.R, rx, ry);
    for (int m = 1; m < n; ++m) {
      const std::uint32_t e = gk[m - 1];
      const int rk = key_frame(e);
      const int frame = rk == 0 ? a.R : (rk <= a.R ? a.R + rk : a.R - (rk - a.R));
      out[m] = pack(frame, key_x(e), key_y(e));
    }
    a.counts[local] = static_cast<std::uint8_t>(n);
  }
}

// ---------------------------------------------------------------- filtering

// V-BM3D's groups for filter_kernel (bm3d_filter_lanes.cuh), its temporal form:
// a group's patches lie in the window's frames (the lists' keys), the blocks
// take kFilterRefs references of the batch each (row-major in the grid), the
// noisy patches are read from the components' samples, the transforms are the
// paper's (DCT, Walsh-Hadamard), and a filtered patch goes to the accumulators
// of its frame (Vbm3dAggregation), numerator and denominator each in 2^24
// units of weight by 64-bit atomics.
struct TemporalGroups {
  static constexpr int kWarps = kFilterWarps, kRefs = kFilterRefs, kMinBlocks = 0;
  PlaneView noisy[kMaxWindow];  // the component in window frame t - R + k (device samples)
  DevPlane basic[kMaxWindow];   // its basic estimate (Wiener phase)
  int count;                    // references of the batch
  const std::uint32_t* lists;
  const std::uint8_t* counts;
  int group;                    // list stride
  float sigma;
  float lambda3d;               // the paper's (PhaseParams)
  long long* num[kMaxWindow];   // accumulators of window frame t - R + k (nullptr: that frame's patches dropped)
  long long* den[kMaxWindow];
  int acc_pitch;
  int reference_only;           // aggregate the reference alone

  static constexpr Transform2d t2d = Transform2d::Dct;
  static constexpr Transform1d t1d = Transform1d::WalshHadamard;

  template <int K>
  __device__ LanePatch patch(int g, int lane_in_group) const {
    LanePatch m;
    const int local = blockIdx.x * kFilterRefs + g;
    const bool valid = local < count;
    m.n = valid ? counts[local] : 1;
    m.mine = valid && lane_in_group < m.n;
    if (m.mine) {
      const std::uint32_t e = lists[static_cast<std::size_t>(local) * group + lane_in_group];
      m.frame = key_frame(e);
      m.x = key_x(e);
      m.y = key_y(e);
    }
    return m;
  }
  __device__ void load(const LanePatch& m, bool basic_patch, float (&v)[kPatchArea]) const {
    if (basic_patch) {
      const DevPlane& b = basic[m.frame];
#pragma unroll
      for (int q = 0; q < kPatchArea; ++q) v[q] = b.at(m.x + q % kPatch, m.y + q / kPatch);
    } else {
      const PlaneView& p = noisy[m.frame];
#pragma unroll
      for (int q = 0; q < kPatchArea; ++q)
        v[q] = static_cast<float>(p.get(clamp_coord(m.x + q % kPatch, p.width), clamp_coord(m.y + q / kPatch, p.height)));
    }
  }
  __device__ void aggregate(const LanePatch& m, int lane_in_group, float (&v)[kPatchArea], float weight) const {
    if (!(m.mine && num[m.frame] && (!reference_only || lane_in_group == 0))) return;
    inverse_2d(v, t2d);
    auto* const n = reinterpret_cast<unsigned long long*>(num[m.frame]);
    auto* const d = reinterpret_cast<unsigned long long*>(den[m.frame]);
#pragma unroll
    for (int q = 0; q < kPatchArea; ++q) {
      const float wk = weight * c_kaiser[q];
      const std::size_t at = static_cast<std::size_t>(m.y + q / kPatch) * acc_pitch + m.x + q % kPatch;
      atomicAdd(n + at, to_fixed(wk * v[q], kFixedScale));
      atomicAdd(d + at, to_fixed(wk, kFixedScale));
    }
  }
};

// Frames held in a ring of `size` slots: slot f % size, tagged with f.
struct Ring {
  int size = 1;
  std::vector<int> tag;
  void reset(int n) {
    size = std::max(1, n);
    tag.assign(size, -1);
  }
  int slot(int f) const { return f % size; }
  bool holds(int f) const { return tag[slot(f)] == f; }
  void put(int f) { tag[slot(f)] = f; }
};

}  // namespace

struct Vbm3dCuda::State {
  MotionCuda motion;
  std::vector<void*> buffers;
  std::vector<std::size_t> sizes;
  std::size_t bytes = 0;
  int batch_refs = kDefaultBatch;
  bool timing = false;
  Timing last;

  void* reserve(int slot, std::size_t n) { return reserve_slot(buffers, sizes, bytes, slot, n); }
  DevPlane plane(int slot, int vw, int vh) {
    return reserve_plane([this](int k, std::size_t n) { return reserve(k, n); }, slot, vw, vh);
  }
};

// Buffer slots of State::reserve.
namespace {
constexpr int kSlotFields = 0, kSlotLists = 1, kSlotCounts = 2;
constexpr int kSlotBasicFields = 3, kSlotBasicLuma = 4;  // Vbm3dParams::motion_on_basic
constexpr int kSlotAcc = 1000;       // + 400 phase (group aggregation) + 20 ring slot + 2 c (numerator) / 2 c + 1 (denominator)
constexpr int kSlotLuma1 = 100;      // + ring slot: the noisy luma in float
constexpr int kSlotGuide1 = 200;     // + 20 size group + ring slot: phase-1 guides of other sizes
constexpr int kSlotBasic = 300;      // + 40 component + ring slot (at most 25)
constexpr int kSlotGuide2 = 500;     // + 40 size group + ring slot: phase-2 guides of other sizes
}  // namespace

Vbm3dCuda::Vbm3dCuda() : s_(new State) {}

Vbm3dCuda::~Vbm3dCuda() { free_slots(s_->buffers); }

std::size_t Vbm3dCuda::device_bytes() const { return s_->bytes + s_->motion.device_bytes(); }
int Vbm3dCuda::default_batch_references() { return kDefaultBatch; }
void Vbm3dCuda::set_batch_references(int n) { s_->batch_refs = std::max(1, n); }
void Vbm3dCuda::enable_timing(bool on) { s_->timing = on; }
Vbm3dCuda::Timing Vbm3dCuda::last_timing() const { return s_->last; }

void Vbm3dCuda::run(const std::vector<FrameView>& window, int out_begin, int out_end, const std::vector<FrameView>& outs,
                    int filtered, const Vbm3dParams& params, const std::vector<double>& sigma, void* stream_ptr,
                    const std::atomic<bool>* cancel) {
  validate(params);
  const int n = static_cast<int>(window.size());
  if (n == 0 || out_begin < 0 || out_end > n || out_begin >= out_end)
    throw InvalidArgument("vbm3d: the output frames must be frames of the window");
  if (static_cast<int>(outs.size()) < out_end - out_begin)
    throw InvalidArgument("vbm3d: an output frame for every frame filtered is needed");
  const int ncomp = format_info(window[0].format).components;
  filtered = std::min(filtered, ncomp);
  if (static_cast<int>(sigma.size()) < filtered) throw InvalidArgument("vbm3d: a sigma for every component is needed");
  for (const Vbm3dPhaseParams* p : {&params.hard, &params.wiener})
    if (std::max(p->seeds, p->per_frame) > kMaxFrameList || p->seeds > kMaxSeeds)
      throw InvalidArgument("vbm3d: on the GPU, seeds must be at most 8 and per-frame members at most 16");
  if (window[0].width > 16376 || window[0].height > 8184)
    throw InvalidArgument("vbm3d: frames up to 16376 x 8184 on the GPU");
  std::vector<std::vector<PlaneView>> comps(n);
  for (int f = 0; f < n; ++f) {
    if (window[f].format != window[0].format || window[f].width != window[0].width ||
        window[f].height != window[0].height)
      throw InvalidArgument("vbm3d: the window's frames differ in format or size");
    comps[f] = components(window[f]);
  }
  State& S = *s_;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  enum Stage { kMotion, kMatch, kFilter, kOther };
  StageTimer<4> timer(S.timing, stream);
  timer.mark(kOther);

  static const auto kaiser = kaiser_window();  // static: the asynchronous copy reads it later
  CDN_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_kaiser, kaiser.data(), sizeof(float) * kPatchArea, 0,
                                         cudaMemcpyHostToDevice, stream));
  const int depth = comps[0][0].bit_depth;
  const int lw = comps[0][0].width, lh = comps[0][0].height;
  const int r1 = params.hard.radius, r2 = params.phases == 2 ? params.wiener.radius : 0;
  const int ahead = params.causal ? 0 : 1;  // the causal window reads no frame after t
  const std::vector<std::vector<int>> by_size = components_by_size(comps[0], sigma, filtered);

  // 1. Motion between adjacent frames, both directions, once (pyramids in two slots).
  const MotionParams& mp = params.motion_params;
  const int fcols = MotionCuda::cols(lw, mp), frows = MotionCuda::rows(lh, mp);
  const std::size_t field_cells = static_cast<std::size_t>(fcols) * frows;
  MotionVector* fields = nullptr;  // forward[f] at 2 f, backward[f] at 2 f + 1
  if (params.motion && n > 1) {
    fields = static_cast<MotionVector*>(S.reserve(kSlotFields, sizeof(MotionVector) * field_cells * 2 * (n - 1)));
    for (int f = 0; f < n; ++f) {
      S.motion.build_pyramid(comps[f][0], f % 2, mp, stream);
      if (f == 0) continue;
      // The causal window never walks forward: no forward fields.
      if (!params.causal) S.motion.estimate((f - 1) % 2, f % 2, fields + field_cells * 2 * (f - 1), mp, stream);
      S.motion.estimate(f % 2, (f - 1) % 2, fields + field_cells * (2 * (f - 1) + 1), mp, stream);
    }
  }
  // The Wiener phase's fields on the basic estimates (Vbm3dParams::motion_on_basic),
  // estimated as the hard phase's sweep divides each basic estimate (in frame
  // order), from its luma rounded as an output is; pyramid slots 2 and 3.
  MotionVector* basic_fields = nullptr;
  PlaneView basic_luma;
  if (fields && params.phases == 2 && params.motion_on_basic) {
    basic_fields =
        static_cast<MotionVector*>(S.reserve(kSlotBasicFields, sizeof(MotionVector) * field_cells * 2 * (n - 1)));
    basic_luma.data = S.reserve(kSlotBasicLuma, sizeof(std::uint16_t) * lw * lh);
    basic_luma.pitch = sizeof(std::uint16_t) * lw;
    basic_luma.width = lw;
    basic_luma.height = lh;
    basic_luma.bytes_per_sample = 2;
    basic_luma.bit_depth = depth;
    basic_luma.memory = MemoryKind::Device;
  }
  timer.mark(kMotion);

  // Rings: the noisy luma and phase-1 guides (2 R1 + 1 frames), basic estimates
  // and phase-2 guides (2 R2 + 1 frames, + R1 with the group aggregation).
  Ring ring1, ring2;
  // With the group aggregation the last hard-phase reference frame of the window
  // divides up to R1 basic estimates beyond the one asked for: R1 more slots.
  const bool group_agg = params.aggregation == Vbm3dAggregation::Group;
  ring1.reset(std::min(n, 2 * r1 + 1));
  ring2.reset(std::min(n, 2 * r2 + 1 + (group_agg ? r1 : 0)));
  std::vector<Ring> guide1(by_size.size(), ring1);
  auto luma1 = [&](int f) { return S.plane(kSlotLuma1 + ring1.slot(f), lw, lh); };
  auto size_of = [&](std::size_t gi) { return std::make_pair(comps[0][by_size[gi][0]].width, comps[0][by_size[gi][0]].height); };
  auto is_luma_size = [&](std::size_t gi) { return size_of(gi) == std::make_pair(lw, lh); };
  auto guide1_plane = [&](std::size_t gi, int f) {
    if (is_luma_size(gi)) return luma1(f);
    const auto [w, h] = size_of(gi);
    return S.plane(kSlotGuide1 + 20 * static_cast<int>(gi) + ring1.slot(f), w, h);
  };
  auto basic_plane = [&](int c, int f) {
    return S.plane(kSlotBasic + 40 * c + ring2.slot(f), comps[0][c].width, comps[0][c].height);
  };
  auto guide2_plane = [&](std::size_t gi, int f) {
    if (is_luma_size(gi)) return basic_plane(0, f);
    const auto [w, h] = size_of(gi);
    return S.plane(kSlotGuide2 + 40 * static_cast<int>(gi) + ring2.slot(f), w, h);
  };
  // Phase-1 guides of frame f.
  auto ensure_guides1 = [&](int f) {
    if (!ring1.holds(f)) {
      const DevPlane l = luma1(f);
      load_plane_kernel<<<plane_grid(l.width, l.height), dim3(32, 8), 0, stream>>>(comps[f][0], l);
      CDN_CHECK_LAUNCH("vbm3d load_plane_kernel");
      ring1.put(f);
    }
    for (std::size_t gi = 0; gi < by_size.size(); ++gi) {
      if (is_luma_size(gi) || guide1[gi].holds(f)) continue;
      const DevPlane g = guide1_plane(gi, f);
      resample_guide_kernel<<<plane_grid(g.width, g.height), dim3(32, 8), 0, stream>>>(luma1(f), g);
      CDN_CHECK_LAUNCH("vbm3d resample_guide_kernel");
      guide1[gi].put(f);
    }
  };

  // The group lists of a batch, and the fixed-point accumulators per phase and
  // component: a ring of frames whose references are still to add to them (one
  // frame; with the group aggregation the 2 R + 1 frames within R of the
  // reference frame, whose patches go to the frames they lie in).
  const int spread[2] = {group_agg ? r1 : 0, group_agg ? r2 : 0};  // per phase: frames an accumulator waits for
  const int max_group = std::max(params.hard.group, params.phases == 2 ? params.wiener.group : 1);
  const RefGrid luma_grid(std::max(lw, kPatch), std::max(lh, kPatch), std::min(params.hard.step, params.wiener.step));
  const int batch = std::min(S.batch_refs, luma_grid.count());
  auto* lists = static_cast<std::uint32_t*>(S.reserve(kSlotLists, sizeof(std::uint32_t) * batch * max_group));
  auto* counts = static_cast<std::uint8_t*>(S.reserve(kSlotCounts, batch));
  std::vector<int> acc_pitch(filtered), acc_rows(filtered);
  for (int c = 0; c < filtered; ++c) {
    acc_pitch[c] = (std::max(comps[0][c].width, kPatch) + 31) / 32 * 32;
    acc_rows[c] = std::max(comps[0][c].height, kPatch);
  }
  Ring acc_ring[2];
  for (int ph = 0; ph < 2; ++ph) acc_ring[ph].reset(std::min(n, 2 * spread[ph] + 1));
  // The two phases' rings share their buffers unless they interleave (group aggregation).
  auto accumulator = [&](int ph, int c, int f, int which) {
    const int slot = kSlotAcc + (group_agg ? 400 * ph : 0) + 20 * acc_ring[ph].slot(f) + 2 * c + which;
    return static_cast<long long*>(S.reserve(slot, sizeof(long long) * acc_pitch[c] * acc_rows[c]));
  };
  const int shared_limit = max_shared_optin();
  const std::size_t wiener_shared = sizeof(float) * kPatchArea * 32 * kFilterWarps;
  if (wiener_shared > static_cast<std::size_t>(shared_limit))
    throw Error("vbm3d: the Wiener filter needs " + std::to_string(wiener_shared) +
                " bytes of shared memory, more than this GPU's " + std::to_string(shared_limit));

  // The frames a phase's accumulators are kept for, [need0, need1), and where its
  // sweep over reference frames stands: the next reference frame, the next
  // accumulator to clear and the next to divide.
  struct Sweep {
    int need0 = 0, need1 = 0, ref_end = 0;
    int next_ref = 0, next_zero = 0, next_done = 0;
  };
  Sweep sweep[2];
  auto start_sweep = [&](int ph, int need0, int need1) {
    Sweep& w = sweep[ph];
    w.need0 = need0;
    w.need1 = need1;
    w.next_ref = std::max(0, need0 - spread[ph]);
    w.ref_end = std::min(n, need1 + ahead * spread[ph]);
    w.next_zero = w.next_done = need0;
  };

  // The references of frame t in one phase: groups on the guides, every
  // component of each size filtered into the accumulators of the frames kept.
  auto references = [&](int ph, int t) {
    const bool wiener = ph == 1;
    const vbm3d::PhaseSetup ps = vbm3d::phase_setup(params, wiener, depth, sigma[0]);  // tau_ssd: per size below
    const int R = ps.p.radius;
    const int lo = std::max(0, t - R) - (t - R), hi = std::min(n - 1, t + ahead * R) - (t - R);
    for (int k = lo; k <= hi; ++k)  // the rings hold every frame searched (a broken invariant is a bug here)
      if (!(wiener ? ring2 : ring1).holds(t - R + k)) throw Error("vbm3d: internal error, a ring lacks a frame");
    for (std::size_t gi = 0; gi < by_size.size(); ++gi) {
      const std::vector<int>& cs = by_size[gi];
      const auto [w, h] = size_of(gi);
      MatchArgs ma{};
      for (int k = lo; k <= hi; ++k) {
        const int f = t - R + k;
        ma.guide[k] = wiener ? guide2_plane(gi, f) : guide1_plane(gi, f);
        const MotionVector* phase_fields = wiener && basic_fields ? basic_fields : fields;
        if (phase_fields && k < hi) {
          ma.forward[k] = phase_fields + field_cells * 2 * f;
          ma.backward[k] = phase_fields + field_cells * (2 * f + 1);
        }
      }
      ma.field_cols = fcols;
      ma.field_rows = frows;
      ma.field_cell = mp.cell;
      ma.R = R;
      ma.lo = lo;
      ma.hi = hi;
      ma.fx = lw > w ? 2 : 1;
      ma.fy = lh > h ? 2 : 1;
      ma.grid = RefGrid(std::max(w, kPatch), std::max(h, kPatch), ps.p.step);
      ma.window = ps.p.window;
      ma.predictive = ps.p.predictive;
      ma.seeds = ps.p.seeds;
      ma.per_frame = ps.p.per_frame;
      ma.group = ps.p.group;
      ma.own_frame = ps.p.own_frame;
      ma.motion = ps.motion && fields ? 1 : 0;
      ma.tau = vbm3d::phase_setup(params, wiener, depth, vbm3d::guide_sigma(sigma[0], comps[0][0], w, h)).tau_ssd;
      ma.lists = lists;
      ma.counts = counts;
      const int total = ma.grid.count();
      for (int first = 0; first < total; first += batch) {
        if (cancel && cancel->load()) throw Cancelled();
        ma.first_ref = first;
        ma.count = std::min(batch, total - first);
        timer.mark(kOther);
        match_kernel<<<(ma.count + kRefsPerMatchBlock - 1) / kRefsPerMatchBlock, kMatchWarps * 32, 0, stream>>>(ma);
        CDN_CHECK_LAUNCH("vbm3d match_kernel");
        timer.mark(kMatch);
        for (int c : cs) {
          TemporalGroups fa{};
          for (int k = lo; k <= hi; ++k) {
            const int f = t - R + k;
            fa.noisy[k] = comps[f][c];
            if (wiener) fa.basic[k] = basic_plane(c, f);
            const bool kept = f >= sweep[ph].need0 && f < sweep[ph].need1 && std::abs(f - t) <= spread[ph];
            fa.num[k] = kept ? accumulator(ph, c, f, 0) : nullptr;
            fa.den[k] = kept ? accumulator(ph, c, f, 1) : nullptr;
          }
          fa.count = ma.count;
          fa.lists = lists;
          fa.counts = counts;
          fa.group = ps.p.group;
          fa.sigma = static_cast<float>(sigma[c]);
          fa.lambda3d = PhaseParams{}.lambda3d;
          fa.acc_pitch = acc_pitch[c];
          fa.reference_only = params.aggregation == Vbm3dAggregation::Reference ? 1 : 0;
          const int blocks = (ma.count + kFilterRefs - 1) / kFilterRefs;
          const std::size_t smem = wiener ? wiener_shared : 0;
          auto launch = [&](auto kernel) {
            allow_dynamic_shared(kernel, smem);
            kernel<<<blocks, kFilterWarps * 32, smem, stream>>>(fa);
          };
          with_group_size(std::max(8, ps.p.group), [&](auto k) {
            constexpr int kK = decltype(k)::value;
            if (wiener)
              launch(filter_kernel<true, kK, TemporalGroups>);
            else
              launch(filter_kernel<false, kK, TemporalGroups>);
          });
          CDN_CHECK_LAUNCH("vbm3d filter_kernel");
        }
        timer.mark(kFilter);
      }
    }
  };

  // Frame f's accumulators divided: the basic estimate into the ring (components
  // left unfiltered: their noisy values) with its phase-2 guides, or the output
  // (components not filtered copied).
  auto finish = [&](int ph, int f) {
    const bool to_output = ph == 1 || params.phases == 1;
    const FrameView* out = to_output ? &outs[f - out_begin] : nullptr;
    for (const std::vector<int>& cs : by_size)
      for (int c : cs) {
        DevPlane estimate;  // the basic ring's plane, or none
        if (!out) estimate = basic_plane(c, f);
        const PlaneView o = out ? components(*out)[c] : PlaneView{};
        divide_kernel<<<plane_grid(acc_pitch[c], acc_rows[c]), dim3(32, 8), 0, stream>>>(
            accumulator(ph, c, f, 0), accumulator(ph, c, f, 1), acc_pitch[c], estimate, o, out ? 1 : 0,
            std::max(comps[0][c].width, kPatch), acc_rows[c]);
        CDN_CHECK_LAUNCH("vbm3d divide_kernel");
      }
    if (!out) {
      ring2.put(f);
      for (int c = 0; c < filtered; ++c) {
        if (sigma[c] > 0) continue;
        const DevPlane b = basic_plane(c, f);
        load_plane_kernel<<<plane_grid(b.width, b.height), dim3(32, 8), 0, stream>>>(comps[f][c], b);
        CDN_CHECK_LAUNCH("vbm3d load_plane_kernel (basic)");
      }
      for (std::size_t gi = 0; gi < by_size.size(); ++gi) {
        if (is_luma_size(gi)) continue;
        const DevPlane g = guide2_plane(gi, f);
        resample_guide_kernel<<<plane_grid(g.width, g.height), dim3(32, 8), 0, stream>>>(basic_plane(0, f), g);
        CDN_CHECK_LAUNCH("vbm3d resample_guide_kernel (basic)");
      }
      if (basic_fields) {
        timer.mark(kOther);
        round_plane_kernel<<<plane_grid(lw, lh), dim3(32, 8), 0, stream>>>(basic_plane(0, f), basic_luma);
        CDN_CHECK_LAUNCH("vbm3d round_plane_kernel");
        S.motion.build_pyramid(basic_luma, 2 + f % 2, mp, stream);
        if (f > sweep[0].need0) {  // the sweep divides its frames in order: f - 1's pyramid is in the other slot
          if (!params.causal)
            S.motion.estimate(2 + (f - 1) % 2, 2 + f % 2, basic_fields + field_cells * 2 * (f - 1), mp, stream);
          S.motion.estimate(2 + f % 2, 2 + (f - 1) % 2, basic_fields + field_cells * (2 * (f - 1) + 1), mp, stream);
        }
        timer.mark(kMotion);
      }
      return;
    }
    const std::vector<PlaneView> in_c = comps[f], out_c = components(*out);
    for (int c = 0; c < static_cast<int>(out_c.size()); ++c) {
      if (c < filtered && sigma[c] > 0) continue;
      copy_component_kernel<<<plane_grid(out_c[c].width, out_c[c].height), dim3(32, 8), 0, stream>>>(in_c[c],
                                                                                                       out_c[c]);
      CDN_CHECK_LAUNCH("vbm3d copy_component_kernel");
    }
  };

  // Runs phase ph's sweep until frame f is divided: before reference frame u,
  // the frames u searches made ready and the accumulators of the frames up to
  // u + spread cleared; after it, every frame no later reference adds to divided.
  std::function<void(int, int)> finish_through = [&](int ph, int f) {
    Sweep& w = sweep[ph];
    while (w.next_done <= f) {
      if (w.next_ref >= w.ref_end) throw Error("vbm3d: internal error, a frame outside the sweep was asked for");
      const int u = w.next_ref;
      // First what u searches (the basic estimates run the hard phase's sweep,
      // whose accumulators the frame aggregation shares), then u's accumulators.
      const int R = ph == 0 ? r1 : r2;
      if (ph == 0)
        for (int g = std::max(0, u - R); g <= std::min(n - 1, u + ahead * R); ++g) ensure_guides1(g);
      else
        finish_through(0, std::min(n - 1, u + ahead * R));
      for (; w.next_zero < w.need1 && w.next_zero <= u + spread[ph]; ++w.next_zero)
        for (const std::vector<int>& cs : by_size)
          for (int c : cs) {
            const std::size_t bytes = sizeof(long long) * acc_pitch[c] * acc_rows[c];
            CDN_CUDA_CHECK(cudaMemsetAsync(accumulator(ph, c, w.next_zero, 0), 0, bytes, stream));
            CDN_CUDA_CHECK(cudaMemsetAsync(accumulator(ph, c, w.next_zero, 1), 0, bytes, stream));
          }
      references(ph, u);
      ++w.next_ref;
      for (; w.next_done < w.need1 && (w.next_done + ahead * spread[ph] <= u || w.next_ref == w.ref_end);
           ++w.next_done)
        finish(ph, w.next_done);
    }
  };

  if (params.phases == 1) {
    start_sweep(0, out_begin, out_end);
  } else {
    // The basic estimates that the Wiener references of the outputs read.
    start_sweep(0, std::max(0, out_begin - r2 - spread[1]), std::min(n, out_end + ahead * (r2 + spread[1])));
    start_sweep(1, out_begin, out_end);
  }
  for (int t = out_begin; t < out_end; ++t) {
    if (cancel && cancel->load()) throw Cancelled();
    finish_through(params.phases == 1 ? 0 : 1, t);
  }
  timer.mark(kOther);
  const auto ms = timer.result();
  S.last = Timing{ms[kMotion], ms[kMatch], ms[kFilter], ms[kOther]};
}

}  // namespace cdn
