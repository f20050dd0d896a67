// motion_reference.cpp: hierarchical block matching (motion_reference.h), written
// to be read next to the definition in the header: a pyramid, a full search at
// the coarsest level, then predictors refined level by level.
#include "motion/motion_reference.h"

#include <algorithm>
#include <cstdlib>

#include "cudadenoise/error.h"

namespace cdn {

int pyramid_levels(int w, int h, const MotionParams& p) {
  int levels = 0;
  while (levels < p.max_levels) {
    const int nw = (w + 1) / 2, nh = (h + 1) / 2;
    if (std::min(nw, nh) < p.min_coarse_size) break;
    w = nw;
    h = nh;
    ++levels;
  }
  return levels;
}

LumaPyramid build_pyramid(const PlaneView& luma, const MotionParams& p) {
  if (luma.memory != MemoryKind::Host) throw InvalidArgument("build_pyramid: a host plane is needed");
  LumaPyramid pyr;
  pyr.bit_depth = luma.bit_depth;
  const int levels = pyramid_levels(luma.width, luma.height, p);
  PyramidLevel l0;
  l0.width = luma.width;
  l0.height = luma.height;
  l0.v.resize(static_cast<std::size_t>(l0.width) * l0.height);
  for (int y = 0; y < l0.height; ++y)
    for (int x = 0; x < l0.width; ++x)
      l0.v[static_cast<std::size_t>(y) * l0.width + x] = static_cast<std::uint16_t>(luma.get(x, y));
  pyr.levels.push_back(std::move(l0));
  for (int l = 1; l <= levels; ++l) {
    const PyramidLevel& f = pyr.levels.back();
    PyramidLevel c;
    c.width = (f.width + 1) / 2;
    c.height = (f.height + 1) / 2;
    c.v.resize(static_cast<std::size_t>(c.width) * c.height);
    for (int y = 0; y < c.height; ++y)
      for (int x = 0; x < c.width; ++x) {
        const int x0 = clamp_coord(2 * x, f.width), x1 = clamp_coord(2 * x + 1, f.width);
        const int y0 = clamp_coord(2 * y, f.height), y1 = clamp_coord(2 * y + 1, f.height);
        const int sum = f.at(x0, y0) + f.at(x1, y0) + f.at(x0, y1) + f.at(x1, y1);
        c.v[static_cast<std::size_t>(y) * c.width + x] = static_cast<std::uint16_t>((sum + 2) >> 2);
      }
    pyr.levels.push_back(std::move(c));
  }
  return pyr;
}

int motion_lambda_px(const MotionParams& p, int bit_depth) {
  return p.lambda * p.window() * p.window() * (1 << (bit_depth - 8)) / 16;
}

namespace {

// SAD of the window of cell (cx, cy) of `a` against `b` displaced by (dx, dy).
long sad(const PyramidLevel& a, const PyramidLevel& b, int cx, int cy, int dx, int dy, const MotionParams& p) {
  const int x0 = cx * p.cell - p.margin, y0 = cy * p.cell - p.margin, n = p.window();
  long s = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const int ax = clamp_coord(x0 + i, a.width), ay = clamp_coord(y0 + j, a.height);
      const int bx = clamp_coord(x0 + i + dx, b.width), by = clamp_coord(y0 + j + dy, b.height);
      s += std::abs(a.at(ax, ay) - b.at(bx, by));
    }
  return s;
}

struct Best {
  long cost = -1;
  MotionVector v;
  void offer(long c, int dx, int dy) {
    if (cost < 0 || c < cost) {
      cost = c;
      v.dx = static_cast<std::int16_t>(dx);
      v.dy = static_cast<std::int16_t>(dy);
    }
  }
};

// The component-wise median of the vectors of cell (cx, cy) and its 8
// neighbours (clamped to the field: border cells count their own twice or more).
MotionVector neighbour_median(const MotionField& f, int cx, int cy) {
  int xs[9], ys[9], n = 0;
  for (int j = -1; j <= 1; ++j)
    for (int i = -1; i <= 1; ++i) {
      const MotionVector& v = f.at_cell(clamp_coord(cx + i, f.cols), clamp_coord(cy + j, f.rows));
      xs[n] = v.dx;
      ys[n++] = v.dy;
    }
  std::sort(xs, xs + 9);
  std::sort(ys, ys + 9);
  MotionVector m;
  m.dx = static_cast<std::int16_t>(xs[4]);
  m.dy = static_cast<std::int16_t>(ys[4]);
  return m;
}

}  // namespace

