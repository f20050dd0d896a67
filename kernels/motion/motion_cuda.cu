// motion_cuda.cu: the motion kernels (motion_cuda.h). Step for step the
// computation of motion_reference.cpp: same pyramid, same windows and clamping,
// same candidate order and strict-less selection, integer costs.
#include "motion/motion_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kMaxPerLane = 32;  // window samples per lane: (16 + 2 * 8)^2 / 32
// The kernels are instantiated for 8 samples per lane (the default 16x16
// window), 18 (24x24) and kMaxPerLane, so that a lane loops over the samples it
// holds rather than over the largest window's (the same sums in the same order).
int samples_per_lane(const MotionParams& p) {
  const int n2 = p.window() * p.window(), per = (n2 + 31) / 32;
  return per <= 8 ? 8 : per <= 18 ? 18 : kMaxPerLane;
}

struct Level {
  const std::uint16_t* v;
  int w, h;
  __device__ int at(int x, int y) const { return v[static_cast<std::size_t>(y) * w + x]; }
};

__global__ void pyramid_base_kernel(PlaneView luma, std::uint16_t* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= luma.width || y >= luma.height) return;
  out[static_cast<std::size_t>(y) * luma.width + x] = static_cast<std::uint16_t>(luma.get(x, y));
}

__global__ void pyramid_down_kernel(Level f, std::uint16_t* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int x0 = clamp_coord(2 * x, f.w), x1 = clamp_coord(2 * x + 1, f.w);
  const int y0 = clamp_coord(2 * y, f.h), y1 = clamp_coord(2 * y + 1, f.h);
  const int sum = f.at(x0, y0) + f.at(x1, y0) + f.at(x0, y1) + f.at(x1, y1);
  out[static_cast<std::size_t>(y) * w + x] = static_cast<std::uint16_t>((sum + 2) >> 2);
}

// One field of a batch: the pyramids it is estimated between (their buffers'
// starts; every pyramid of a MotionCuda has the same levels) and where it goes.
struct FieldJob {
  const std::uint16_t* a;
  const std::uint16_t* b;
  MotionVector* out;
};

// A launch handles one level (one pass) of every field of a batch: blockIdx.y
// is the field, its scratch fields `stride` vectors apart.
struct SearchArgs {
  const FieldJob* jobs;
  std::size_t level_offset;  // this level's first sample in each pyramid
  int w, h;                  // this level's size
  const MotionVector* parent;  // the coarser level's fields (search) or this level's (smoothing)
  int pcols, prows;
  MotionVector* out;  // this pass's fields; nullptr: the jobs' own outputs (the last pass of level 0)
  std::size_t stride;
  int cols, rows;
  int cell, margin, radius;
  long long lambda;

  __device__ Level a() const { return Level{jobs[blockIdx.y].a + level_offset, w, h}; }
  __device__ Level b() const { return Level{jobs[blockIdx.y].b + level_offset, w, h}; }
  __device__ const MotionVector* parent_field() const { return parent + blockIdx.y * stride; }
  __device__ MotionVector* out_field() const { return out ? out + blockIdx.y * stride : jobs[blockIdx.y].out; }
};

// One warp's view of its cell's window: each lane holds the samples
// k = lane + 32 m (row-major in the window) of frame a and their offsets, m < kPer.
template <int kPer>
struct CellWindow {
  int av[kPer];
  int off[kPer];  // i | j << 8 within the window
  int x0, y0, n2;

  __device__ void load(const SearchArgs& s, const Level& a, int cx, int cy, int lane) {
    const int n = s.cell + 2 * s.margin;
    n2 = n * n;
    x0 = cx * s.cell - s.margin;
    y0 = cy * s.cell - s.margin;
#pragma unroll
    for (int m = 0; m < kPer; ++m) {
      const int k = lane + 32 * m;
      if (k < n2) {
        const int i = k % n, j = k / n;
        off[m] = i | (j << 8);
        av[m] = a.at(clamp_coord(x0 + i, a.w), clamp_coord(y0 + j, a.h));
      }
    }
  }

  // SAD against b displaced by (dx, dy), the same in every lane.
  __device__ int sad(const Level& b, int dx, int dy, int lane) const {
    int sum = 0;
#pragma unroll
    for (int m = 0; m < kPer; ++m) {
      if (lane + 32 * m < n2) {
        const int x = clamp_coord(x0 + (off[m] & 255) + dx, b.w), y = clamp_coord(y0 + (off[m] >> 8) + dy, b.h);
        sum += abs(av[m] - b.at(x, y));
      }
    }
#pragma unroll
    for (int h = 16; h > 0; h >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, h);
    return sum;
  }
};

