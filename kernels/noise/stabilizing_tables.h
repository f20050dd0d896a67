// stabilizing_tables.h: a variance-stabilising transform of a frame as one
// table per component, code value to code value (issue 37; docs/NOISE.md, "The
// noise model in the stream").
//
// A component whose noise level depends on the intensity (var = a x + b, or a
// free curve sigma(x)) is mapped through the transform of its model
// (variance_stabilization.h: the generalized Anscombe transform, or the integral
// of 1 / sigma), scaled so that the transform's range [f(0), f(max)] fills the
// component's code values: the noise then has one standard deviation,
// unit_sigma, at every intensity, and any mode filters it with that sigma. The
// inverse table maps each filtered code value back through the exact unbiased
// inverse's closed form (affine model; Makitalo & Foi 2013) or the algebraic
// inverse (the curve). A component whose model is flat (a = 0, or a curve that
// varies by less than kFlatCurveRatio) or that is not filtered gets the identity
// and its own sigma: the affine case, where stabilising changes nothing.
//
// The tables are the transform: the CPU path and the CUDA kernel
// (stabilizing_tables_cuda.cu) only look values up, so both give the same bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/noise_model.h"
#include "cudadenoise/settings.h"

namespace cdn {

// A curve whose sigma varies by less than this factor over 0..255 is flat.
constexpr double kFlatCurveRatio = 1.02;

struct ComponentTables {
  bool identity = true;
  std::vector<std::uint16_t> forward;  // code value -> stabilised code value (empty: identity)
  std::vector<std::uint16_t> inverse;  // stabilised (filtered) code value -> code value
  double sigma = 0;                    // the noise std in the (stabilised) component, 8-bit code values
};

class StabilizingTables {
 public:
  // One model per component of `format` (8-bit code values), of `kind`
  // (Signal: a and b; Curve: the levels' sigma_curve()). `filtered[c]`: whether
  // the mode filters component c (else: identity, it passes through).
  StabilizingTables(PixelFormat format, NoiseModelKind kind, const std::vector<NoiseModel>& models,
                    const std::vector<bool>& filtered);
  ~StabilizingTables();

  PixelFormat format() const { return format_; }
  // Every component the identity: frames need no transform.
  bool identity() const;
  // The noise std of each component the mode filters (8-bit code values):
  // unit_sigma of a stabilised component, the model's sigma of a flat one.
  std::vector<double> sigma() const;
  const std::vector<ComponentTables>& components() const { return components_; }

  // `in` -> `out` (same format and size, host memory; may be the same frame).
  void forward_host(const FrameView& in, const FrameView& out) const;
  void inverse_host(const FrameView& in, const FrameView& out) const;
  // The same on device frames, queued on `stream` (a cudaStream_t; CUDA builds).
  void forward_device(const FrameView& in, const FrameView& out, void* stream) const;
  void inverse_device(const FrameView& in, const FrameView& out, void* stream) const;

 private:
  struct Device;  // the tables in device memory, uploaded at the first use
  void apply_device(const FrameView& in, const FrameView& out, bool inverse, void* stream) const;
  PixelFormat format_;
  std::vector<ComponentTables> components_;
  mutable std::shared_ptr<Device> device_;  // shared_ptr: Device is complete only in the .cu
};

// Whether the mode filters component c of `format` under `planes`.
std::vector<bool> filtered_components(PixelFormat format, PlaneSelection planes);

}  // namespace cdn
