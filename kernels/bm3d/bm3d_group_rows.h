// bm3d_group_rows.h: the loop over reference patches that the BM3D and V-BM3D
// CPU references share (BM3D paper, section 4: grouping, collaborative
// filtering, aggregation; V-BM3D, Dabov et al. 2007, section 2, the same steps
// with groups across frames). The groups of a batch of reference rows are found
// and filtered in parallel, then their patches are added to the sums in
// reference order, so the result does not depend on the number of threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "bm3d/bm3d_profile.h"
#include "bm3d/bm3d_reference.h"  // kaiser_window
#include "core/parallel.h"
#include "cudadenoise/error.h"

namespace cdn::bm3d {

// A patch of a group: the frame it lies in (a V-BM3D window frame; 0 for BM3D)
// and its origin.
struct GroupPatch {
  int frame = 0, x = 0, y = 0;
};

// The aggregation sums of one component of one frame: per padded sample the sum
// of weight x Kaiser x value and of weight x Kaiser.
struct AggregationSums {
  std::vector<double>* num = nullptr;
  std::vector<double>* den = nullptr;
};

// The patches of a group, from the planes plane_of(frame), into dst (group.size()
// patches of 64).
template <typename PlaneOf>
void gather_patches(const std::vector<GroupPatch>& group, PlaneOf&& plane_of, std::vector<float>& dst) {
  dst.resize(group.size() * kPatchArea);
  for (std::size_t k = 0; k < group.size(); ++k) {
    const FloatPlane& p = *plane_of(group[k].frame);
    for (int q = 0; q < kPatchArea; ++q) dst[k * kPatchArea + q] = p.at(group[k].x + q % kPatch, group[k].y + q / kPatch);
  }
}

// One phase over the references of `grid` for nc components:
// - group(rx, ry): the group of the reference at (rx, ry), the reference first
//   (std::vector<GroupPatch>);
// - filter(c, group, values): component c's patches of the group gathered into
//   `values` (group.size() patches of 64) and filtered in place; returns the
//   group's weight;
// - kept(group, k): whether patch k of the group is aggregated;
// - sums(frame, c): the sums a kept patch of `frame` goes to (AggregationSums),
//   planes of row length `width`.
// Filtered samples are clamped to +-vmax before the aggregation. threads <= 0:
// all hardware threads; `cancel` is checked between references (Cancelled).
template <typename Group, typename Filter, typename Kept, typename Sums>
void filter_groups_by_rows(const RefGrid& grid, int nc, int width, float vmax, int threads,
                           const std::atomic<bool>* cancel, Group&& group, Filter&& filter, Kept&& kept, Sums&& sums) {
  // The filtered patches of one group that are aggregated, for one component.
  struct Filtered {
    float weight = 0;
    std::vector<GroupPatch> at;
    std::vector<float> values;  // at.size() patches of 64
  };
  const auto kaiser = kaiser_window();
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int batch = 2 * threads;
  // rows[b][c][i]: the group of reference (i, j0 + b), component c.
  std::vector<std::vector<std::vector<Filtered>>> rows(batch, std::vector<std::vector<Filtered>>(nc));
  for (int j0 = 0; j0 < grid.ny; j0 += batch) {
    if (cancel && cancel->load()) throw Cancelled();
    const int nrows = std::min(batch, grid.ny - j0);
    parallel_rows(nrows, threads, [&](int b) {
      const int ry = grid.y(j0 + b);
      for (auto& v : rows[b]) v.assign(grid.nx, Filtered{});
      std::vector<float> values;
      for (int i = 0; i < grid.nx; ++i) {
        if (cancel && cancel->load()) return;  // a row of references is long: thrown below, off the worker threads
        const std::vector<GroupPatch> g = group(grid.x(i), ry);
        for (int c = 0; c < nc; ++c) {
          Filtered& f = rows[b][c][i];
          f.weight = filter(c, g, values);
          for (std::size_t k = 0; k < g.size(); ++k) {
            if (!kept(g, static_cast<int>(k))) continue;
            f.at.push_back(g[k]);
            f.values.insert(f.values.end(), values.begin() + k * kPatchArea, values.begin() + (k + 1) * kPatchArea);
          }
        }
      }
    });
    if (cancel && cancel->load()) throw Cancelled();  // rows were skipped: the sums are incomplete
    // Aggregation, in reference order.
    for (int b = 0; b < nrows; ++b)
      for (int c = 0; c < nc; ++c)
        for (const Filtered& f : rows[b][c])
          for (std::size_t k = 0; k < f.at.size(); ++k) {
            const AggregationSums s = sums(f.at[k].frame, c);
            for (int q = 0; q < kPatchArea; ++q) {
              const std::size_t at = static_cast<std::size_t>(f.at[k].y + q / kPatch) * width + f.at[k].x + q % kPatch;
              const float wk = f.weight * kaiser[q];
              (*s.num)[at] += wk * std::clamp(f.values[k * kPatchArea + q], -vmax, vmax);
              (*s.den)[at] += wk;
            }
          }
  }
}

}  // namespace cdn::bm3d