struct Best {
  long long cost = -1;
  int dx = 0, dy = 0;
  __device__ void offer(long long c, int x, int y) {
    if (cost < 0 || c < cost) {
      cost = c;
      dx = x;
      dy = y;
    }
  }
};

__device__ __forceinline__ long long l1(int a, int b) { return static_cast<long long>(abs(a) + abs(b)); }

// Repeated candidates are skipped (the reference evaluates them; the field is the
// same): a displacement's cost depends on the displacement only (the deviation is
// measured from one vector per cell and pass), and a candidate replaces the best
// only if strictly cheaper, so a candidate seen before never changes the result.
// Real fields are smooth: a cell's predictors (and a smoothing pass's nine
// vectors) mostly coincide, and most of the matching work was repeated.

// Whether (dx, dy) lies in the window of a predictor before q (refinement).
__device__ __forceinline__ bool searched_before(const MotionVector (&pred)[5], int q, int r, int dx, int dy) {
  for (int e = 0; e < q; ++e)
    if (abs(dx - 2 * pred[e].dx) <= r && abs(dy - 2 * pred[e].dy) <= r) return true;
  return false;
}

// Thread mapping: one warp per cell (kWarpsPerBlock cells per block), all lanes
// walking the candidates together.
template <bool kCoarsest, int kPer>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) search_kernel(SearchArgs s) {
  const int cell = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (cell >= s.cols * s.rows) return;  // the whole warp
  const int cx = cell % s.cols, cy = cell / s.cols;
  const Level b = s.b();
  CellWindow<kPer> win;
  win.load(s, s.a(), cx, cy, lane);
  Best best;
  if (kCoarsest) {
    const int r = s.radius;
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) best.offer(win.sad(b, dx, dy, lane) + s.lambda * l1(dx, dy), dx, dy);
  } else {
    const MotionVector* parent = s.parent_field();
    const int px = min(cx / 2, s.pcols - 1), py = min(cy / 2, s.prows - 1);
    const int sx = clamp_coord(px + (cx % 2 ? 1 : -1), s.pcols), sy = clamp_coord(py + (cy % 2 ? 1 : -1), s.prows);
    const MotionVector pred[5] = {parent[py * s.pcols + px], parent[py * s.pcols + sx], parent[sy * s.pcols + px],
                                  parent[sy * s.pcols + sx], MotionVector{}};
    const int p0x = 2 * pred[0].dx, p0y = 2 * pred[0].dy, r = s.radius;
    for (int q = 0; q < 5; ++q) {
      const int qx = 2 * pred[q].dx, qy = 2 * pred[q].dy;
      for (int dy = qy - r; dy <= qy + r; ++dy)
        for (int dx = qx - r; dx <= qx + r; ++dx)
          if (!searched_before(pred, q, r, dx, dy))
            best.offer(win.sad(b, dx, dy, lane) + s.lambda * l1(dx - p0x, dy - p0y), dx, dy);
    }
  }
  if (lane == 0) {
    MotionVector v;
    v.dx = static_cast<std::int16_t>(best.dx);
    v.dy = static_cast<std::int16_t>(best.dy);
    s.out_field()[cell] = v;
  }
}

__device__ int median9(int (&v)[9]) {
  for (int i = 1; i < 9; ++i)
    for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
      const int t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[4];
}

// One smoothing pass (neighbour propagation): s.parent is this level's field
// before the pass. Thread mapping as search_kernel.
template <int kPer>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) smooth_kernel(SearchArgs s) {
  const int cell = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (cell >= s.cols * s.rows) return;
  const int cx = cell % s.cols, cy = cell / s.cols;
  const MotionVector* parent = s.parent_field();
  auto at = [&](int i, int j) { return parent[clamp_coord(cy + j, s.rows) * s.cols + clamp_coord(cx + i, s.cols)]; };
  int vx[9], vy[9], xs[9], ys[9];  // the 3 x 3 neighbourhood, rows of dy then dx; xs, ys sorted by median9
  for (int k = 0; k < 9; ++k) {
    const MotionVector v = at(k % 3 - 1, k / 3 - 1);
    vx[k] = xs[k] = v.dx;
    vy[k] = ys[k] = v.dy;
  }
  const int mx = median9(xs), my = median9(ys);
  // The distinct vectors in the reference's order (own first, then rows of dy, dx);
  // with one, it is the result and nothing need be matched.
  int ux[9], uy[9], distinct = 0;
  for (int k = -1; k < 9; ++k) {
    if (k == 4) continue;
    const int m = k < 0 ? 4 : k;
    bool seen = false;
    for (int e = 0; e < distinct; ++e) seen = seen || (ux[e] == vx[m] && uy[e] == vy[m]);
    if (!seen) {
      ux[distinct] = vx[m];
      uy[distinct] = vy[m];
      ++distinct;
    }
  }
  Best best;
  if (distinct == 1) {
    best.dx = ux[0];
    best.dy = uy[0];
  } else {
    const Level b = s.b();
    CellWindow<kPer> win;
    win.load(s, s.a(), cx, cy, lane);
    for (int e = 0; e < distinct; ++e)
      best.offer(win.sad(b, ux[e], uy[e], lane) + s.lambda * l1(ux[e] - mx, uy[e] - my), ux[e], uy[e]);
  }
  if (lane == 0) {
    MotionVector v;
    v.dx = static_cast<std::int16_t>(best.dx);
    v.dy = static_cast<std::int16_t>(best.dy);
    s.out_field()[cell] = v;
  }
}

