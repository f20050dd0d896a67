// pipd_reference.cpp: plain C++ PI-PD and hybrid PI-PD (pipd_reference.h).
// Written to be read next to the paper's algorithms 1-3; see docs/PIPD.md for
// the choices the paper leaves open.
#include "pipd/pipd_reference.h"

#include <cstdlib>

#include "pipd/binomial_filter.h"

#include "core/parallel.h"
#include "cudadenoise/error.h"

namespace cdn {

namespace {

int sample(const PlaneView& in, int x, int y) {
  return in.get(clamp_coord(x, in.width), clamp_coord(y, in.height));
}

struct Sums {
  std::int64_t s = 0, q = 0;
  void add(int z) {
    s += z;
    q += static_cast<std::int64_t>(z) * z;
  }
};

Sums pattern_sums(const PlaneView& in, const PatternSet& p, int d, int x, int y) {
  Sums r;
  for (int k = 0; k < p.pixels; ++k) r.add(sample(in, x + p.pixel[d][k].dx, y + p.pixel[d][k].dy));
  return r;
}

// The centre pixel and, for thickness 3, its neighbours across direction d.
Sums centre_sums(const PlaneView& in, const PatternSet& p, int d, int x, int y) {
  Sums r;
  for (int t = 0; t < p.thickness; ++t) r.add(sample(in, x + p.centre[d][t].dx, y + p.centre[d][t].dy));
  return r;
}

bool inside(const PlaneView& in, int x, int y) { return x >= 0 && y >= 0 && x < in.width && y < in.height; }

// One pass of the 3x3 binomial filter over `in` into `storage`, viewed as a
// 16-bit plane of the same size (values keep in's range).
PlaneView binomial_pass(const PlaneView& in, std::vector<std::uint16_t>* storage, int threads) {
  storage->assign(static_cast<std::size_t>(in.width) * in.height, 0);
  PlaneView out;
  out.data = storage->data();
  out.pitch = static_cast<std::size_t>(in.width) * sizeof(std::uint16_t);
  out.width = in.width;
  out.height = in.height;
  out.bytes_per_sample = 2;
  out.bit_depth = 16;
  parallel_rows(in.height, threads, [&](int y) {
    for (int x = 0; x < in.width; ++x) out.set(x, y, binomial3x3_at(in, x, y));
  });
  return out;
}

}  // namespace

void pipd_stage1_reference(const PlaneView& in, const PlaneView& guide, const PatternSet& patterns, PipdStage1* out,
                           int threads) {
  if (guide.width != in.width || guide.height != in.height) throw InvalidArgument("stage 1: guide and input sizes differ");
  const std::size_t n = static_cast<std::size_t>(in.width) * in.height;
  out->width = in.width;
  out->height = in.height;
  out->theta.assign(n, 0);
  out->sum.assign(n, 0);
  out->sum_sq.assign(n, 0);
  const std::int64_t count = patterns.thickness + patterns.pixels;
  parallel_rows(in.height, threads, [&](int y) {
    for (int x = 0; x < in.width; ++x) {
      // Algorithm 1: the smallest sample variance, compared as count^2 * variance
      // = count * Q - S^2 (exact); the first direction wins ties. The variance is
      // that of the isoline the pixel belongs to (section V-A): the centre (and its
      // thickening) with the pattern, measured in the guide. I_sigma keeps the
      // input's sums along the pattern alone, so that stage 2 can chain segments
      // from end pixel to end pixel.
      //
      // Border rule (docs/PIPD.md, "Borders"): a segment is a candidate only when
      // it ends inside the frame (its thin pixels then all lie inside: patterns are
      // monotone in x and y), as stage 2 only follows segments that end inside.
      // Where none does (only in frames under 2l pixels both ways), all are. Without
      // this, on the outermost ring the segment pointing straight out of the frame
      // reads the clamped centre l times, has no variance, wins, and leaves the
      // pixel as it was.
      int best_d = 0;
      bool best_inside = false;
      std::int64_t best_key = 0;
      for (int d = 0; d < kDirections; ++d) {
        const bool ends_inside = inside(in, x + patterns.end[d].dx, y + patterns.end[d].dy);
        const Sums c = pattern_sums(guide, patterns, d, x, y);
        const Sums start = centre_sums(guide, patterns, d, x, y);
        const std::int64_t s = c.s + start.s, q = c.q + start.q;
        const std::int64_t key = count * q - s * s;
        if (d == 0 || (ends_inside && !best_inside) || (ends_inside == best_inside && key < best_key)) {
          best_key = key;
          best_d = d;
          best_inside = ends_inside;
        }
      }
      const Sums best = pattern_sums(in, patterns, best_d, x, y);
      const std::size_t i = static_cast<std::size_t>(y) * in.width + x;
      out->theta[i] = static_cast<std::uint8_t>(best_d);
      out->sum[i] = best.s;
      out->sum_sq[i] = best.q;
    }
  });
}

int pipd_pixel_reference(const PlaneView& in, const PipdStage1& s1, const PatternSet& patterns, int max_segments,
                         const GlrtTable& tmax, int x, int y) {
  const std::size_t i0 = static_cast<std::size_t>(y) * in.width + x;
  int d = s1.theta[i0];
  // The poly-isoline starts with the centre pixel (thickened across the first
  // segment when thickness is 3) and the first segment from stage 1.
  Sums line = centre_sums(in, patterns, d, x, y);
  line.s += s1.sum[i0];
  line.q += s1.sum_sq[i0];
  std::int64_t count = patterns.thickness + patterns.pixels;
  int ex = x + patterns.end[d].dx, ey = y + patterns.end[d].dy;
  for (int k = 1; k < max_segments; ++k) {
    // Lengthening stops at the frame border: I_theta exists only inside it.
    if (!inside(in, ex, ey)) break;
    const std::size_t i = static_cast<std::size_t>(ey) * in.width + ex;
    const int next = s1.theta[i];
    // No turning back: a segment more than 90 degrees away from the previous one ends the isoline.
    if (direction_distance(next, d) > kDirections / 4) break;
    if (!glrt_accepts_merge(line.s, line.q, count, s1.sum[i], s1.sum_sq[i], patterns.pixels, tmax.at(count + patterns.pixels))) break;
    line.s += s1.sum[i];
    line.q += s1.sum_sq[i];
    count += patterns.pixels;
    d = next;
    ex += patterns.end[d].dx;
    ey += patterns.end[d].dy;
  }
  return rounded_mean(line.s, count);
}

int hybrid_pixel_reference(const PlaneView& in, const PatternSet& thin, const GlrtTable& t2max, int x, int y) {
  // The 8 base directions (multiples of 45 degrees) do not share pixels.
  Sums base[8];
  for (int b = 0; b < 8; ++b) base[b] = pattern_sums(in, thin, 4 * b, x, y);
  const int centre = sample(in, x, y);
  const std::int64_t nh = 5 * thin.length + 1, nl = 3 * thin.length;
  int edges = 0;
  std::int64_t edge_sum = 0;
  Sums h, l;
  for (int b = 0; b < 8; ++b) {
    // Half-plane H: the centre and directions b..b+4 (45-degree steps); L: b+5..b+7.
    h = Sums();
    l = Sums();
    h.add(centre);
    for (int j = 0; j < 5; ++j) {
      h.s += base[(b + j) % 8].s;
      h.q += base[(b + j) % 8].q;
    }
    for (int j = 5; j < 8; ++j) {
      l.s += base[(b + j) % 8].s;
      l.q += base[(b + j) % 8].q;
    }
    if (!glrt_accepts_merge(h.s, h.q, nh, l.s, l.q, nl, t2max.at(nh + nl))) {
      ++edges;
      edge_sum = h.s;
    }
  }
  if (edges == 0) return rounded_mean(h.s + l.s, nh + nl);  // low-slope region: the whole window
  if (edges == 1) return rounded_mean(edge_sum, nh);         // on one edge: the centre's half-plane
  return -1;  // more than one edge: PI-PD
}

void pipd_reference(const PlaneView& in, const PlaneView& out, Mode mode, const PipdParams& params, int threads) {
  if (in.memory != MemoryKind::Host || out.memory != MemoryKind::Host)
    throw InvalidArgument("the CPU reference needs host planes");
  if (in.width != out.width || in.height != out.height) throw InvalidArgument("input and output sizes differ");
  const PatternSet patterns = make_patterns(params.segment_length, params.thickness);
  const PatternSet thin = make_patterns(params.segment_length, 1);
  GlrtTable tmax, t2max;
  make_glrt_table(params.tmax, &tmax);
  make_glrt_table(params.t2max, &t2max);
  // Direction prefilter (not in the paper): stage 1 picks directions on a smoothed copy.
  std::vector<std::uint16_t> storage[2];
  PlaneView guide = in;
  for (int pass = 0; pass < params.direction_prefilter; ++pass) guide = binomial_pass(guide, &storage[pass % 2], threads);
  PipdStage1 s1;
  pipd_stage1_reference(in, guide, patterns, &s1, threads);
  parallel_rows(in.height, threads, [&](int y) {
    for (int x = 0; x < in.width; ++x) {
      int v = mode == Mode::Hybrid ? hybrid_pixel_reference(in, thin, t2max, x, y) : -1;
      if (v < 0) v = pipd_pixel_reference(in, s1, patterns, params.max_segments(), tmax, x, y);
      out.set(x, y, v);
    }
  });
}

}  // namespace cdn
