// per_frame_stream.cpp: PerFrameStream (frame_stream.h) and the choice of the
// per-frame backend (frame_denoiser.h).
#include "cudadenoise/error.h"
#include "stream/frame_stream.h"

namespace cdn {

std::unique_ptr<FrameDenoiser> make_frame_denoiser(Backend backend, const DenoiseSettings& settings) {
  validate(settings);
  if (is_temporal(settings.mode))
    throw InvalidArgument(std::string("mode ") + mode_name(settings.mode) + " filters a window of frames");
  if (backend == Backend::Cpu) return make_cpu_denoiser(settings);
#ifdef CDN_HAVE_CUDA
  if (backend == Backend::Cuda) return make_cuda_denoiser(settings);
#endif
  throw Error("per-frame denoiser: backend not resolved or not built");
}

void PerFrameStream::push(const FrameView& in, void* stream) {
  auto out = den_->new_frame(format_, width_, height_, in.memory);
  den_->process(in, *out, stream);
  ready_.push_back(std::move(out));
}

bool PerFrameStream::pop(const FrameView& out, void* stream) {
  if (ready_.empty()) return false;
  den_->copy_frame(*ready_.front(), out, stream);
  ready_.pop_front();
  return true;
}

}  // namespace cdn
