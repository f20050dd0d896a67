// bm3d_cuda.h: two-phase BM3D on the GPU (bm3d-gpu-honzatko-krulis-2017,
// section 5), the algorithm of bm3d_reference.h with the same geometry, groups,
// transforms and weights, in every profile; it differs from the reference only by
// float rounding (fused multiply-adds), see docs/BM3D.md. Its output is
// deterministic: the same input gives the same bytes, run after run.
//
// Per phase and component size: a block-matching kernel (one thread per
// reference patch, a tile of 32 x 4 references per block with their search area
// in shared memory, privatized sorted top-N lists as in section 5.1; for the
// match8 profiles on the guide in bytes with 8-bit dot products and the lists in
// registers), then per component a filtering kernel (one lane per patch: the
// profile's 2D transform in registers, its 1D transform across the group by warp
// shuffles, hard threshold or Wiener coefficients, the inverse, and aggregation
// into 64-bit fixed-point sums, a block's window in shared memory with 32-bit
// integer atomics, then the frame's with 64-bit ones: integer sums do not depend
// on the order of the additions) and a kernel that divides. The first kernels
// (float matching for every profile, aggregation straight into the frame) stay
// behind set_reference_kernels, as the tests' oracle: the same bytes. References are processed in batches of
// tile rows, so the group lists take a fixed amount of memory whatever the frame
// size; the batches do not change the result.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"

namespace cdn {

class Bm3dCuda {
 public:
  Bm3dCuda() = default;
  ~Bm3dCuda();
  Bm3dCuda(const Bm3dCuda&) = delete;
  Bm3dCuda& operator=(const Bm3dCuda&) = delete;

  // Filters the device components [0, filtered) of `in` into `out` (same sizes,
  // distinct memory; component 0 is luma) on `stream` (a cudaStream_t). sigma:
  // per component, in its code values (0: the component is copied). Asynchronous.
  // When `cancel` becomes true no further batch is queued and Cancelled is thrown.
  void run(const std::vector<PlaneView>& in, const std::vector<PlaneView>& out, int filtered, const Bm3dSettings& params,
           const std::vector<double>& sigma, void* stream, const std::atomic<bool>* cancel = nullptr);

  // Device memory held (grows to the largest frame seen, then reused).
  std::size_t device_bytes() const { return bytes_; }
  // References whose group lists one batch holds (at least one row of tiles);
  // smaller batches take less memory and give the same result.
  static int default_batch_references();
  void set_batch_references(int n) { batch_refs_ = n; }

  // Runs the first kernels of each stage instead of the fast ones (tests: the
  // fast kernels must give the same bytes): block matching in float with one
  // thread per reference (match8 profiles: on the rounded guide in float), the
  // filter aggregating every patch into the frame with 64-bit global atomics.
  void set_reference_kernels(bool on) { reference_kernels_ = on; }

  // Threads per reference of the 8-bit block matching (match8 profiles): 1, 2 or
  // 4, or 0 (the default) to choose by the grid's size and the GPU. The groups,
  // and so the output, are the same bytes whatever the split (tests, bench). A
  // phase whose list keys need 64 bits (BM3D.m's 'vn' tau with a window above 45)
  // runs with 1 whatever this says.
  void set_match_split(int threads_per_reference);

  // Tests: plan the kernels as on a GPU with at most `bytes` of shared memory a
  // block (sm_75: 64 KB, sm_86 and sm_89: 99 KB); 0: this GPU's.
  void set_shared_limit(int bytes) { shared_limit_ = bytes; }

  // Timings of the last run() (milliseconds, CUDA events), when enabled.
  struct Timing {
    double block_matching = 0, filtering = 0, other = 0;
  };
  void enable_timing(bool on) { timing_ = on; }
  Timing last_timing() const { return last_; }

 private:
  void* reserve(int slot, std::size_t bytes);

  std::vector<void*> buffers_;
  std::vector<std::size_t> sizes_;
  std::size_t bytes_ = 0;
  int batch_refs_ = default_batch_references();
  bool timing_ = false;
  bool reference_kernels_ = false;
  int match_split_ = 0;
  int shared_limit_ = 0;
  Timing last_;
};

}  // namespace cdn
