// nlm3d_planar_block.h: what one thread block of the 2D-patch NLM-3D kernel
// does (patch-shape=2d, with or without motion-search; nlm3d_cuda.cu launches
// it), written once for the device and the host. The CPU tests run the same
// functions block by block and thread by thread (tests/kernels/
// test_nlm3d_planar_block.cpp) and compare them with nlm3d_reference, so CI
// checks the kernel's index arithmetic without a GPU.
//
// Mapping. A block of 4 warps filters a 32 x 32 tile of one output frame; lane
// l of warp w owns column x0 + l and rows y0 + 8w .. y0 + 8w + 7 (no apron
// lanes: a lane forms its own horizontal sums, so lanes of one warp may follow
// different motion vectors). The block loads its frame's guide tile (32 + 2r)^2
// once; then, per temporal offset, the candidate frame's guide and values over
// the tile's search region (the tile's vectors' spread included) into shared
// memory, with two barriers. Per spatial row offset dy, a lane takes the
// horizontal offsets dx in groups of kGroup: for each of the kRows + 2r rows
// of its walk it reads the 2r + 1 guide samples of its patch row and the
// kGroup + 2r candidate samples that the group's patches cover, forms the
// kGroup row sums of squared differences (in the order of the reference's x
// sums), keeps the last 2r + 1 of each in registers for the y sums, and turns
// each finished sum into a weight, accumulated in registers: no barrier inside
// a temporal offset. A tile whose vectors spread over more than kSpread pixels
// on an axis reads its candidates from global memory instead (same values,
// same order: only slower).
//
// Motion vectors are constant over each warp's 8 rows when the field's cell,
// in the pass's rows, is a multiple of 8 (luma cells of 8 or 16, 16 for 4:2:0
// chroma); nlm3d_cuda_chunk checks it. So are frame-confidence's factors
// (nlm3d_confidence.h: cells of a multiple of 16 luma pixels): a lane reads its
// factor once per temporal offset.
#pragma once

#include <math.h>

#include <climits>
#include <cmath>

#include "cudadenoise/plane.h"
#include "nlm3d/nlm3d_confidence.h"
#include "nlm3d/nlm3d_cuda.h"
#include "nlm3d/nlm3d_guide.h"
#include "nlm3d/nlm3d_motion.h"