MotionField estimate_motion(const LumaPyramid& from, const LumaPyramid& to, const MotionParams& p,
                            const std::atomic<bool>* cancel) {
  if (from.levels.size() != to.levels.size() || from.levels[0].width != to.levels[0].width ||
      from.levels[0].height != to.levels[0].height)
    throw InvalidArgument("estimate_motion: the pyramids differ in size");
  const long lambda = motion_lambda_px(p, from.bit_depth);
  const int top = static_cast<int>(from.levels.size()) - 1;
  MotionField parent;
  for (int l = top; l >= 0; --l) {
    const PyramidLevel &a = from.levels[l], &b = to.levels[l];
    MotionField field(a.width, a.height, p.cell);
    // Search: a full window at the coarsest level, the parent's predictors below.
    for (int cy = 0; cy < field.rows; ++cy) {
      if (cancel && cancel->load()) throw Cancelled();
      for (int cx = 0; cx < field.cols; ++cx) {
        Best best;
        if (l == top) {
          const int r = p.coarse_radius;
          for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx)
              best.offer(sad(a, b, cx, cy, dx, dy, p) + lambda * (std::abs(dx) + std::abs(dy)), dx, dy);
        } else {
          const int px = std::min(cx / 2, parent.cols - 1), py = std::min(cy / 2, parent.rows - 1);
          const int sx = clamp_coord(px + (cx % 2 ? 1 : -1), parent.cols);
          const int sy = clamp_coord(py + (cy % 2 ? 1 : -1), parent.rows);
          const MotionVector pred[5] = {parent.at_cell(px, py), parent.at_cell(sx, py), parent.at_cell(px, sy),
                                        parent.at_cell(sx, sy), MotionVector{}};
          const int p0x = 2 * pred[0].dx, p0y = 2 * pred[0].dy, r = p.refine_radius;
          for (const MotionVector& q : pred)
            for (int dy = 2 * q.dy - r; dy <= 2 * q.dy + r; ++dy)
              for (int dx = 2 * q.dx - r; dx <= 2 * q.dx + r; ++dx)
                best.offer(sad(a, b, cx, cy, dx, dy, p) + lambda * (std::abs(dx - p0x) + std::abs(dy - p0y)), dx, dy);
        }
        field.at_cell(cx, cy) = best.v;
      }
    }
    // Smoothing passes: each cell takes the best of its own and its 8
    // neighbours' vectors, the deviation now measured from their median.
    for (int pass = 0; pass < p.smooth_passes; ++pass) {
      MotionField next = field;
      for (int cy = 0; cy < field.rows; ++cy) {
        if (cancel && cancel->load()) throw Cancelled();
        for (int cx = 0; cx < field.cols; ++cx) {
          const MotionVector m = neighbour_median(field, cx, cy);
          Best best;
          for (int k = -1; k < 9; ++k) {
            // k = -1: the cell's own vector; then the neighbours, rows of dy then dx (the centre skipped).
            int i = 0, j = 0;
            if (k >= 0) {
              if (k == 4) continue;
              i = k % 3 - 1;
              j = k / 3 - 1;
            }
            const MotionVector& v = field.at_cell(clamp_coord(cx + i, field.cols), clamp_coord(cy + j, field.rows));
            best.offer(sad(a, b, cx, cy, v.dx, v.dy, p) + lambda * (std::abs(v.dx - m.dx) + std::abs(v.dy - m.dy)),
                       v.dx, v.dy);
          }
          next.at_cell(cx, cy) = best.v;
        }
      }
      field = std::move(next);
    }
    parent = std::move(field);
  }
  return parent;
}

}  // namespace cdn
