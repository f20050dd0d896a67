// nlm3d_cuda.h: 3D non-local means as one CUDA kernel per chunk and component,
// the same algorithm and border rules as nlm3d_reference.h (float distances and
// weights, double sums).
//
// Mapping: a block filters a 32x8 tile of one output frame (grid z = frame of
// the chunk). It keeps the tile's patch slices in shared memory, and for each
// temporal offset loads the search region of the candidate frame's slices once;
// then for every spatial offset it forms the squared differences summed over the
// patch's frames, box-sums them along x and along y in shared memory, and
// accumulates the weight and the weighted sample in registers.
#pragma once

#include "plane.h"
#include "settings.h"

namespace cdn {

struct NlmChunk {
  PlaneView proto;                 // geometry of one component of every frame (data ignored)
  const void* const* window;       // device array: component base pointer of stream frame window_first + i
  int window_first = 0;
  int window_count = 0;
  int stream_length = 0;           // frames that exist (candidates at or beyond it are skipped)
  PlaneView out_proto;             // geometry of the outputs (data ignored)
  void* const* outputs;            // device array: output component base pointer of frame out_first + i
  int out_first = 0;
  int out_count = 0;
};

// Queues the chunk on `stream` (a cudaStream_t). sigma in the plane's code values.
void nlm3d_cuda_chunk(const NlmChunk& chunk, const NlmParams& params, double sigma, void* stream);

}  // namespace cdn