namespace cdn::nlm_planar {

constexpr int kWarps = 4;    // warps per block, stacked vertically
constexpr int kRows = 8;     // output rows per warp
constexpr int kTile = 32;    // the tile's side: 32 columns (one per lane) x kWarps * kRows rows
constexpr int kGroup = 5;    // horizontal offsets a lane evaluates from one row of candidates
constexpr int kSpread = 16;  // largest spread of a tile's vectors, per axis, served from shared memory
static_assert(kWarps * kRows == kTile, "square tiles");

struct Params {
  NlmChunk c;
  int R = 1, Rn = 1, Rt = 0;  // search radius in frame t and in the others, temporal radius
  int dt_last = 0;            // the last temporal offset searched: Rt, or 0 for the causal window
  float inv_h2 = 0.f;
  float offset = 0.f;  // distance-offset's 2 sigma^2 |B| (0 when off)
  float self_floor = 0.f;  // self-weight-floor (0: the papers' rule)
  // Null: no motion. Else out_count x (2 Rt + 1) fields, [z * (2 Rt + 1) + dt + Rt].
  const NlmMotionField* fields = nullptr;
  // frame-confidence's factors of the chunk's output frames (factor null: off).
  NlmConfidence confidence;
};

// The factor of the lane's pixels' candidates in frame t + dt (1 for frame t or without confidence).
CDN_HD float lane_confidence(const Params& P, int z, int dt, int x, int y) {
  if (!P.confidence.factor || dt == 0) return 1.f;
  const int w = P.c.value_proto[0].width, h = P.c.value_proto[0].height;
  return nlm_confidence_factor(P.confidence, z, dt, clamp_coord(x, w), clamp_coord(y, h));
}

// Frame t of a window table (t clamped to the stream, which the window covers).
CDN_HD PlaneView frame_at(const NlmChunk& c, const PlaneView& proto, const void* const* table, int t) {
  t = t < 0 ? 0 : (t >= c.stream_length ? c.stream_length - 1 : t);
  PlaneView v = proto;
  v.data = const_cast<void*>(table[t - c.window_first]);
  return v;
}

// The guide sample (x, y) of frame t, clamped to the pass's plane.
CDN_HD float guide_sample(const NlmChunk& c, int t, int x, int y) {
  const int w = c.value_proto[0].width, h = c.value_proto[0].height;
  const PlaneView f = frame_at(c, c.guide_proto, c.guide_window, t);
  return static_cast<float>(luma_guide_sample(f, clamp_coord(x, w), clamp_coord(y, h), c.fx, c.fy));
}

// The search radius in frame t + dt.
CDN_HD int search_radius(const Params& P, int dt) { return dt == 0 ? P.R : P.Rn; }

// Horizontal offsets -R .. hi(R) are evaluated (whole groups); those above R are discarded.
CDN_HD int group_hi(int R) { return -R + ((2 * R + kGroup) / kGroup) * kGroup - 1; }

// Shared memory, in floats: the guide tile, the largest guide region, the largest
// value region (R: the larger of the two search radii).
struct Layout {
  int cen_side, reg_w, reg_h, val_side;
  CDN_HD Layout(int R, int r)
      : cen_side(kTile + 2 * r),
        reg_w(kTile + 2 * r + R + group_hi(R) + kSpread),
        reg_h(kTile + 2 * r + 2 * R + kSpread),
        val_side(kTile + 2 * R + kSpread) {}
  CDN_HD int floats(int values) const { return cen_side * cen_side + reg_w * reg_h + values * val_side * val_side; }
};

// The regions of the candidate frame that a tile reads, from the spread of its vectors.
struct Regions {
  bool shared = true;      // false: the spread is too wide, lanes read global memory
  int gx0, gy0, gw, gh;    // guide samples [gx0, gx0 + gw) x [gy0, gy0 + gh)
  int vx0, vy0, vw, vh;    // value samples
};

CDN_HD Regions plan_regions(int x0, int y0, int R, int r, int vxmin, int vxmax, int vymin, int vymax) {
  Regions g;
  const int sx = vxmax - vxmin, sy = vymax - vymin;
  g.shared = sx <= kSpread && sy <= kSpread;
  g.gx0 = x0 - r - R + vxmin;
  g.gy0 = y0 - r - R + vymin;
  g.gw = kTile + 2 * r + R + group_hi(R) + sx;
  g.gh = kTile + 2 * r + 2 * R + sy;
  g.vx0 = x0 - R + vxmin;
  g.vy0 = y0 - R + vymin;
  g.vw = kTile + 2 * R + sx;
  g.vh = kTile + 2 * R + sy;
  return g;
}

// The vector of the pixel (x, y) of output frame z towards frame t + dt (zero
// without motion or for dt = 0), coordinates clamped to the plane.
CDN_HD void lane_vector(const Params& P, int z, int dt, int x, int y, int* vx, int* vy) {
  *vx = 0;
  *vy = 0;
  if (!P.fields || dt == 0) return;
  const NlmChunk& c = P.c;
  const NlmMotionField& f = P.fields[z * (2 * P.Rt + 1) + dt + P.Rt];
  nlm_motion_vector(f, clamp_coord(x, c.value_proto[0].width), clamp_coord(y, c.value_proto[0].height), c.fx, c.fy,
                    vx, vy);
}

// Loads the guide tile of frame t: cen[row][col] = guide (x0 - r + col, y0 - r + row).
CDN_HD void load_centre(const Params& P, float* cen, int r, int t, int x0, int y0, int tid, int nth) {
  const int side = kTile + 2 * r;
  for (int i = tid; i < side * side; i += nth) cen[i] = guide_sample(P.c, t, x0 - r + i % side, y0 - r + i / side);
}

// Loads the regions of frame tc: reg[row][col] (guide), val[row][v][col] (values).
CDN_HD void load_regions(const Params& P, const Regions& g, float* reg, float* val, int nv, int tc, int tid,
                         int nth) {
  const NlmChunk& c = P.c;
  const int w = c.value_proto[0].width, h = c.value_proto[0].height;
  for (int i = tid; i < g.gw * g.gh; i += nth) reg[i] = guide_sample(c, tc, g.gx0 + i % g.gw, g.gy0 + i / g.gw);
  for (int v = 0; v < nv; ++v) {
    const PlaneView f = frame_at(c, c.value_proto[v], c.value_window[v], tc);
    for (int i = tid; i < g.vw * g.vh; i += nth)
      val[((i / g.vw) * nv + v) * g.vw + i % g.vw] =
          static_cast<float>(f.get(clamp_coord(g.vx0 + i % g.vw, w), clamp_coord(g.vy0 + i / g.vw, h)));
  }
}

// Candidate samples from the shared regions.
struct SharedReader {
  const float* reg;
  const float* val;
  Regions g;
  int nv;
  template <int W>
  CDN_HD void guide_row(int X0, int Y, float (&q)[W]) const {
    const float* p = reg + (Y - g.gy0) * g.gw + (X0 - g.gx0);
CDN_UNROLL
    for (int m = 0; m < W; ++m) q[m] = p[m];
  }
  CDN_HD float value(int v, int X, int Y) const { return val[((Y - g.vy0) * nv + v) * g.vw + X - g.vx0]; }
};

// Candidate samples from the frames themselves (the same values as the loads).
struct GlobalReader {
  const NlmChunk* c;
  int tc;
  template <int W>
  CDN_HD void guide_row(int X0, int Y, float (&q)[W]) const {
CDN_UNROLL
    for (int m = 0; m < W; ++m) q[m] = guide_sample(*c, tc, X0 + m, Y);
  }
  CDN_HD float value(int v, int X, int Y) const {
    return static_cast<float>(frame_at(*c, c->value_proto[v], c->value_window[v], tc).get(X, Y));
  }
};

// What a lane accumulates over the offsets, for its kRows pixels.
template <int NV>
struct LaneSums {
  double num[kRows][NV];
  double den[kRows];
  float wmax[kRows];
  CDN_HD void clear() {
CDN_UNROLL
    for (int o = 0; o < kRows; ++o) {
CDN_UNROLL
      for (int v = 0; v < NV; ++v) num[o][v] = 0.0;
      den[o] = 0.0;
      wmax[o] = 0.f;
    }
  }
};

// Every spatial offset of temporal offset dt for the lane's pixels: column
// x0 + lane, rows y0 + 8 warp + o, search windows centred on (vx, vy); each
// weight times `conf` in the sums (frame-confidence), not in the self weight.
template <int r, int NV, typename Reader>
CDN_HD void lane_offsets(const Params& P, LaneSums<NV>& s, const float* cen, const Reader& rd, int lane, int warp,
                         int x0, int y0, int dt, int vx, int vy, float conf = 1.f) {
  constexpr int p = 2 * r + 1, side = kTile + 2 * r, W = kGroup + 2 * r;
  const int R = search_radius(P, dt), w = P.c.value_proto[0].width, h = P.c.value_proto[0].height;
  const int x = x0 + lane, row0 = warp * kRows;
  if (x >= w || y0 + row0 >= h) return;  // no output pixel: nothing to accumulate
  for (int dy = -R; dy <= R; ++dy)
    for (int g0 = -R; g0 <= R; g0 += kGroup) {
      float ring[kGroup][p];
CDN_UNROLL
      for (int j = 0; j < kRows + 2 * r; ++j) {
        // Patch row y0 + row0 + j - r: the lane's samples x - r .. x + r, and the
        // candidates x - r + vx + g0 .. + W - 1 of the row displaced by vy + dy.
        const float* cr = cen + (row0 + j) * side + lane;
        float c[p], q[W];
CDN_UNROLL
        for (int i = 0; i < p; ++i) c[i] = cr[i];
        rd.guide_row(x - r + vx + g0, y0 + row0 + j - r + vy + dy, q);
CDN_UNROLL
        for (int k = 0; k < kGroup; ++k) {
          float sum = 0.f;
CDN_UNROLL
          for (int i = 0; i < p; ++i) {
            const float d = c[i] - q[k + i];
            sum += d * d;
          }
          ring[k][j % p] = sum;
        }
        if (j >= 2 * r) {
          const int o = j - 2 * r, yo = y0 + row0 + o, qy = yo + vy + dy;
          if (yo < h && qy >= 0 && qy < h) {
CDN_UNROLL
            for (int k = 0; k < kGroup; ++k) {
              const int dx = g0 + k, qx = x + vx + dx;
              if (dx > R) break;
              if ((dt == 0 && dx == 0 && dy == 0) || qx < 0 || qx >= w) continue;
              float d2 = 0.f;
CDN_UNROLL
              for (int m = 0; m < p; ++m) d2 += ring[k][(o + m) % p];
              const float wt = expf(-fmaxf(d2 - P.offset, 0.f) * P.inv_h2);
              const float wf = wt * conf;
CDN_UNROLL
              for (int v = 0; v < NV; ++v) s.num[o][v] += static_cast<double>(wf) * rd.value(v, qx, qy);
              s.den[o] += wf;
              s.wmax[o] = fmaxf(s.wmax[o], wt);
            }
          }
        }
      }
    }
}

// Writes the lane's pixels of output frame z (rounded half up, clamped).
template <int NV>
CDN_HD void lane_write(const Params& P, const LaneSums<NV>& s, int lane, int warp, int x0, int y0, int z) {
  const NlmChunk& c = P.c;
  const int w = c.value_proto[0].width, h = c.value_proto[0].height, x = x0 + lane;
  if (x >= w) return;
  const int t = c.out_first + z;
CDN_UNROLL
  for (int o = 0; o < kRows; ++o) {
    const int y = y0 + warp * kRows + o;
    if (y >= h) break;
    const double self = s.den[o] > 0.0 ? fmaxf(s.wmax[o], P.self_floor) : 1.0;
CDN_UNROLL
    for (int v = 0; v < NV; ++v) {
      const double centre = frame_at(c, c.value_proto[v], c.value_window[v], t).get(x, y);
      const double value = (s.num[o][v] + self * centre) / (s.den[o] + self);
      PlaneView out = c.out_proto[v];
      out.data = c.outputs[v][z];
      const int q = static_cast<int>(floor(value + 0.5));
      out.set(x, y, q < 0 ? 0 : (q > out.max_value() ? out.max_value() : q));
    }
  }
}

}  // namespace cdn::nlm_planar
