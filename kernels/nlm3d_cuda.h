// nlm3d_cuda.h: 3D non-local means as one CUDA kernel per chunk and pass, the
// same algorithm and border rules as nlm3d_reference.h (float distances and
// weights, double sums); a pass computes weights on a luma guide and averages
// one to three components with them (nlm3d_guide.h).
//
// Mapping: a block filters a 32x8 tile of one output frame (grid z = frame of
// the chunk). It keeps the tile's guide patch slices in shared memory, and for
// each temporal offset loads the search region of the candidate frame's guide
// slices and values once; then for every spatial offset it forms the squared
// differences summed over the patch's frames, box-sums them along x and along y
// in shared memory, and accumulates the weight and the weighted samples in
// registers.
#pragma once

#include "plane.h"
#include "settings.h"

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
};

// Queues the chunk on `stream` (a cudaStream_t). sigma: the luma's, in its code values.
void nlm3d_cuda_chunk(const NlmChunk& chunk, const NlmParams& params, double sigma, void* stream);

}  // namespace cdn
