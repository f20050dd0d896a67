// nlm3d_cuda.h: 3D non-local means as one CUDA kernel per chunk and pass, the
// same algorithm and border rules as nlm3d_reference.h (float distances and
// weights, double sums); a pass computes weights on a luma guide and averages
// one to three components with them (nlm3d_guide.h).
//
// Two kernels. The papers' cubes (patch-shape=cube): a block of 4 warps filters
// a tile of 30 x 32 pixels (for patch radius r: 32 - 2r columns) of one output
// frame (grid z = frame of the chunk). For each temporal offset it loads the
// candidate frame's guide slices and values of the search region into shared
// memory (the guide of the tile's own frames once); then for every spatial
// offset each lane walks its column: squared differences summed over the
// patch's frames, the x box sum by warp shuffles, the y box sum in registers,
// the weight, and the weighted samples accumulated in registers, with no block
// barrier. Shared memory per block: 42 KiB for 11^3 / 3^3, 91 KiB for 21^3 / 5^3
// (refused with a message where the GPU has less). 2D patches, with or without
// motion-search: nlm3d_planar_block.h.
#pragma once

#include <cstddef>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"
#include "nlm3d/nlm3d_confidence.h"
#include "nlm3d/nlm3d_motion.h"

namespace cdn {

constexpr int kNlmMaxValues = 3;

struct NlmChunk {
  // Window tables are device arrays with one pointer per frame of the stream's
  // frames window_first .. window_first + window_count - 1.
  PlaneView guide_proto;                               // the luma (data ignored)
  const void* const* guide_window = nullptr;           // luma base pointers
  int fx = 1, fy = 1;                                  // luma_guide_sample's block
  int values = 1;                                      // components of the pass
  PlaneView value_proto[kNlmMaxValues];                // their geometry (equal sizes)
  const void* const* value_window[kNlmMaxValues] = {};
  PlaneView out_proto[kNlmMaxValues];
  void* const* outputs[kNlmMaxValues] = {};            // output frames out_first ..
  int window_first = 0;
  int window_count = 0;
  int stream_length = 0;           // frames that exist (candidates at or beyond it are skipped)
  int out_first = 0;
  int out_count = 0;
  // With motion-search (device memory): out_count x (2 Rt + 1) fields, the
  // fields of output frame out_first + z at [z * (2 Rt + 1) + dt + Rt] (dt = 0
  // not read); their vectors are luma pixels, scaled for a pass on fx x fy
  // luma means (nlm3d_motion.h). motion_cell: the fields' cell (all the same),
  // which must be a multiple of 8 fy luma pixels (nlm3d_planar_block.h).
  const NlmMotionField* motion = nullptr;
  int motion_cell = 16;
  // With frame-confidence (device memory): the factors of output frames out_first ..
  // (nlm3d_confidence.h's layout, z from 0), computed on the luma by
  // nlm3d_cuda_confidence; fx, fy the pass's.
  NlmConfidence confidence;
};

// Queues the chunk on `stream` (a cudaStream_t). sigma: the luma's, in its code
// values. Call nlm3d_cuda_check_device first, once per device and configuration
// (a launch beyond the device's shared memory fails only with CUDA's error).
void nlm3d_cuda_chunk(const NlmChunk& chunk, const NlmParams& params, double sigma, void* stream);

// frame-confidence: queues the factors of the chunk's output frames into `factor`
// (device memory, out_count x (2 Rt + 1) x rows x cols floats, nlm3d_confidence.h) on
// `stream`. `chunk` is the luma pass (fx = fy = 1) with its motion fields; sigma the luma's.
void nlm3d_cuda_confidence(const NlmChunk& chunk, const NlmParams& params, double sigma, float* factor, void* stream);

// Throws Error, with a message naming the radii, when CUDA device `device` has
// too little shared memory per block for a pass of `values` components with these
// parameters. Streams check each of their devices when they are made, so that a
// configuration fails at creation rather than at its first chunk.
void nlm3d_cuda_check_device(const NlmParams& params, int values, int device);

// Shared memory per block, in bytes, of a pass of `values` components.
std::size_t nlm3d_cuda_shared_bytes(const NlmParams& params, int values);

}  // namespace cdn
