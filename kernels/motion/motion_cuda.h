// motion_cuda.h: block motion estimation on the GPU, the algorithm of
// motion_reference.h step for step and in integers, so the field equals the
// CPU reference's bit for bit (tests/kernels/test_gpu_vbm3d.cpp checks it).
//
// Mapping: one warp per cell. The 32 lanes split the cell's matching window
// (16 x 16 samples: 8 each, held in registers for the whole search), add up
// their absolute differences for a displacement and reduce them by shuffles;
// every lane then holds the cost and the warp walks the candidates in the
// reference's order, skipping displacements it has already matched for the cell
// (the same field: see motion_cuda.cu), so the time depends on how varied the
// field is. Pyramid levels are built by one thread per sample.
#pragma once

#include <cstddef>
#include <vector>

#include "cudadenoise/plane.h"
#include "motion/motion_field.h"
#include "motion/motion_reference.h"

namespace cdn {

class MotionCuda {
 public:
  MotionCuda() = default;
  ~MotionCuda();
  MotionCuda(const MotionCuda&) = delete;
  MotionCuda& operator=(const MotionCuda&) = delete;

  // Builds the pyramid of a device luma plane into pyramid slot `slot`, on
  // `stream` (a cudaStream_t). Every slot must hold planes of one size.
  void build_pyramid(const PlaneView& luma, int slot, const MotionParams& p, void* stream);
  // The field from the pyramid in slot `from` to that in slot `to`: cols x rows
  // vectors (MotionField's layout) written to `out`, device memory.
  void estimate(int from, int to, MotionVector* out, const MotionParams& p, void* stream);
  // Several fields at once, each the same as estimate() gives: one launch per
  // level and pass for all of them (a batch's coarse levels are too small to
  // fill the GPU one field at a time). At most 65535 pairs.
  struct FieldPair {
    int from, to;
    MotionVector* out;
  };
  void estimate_many(const std::vector<FieldPair>& pairs, const MotionParams& p, void* stream);

  // The field's grid for a luma of w x h.
  static int cols(int w, const MotionParams& p) { return (w + p.cell - 1) / p.cell; }
  static int rows(int h, const MotionParams& p) { return (h + p.cell - 1) / p.cell; }

  std::size_t device_bytes() const { return bytes_; }

 private:
  struct Pyramid {
    std::vector<int> width, height;  // per level
    std::vector<std::size_t> offset; // samples from the buffer's start
    std::uint16_t* data = nullptr;
    std::size_t capacity = 0;
    int bit_depth = 8;
  };
  std::vector<Pyramid> pyramids_;
  MotionVector* fields_[3] = {nullptr, nullptr, nullptr};  // search, smoothing, parent
  std::size_t field_capacity_ = 0;  // vectors in each of fields_
  void* jobs_ = nullptr;            // device: the batch's table (motion_cuda.cu's FieldJob)
  std::size_t job_capacity_ = 0;
  std::size_t bytes_ = 0;
};

// The field between two device luma planes of the same size, on the current
// device's default stream, copied to the host (for tests and tools).
MotionField estimate_motion_cuda(const PlaneView& from, const PlaneView& to, const MotionParams& p);

}  // namespace cdn