dim3 plane_grid(int w, int h) { return dim3((w + 31) / 32, (h + 7) / 8); }

void check_params(const MotionParams& p) {
  if (p.cell < 1 || p.cell > 16 || p.margin < 0 || p.margin > 8)
    throw InvalidArgument("motion: cell must be 1 to 16 and margin 0 to 8 on the GPU");
}

}  // namespace

MotionCuda::~MotionCuda() {
  for (Pyramid& p : pyramids_)
    if (p.data) cudaFree(p.data);  // nothing to report to from a destructor
  for (MotionVector* f : fields_)
    if (f) cudaFree(f);
  if (jobs_) cudaFree(jobs_);
}

void MotionCuda::build_pyramid(const PlaneView& luma, int slot, const MotionParams& p, void* stream_ptr) {
  check_params(p);
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  if (static_cast<int>(pyramids_.size()) <= slot) pyramids_.resize(slot + 1);
  Pyramid& pyr = pyramids_[slot];
  pyr.bit_depth = luma.bit_depth;
  pyr.width.clear();
  pyr.height.clear();
  pyr.offset.clear();
  const int levels = pyramid_levels(luma.width, luma.height, p);
  std::size_t total = 0;
  int w = luma.width, h = luma.height;
  for (int l = 0; l <= levels; ++l) {
    pyr.width.push_back(w);
    pyr.height.push_back(h);
    pyr.offset.push_back(total);
    total += static_cast<std::size_t>(w) * h;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  if (pyr.capacity < total) {
    if (pyr.data) {
      CDN_CUDA_CHECK(cudaFree(pyr.data));
      bytes_ -= pyr.capacity * sizeof(std::uint16_t);
      pyr.data = nullptr;
    }
    CDN_CUDA_CHECK(cudaMalloc(&pyr.data, total * sizeof(std::uint16_t)));
    pyr.capacity = total;
    bytes_ += total * sizeof(std::uint16_t);
  }
  pyramid_base_kernel<<<plane_grid(luma.width, luma.height), dim3(32, 8), 0, stream>>>(luma, pyr.data);
  CDN_CHECK_LAUNCH("motion pyramid_base_kernel");
  for (int l = 1; l <= levels; ++l) {
    const Level f{pyr.data + pyr.offset[l - 1], pyr.width[l - 1], pyr.height[l - 1]};
    pyramid_down_kernel<<<plane_grid(pyr.width[l], pyr.height[l]), dim3(32, 8), 0, stream>>>(
        f, pyr.data + pyr.offset[l], pyr.width[l], pyr.height[l]);
    CDN_CHECK_LAUNCH("motion pyramid_down_kernel");
  }
}

void MotionCuda::estimate(int from, int to, MotionVector* out, const MotionParams& p, void* stream) {
  estimate_many({{from, to, out}}, p, stream);
}

void MotionCuda::estimate_many(const std::vector<FieldPair>& pairs, const MotionParams& p, void* stream_ptr) {
  check_params(p);
  if (pairs.empty()) return;
  const cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  const Pyramid& a0 = pyramids_.at(pairs[0].from);
  std::vector<FieldJob> jobs;
  for (const FieldPair& f : pairs) {
    const Pyramid &a = pyramids_.at(f.from), &b = pyramids_.at(f.to);
    if (a.width != a0.width || a.height != a0.height || b.width != a0.width || b.height != a0.height)
      throw InvalidArgument("motion: the pyramids differ in size");
    jobs.push_back({a.data, b.data, f.out});
  }
  const std::size_t cells = static_cast<std::size_t>(cols(a0.width[0], p)) * rows(a0.height[0], p);
  const std::size_t n = jobs.size();
  if (n > 65535) throw InvalidArgument("motion: at most 65535 fields a batch");
  if (field_capacity_ < cells * n) {  // the scratch fields of every job of the batch
    for (MotionVector*& f : fields_) {
      if (f) {
        CDN_CUDA_CHECK(cudaFree(f));
        bytes_ -= field_capacity_ * sizeof(MotionVector);
        f = nullptr;
      }
      CDN_CUDA_CHECK(cudaMalloc(&f, cells * n * sizeof(MotionVector)));
      bytes_ += cells * n * sizeof(MotionVector);
    }
    field_capacity_ = cells * n;
  }
  if (job_capacity_ < n) {
    if (jobs_) {
      CDN_CUDA_CHECK(cudaFree(jobs_));
      bytes_ -= job_capacity_ * sizeof(FieldJob);
      jobs_ = nullptr;
    }
    CDN_CUDA_CHECK(cudaMalloc(&jobs_, n * sizeof(FieldJob)));
    bytes_ += n * sizeof(FieldJob);
    job_capacity_ = n;
  }
  // Pageable memory: the copy has taken the table when it returns; the launches
  // below are queued after it on the same stream.
  CDN_CUDA_CHECK(cudaMemcpyAsync(jobs_, jobs.data(), n * sizeof(FieldJob), cudaMemcpyHostToDevice, stream));
  SearchArgs s;
  s.jobs = static_cast<const FieldJob*>(jobs_);
  s.lambda = motion_lambda_px(p, a0.bit_depth);
  s.cell = p.cell;
  s.margin = p.margin;
  s.stride = cells;
  int cur = 0, spare = 1, parent = 2;  // indices into fields_
  const int top = static_cast<int>(a0.width.size()) - 1;
  int pcols = 0, prows = 0;
  const int per = samples_per_lane(p);
  for (int l = top; l >= 0; --l) {
    s.level_offset = a0.offset[l];
    s.w = a0.width[l];
    s.h = a0.height[l];
    s.cols = cols(a0.width[l], p);
    s.rows = rows(a0.height[l], p);
    const dim3 grid((s.cols * s.rows + kWarpsPerBlock - 1) / kWarpsPerBlock, static_cast<unsigned>(n)),
        block(kWarpsPerBlock * 32);
    // The last pass of level 0 writes the jobs' own outputs.
    auto out_of = [&](int idx, bool last) { return l == 0 && last ? nullptr : fields_[idx]; };
    s.parent = fields_[parent];
    s.pcols = pcols;
    s.prows = prows;
    s.out = out_of(cur, p.smooth_passes == 0);
    s.radius = l == top ? p.coarse_radius : p.refine_radius;
    switch (per) {
      case 8: l == top ? search_kernel<true, 8><<<grid, block, 0, stream>>>(s)
                       : search_kernel<false, 8><<<grid, block, 0, stream>>>(s); break;
      case 18: l == top ? search_kernel<true, 18><<<grid, block, 0, stream>>>(s)
                        : search_kernel<false, 18><<<grid, block, 0, stream>>>(s); break;
      default: l == top ? search_kernel<true, kMaxPerLane><<<grid, block, 0, stream>>>(s)
                        : search_kernel<false, kMaxPerLane><<<grid, block, 0, stream>>>(s); break;
    }
    CDN_CHECK_LAUNCH("motion search_kernel");
    for (int pass = 0; pass < p.smooth_passes; ++pass) {
      s.parent = fields_[cur];
      s.pcols = s.cols;
      s.prows = s.rows;
      s.out = out_of(spare, pass + 1 == p.smooth_passes);
      switch (per) {
        case 8: smooth_kernel<8><<<grid, block, 0, stream>>>(s); break;
        case 18: smooth_kernel<18><<<grid, block, 0, stream>>>(s); break;
        default: smooth_kernel<kMaxPerLane><<<grid, block, 0, stream>>>(s); break;
      }
      CDN_CHECK_LAUNCH("motion smooth_kernel");
      std::swap(cur, spare);
    }
    std::swap(cur, parent);  // this level's field becomes the parent of the next
    pcols = s.cols;
    prows = s.rows;
  }
}

MotionField estimate_motion_cuda(const PlaneView& from, const PlaneView& to, const MotionParams& p) {
  MotionCuda m;
  m.build_pyramid(from, 0, p, nullptr);
  m.build_pyramid(to, 1, p, nullptr);
  MotionField f(from.width, from.height, p.cell);
  MotionVector* d = nullptr;
  CDN_CUDA_CHECK(cudaMalloc(&d, f.v.size() * sizeof(MotionVector)));
  try {
    m.estimate(0, 1, d, p, nullptr);
    CDN_CUDA_CHECK(cudaMemcpy(f.v.data(), d, f.v.size() * sizeof(MotionVector), cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(d);
    throw;
  }
  CDN_CUDA_CHECK(cudaFree(d));
  return f;
}

}  // namespace cdn
