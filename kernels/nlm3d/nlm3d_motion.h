// nlm3d_motion.h: the motion that centres NLM-3D's search windows in the other
// frames (`motion-search`, docs/NLM3D.md, "Moving video"). Not in the papers,
// whose search cube is fixed in space; the idea is that of motion-compensated
// video NLM (e.g. Buades, Coll, Morel, "Nonlocal image and movie denoising",
// IJCV 2008, who argue against it, and the V-BM3D/VNLB line, which does it).
//
// For output frame t and each dt != 0 within the temporal radius, a field of
// whole-pixel vectors over square cells of the luma: the content of cell c of
// frame t is found near (x + dx, y + dy) in frame t + dt. The search window of
// a pixel p in frame t + dt is then centred on p + v(p) instead of p. The NLM
// side only reads fields; the motion estimation that makes them (block
// matching, kernels/motion_*) is not part of NLM: any field in this layout
// will do, and the filter is defined for any field.
//
// A pass on a guide of fx x fy luma means (the 4:2:0 chroma pass,
// nlm3d_guide.h) uses, for its sample (x, y), the vector of the cell that holds
// the luma sample (fx x, fy y), each component divided by fx (fy) and rounded
// half away from zero.
#pragma once

#include <cstdint>

#include "cudadenoise/plane.h"  // CDN_HD, clamp_coord

namespace cdn {

// One field, host or device memory. v holds (dx, dy) pairs, row-major, cols x rows cells.
struct NlmMotionField {
  const std::int16_t* v = nullptr;
  int cols = 0, rows = 0;
  int cell = 8;  // luma pixels per cell side
};

// Half away from zero: d / f for f = 1 or 2.
CDN_HD int nlm_scale_displacement(int d, int f) {
  if (f == 1) return d;
  return d >= 0 ? (d + f / 2) / f : -((-d + f / 2) / f);
}

// The vector of sample (x, y) of a pass on fx x fy luma means.
CDN_HD void nlm_motion_vector(const NlmMotionField& m, int x, int y, int fx, int fy, int* dx, int* dy) {
  const int cx = clamp_coord(fx * x / m.cell, m.cols), cy = clamp_coord(fy * y / m.cell, m.rows);
  const std::int16_t* p = m.v + 2 * (static_cast<long>(cy) * m.cols + cx);
  *dx = nlm_scale_displacement(p[0], fx);
  *dy = nlm_scale_displacement(p[1], fy);
}

// The fields of one output frame t: fields[dt + temporal_radius] for dt != 0
// (the entry of dt = 0 is not read), and the pass's guide factors.
struct NlmMotion {
  const NlmMotionField* fields = nullptr;
  int fx = 1, fy = 1;
};

}  // namespace cdn
