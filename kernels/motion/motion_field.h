// motion_field.h: block motion between two frames, the data that motion
// estimation (motion_reference.h, motion_cuda.h) produces and the video modes
// read (vbm3d: the predictive search follows it).
//
// A field describes frame `from` in square cells of `cell` pixels (the last
// row and column of cells may be cut by the frame's border): cell (cx, cy)
// covers pixels [cx * cell, (cx + 1) * cell) x [cy * cell, (cy + 1) * cell), and
// its vector (dx, dy) says that the content there is found in frame `to` at
// (x + dx, y + dy). Vectors are whole pixels (integers all the way, so the CPU
// and the GPU compute the same field bit for bit).
#pragma once

#include <cstdint>
#include <vector>

#include "cudadenoise/plane.h"  // CDN_HD

namespace cdn {

struct MotionVector {
  std::int16_t dx = 0, dy = 0;
};

// What the kernels read: a field in host or device memory.
struct MotionFieldView {
  const MotionVector* v = nullptr;  // row-major, cols x rows
  int cols = 0, rows = 0, cell = 8;

  // The vector of the cell that holds pixel (x, y) of `from` (clamped to the field).
  CDN_HD MotionVector at_pixel(int x, int y) const {
    const int cx = clamp_coord(x < 0 ? 0 : x / cell, cols), cy = clamp_coord(y < 0 ? 0 : y / cell, rows);
    return v[cy * cols + cx];
  }
};

// A field in host memory.
struct MotionField {
  int width = 0, height = 0;  // pixels of the frame it describes
  int cell = 8;
  int cols = 0, rows = 0;     // ceil(width / cell) x ceil(height / cell)
  std::vector<MotionVector> v;

  MotionField() = default;
  MotionField(int w, int h, int c)
      : width(w), height(h), cell(c), cols((w + c - 1) / c), rows((h + c - 1) / c),
        v(static_cast<std::size_t>(cols) * rows) {}
  MotionVector& at_cell(int cx, int cy) { return v[static_cast<std::size_t>(cy) * cols + cx]; }
  const MotionVector& at_cell(int cx, int cy) const { return v[static_cast<std::size_t>(cy) * cols + cx]; }
  MotionFieldView view() const { return {v.data(), cols, rows, cell}; }
};

// Rounds a displacement of luma pixels to a plane subsampled by `factor` (1 or
// 2), half away from zero: the vector a 4:2:0 chroma plane follows.
CDN_HD int scale_displacement(int d, int factor) {
  if (factor == 1) return d;
  return d >= 0 ? (d + factor / 2) / factor : -((-d + factor / 2) / factor);
}

}  // namespace cdn
