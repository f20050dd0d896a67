// filter_step.h: decoded frames in, denoised frames out, in the same order and
// number: the only place the tool touches pixels, through cdn::StreamDenoiser
// and its loop (stream_pump.h) for every mode. Stream-shaped (push, pop,
// finish) because a temporal mode holds a window of frames and gives each back
// later; a per-frame mode filters each frame straight into its output frame
// (device frames where they are: zero-copy). Which modes are which is the
// library's (cdn::is_temporal).
// Output frames are made one at a time, as pop() asks for them.
//
// CUDA frames (from NVDEC) are filtered on the device into frames of our own
// AVHWFramesContext (same sw_format and size): decoder surfaces are read-only
// and few, so we never filter in place or hold them. Software frames are
// filtered into new host frames; on the CUDA backend the denoiser uploads and
// downloads them itself, and each such frame counts as a host copy: on the
// zero-copy path (nvdec -> cuda) host_copies() stays 0. Frame properties (pts,
// duration, colour, side data) follow each frame through the filter as its tag
// (cdn::FrameTag: a shell of the input frame, handed back with its output).
//
// Interlaced video (set_fields), for the modes that take it (the library
// decides: cudadenoise/interlace.h): each field is filtered on its own, as a
// half-height frame of every other line (cdn::field_view, no copy), so the two
// moments a frame holds are never mixed: the stream is then one of fields
// (half the height), the top field of each frame before its bottom field, each
// written into its field of the output frame.
#pragma once

#include <deque>
#include <memory>
#include <string>

#include "av_ptr.h"
#include "cudadenoise/stream_pump.h"
#include "format_converter.h"

namespace cdn::transcode {

class GpuDevice;

class FilterStep {
 public:
  // `gpu` non-null selects the CUDA backend (made on the device's primary
  // context, current after GpuDevice::open, at the first frame), else the CPU.
  // `denoise` false passes frames through (--no-denoise). `devices`: the CUDA
  // devices a temporal mode spreads its chunks over (StreamDenoiser::create).
  // Throws Failure.
  FilterStep(const DenoiseSettings& settings, bool denoise, const GpuDevice* gpu, std::vector<int> devices = {});
  ~FilterStep();

  // Takes a decoded frame; the filter keeps no reference to it.
  void push(const AVFrame* in);
  // The next denoised frame, or nullptr when none is ready yet.
  FramePtr pop();
  // End of the stream: every frame still held becomes ready.
  void finish();
  // Filter the two fields of each frame apart (interlaced input, per-frame
  // modes); set before the first frame.
  void set_fields(bool separate) { fields_ = separate; }

  // "cuda", "cpu" or "none" (--no-denoise).
  const char* name() const;
  long long host_copies() const { return host_copies_; }
  // The denoiser's noise sigma per component, 8-bit code values, before
  // strength (StreamDenoiser::noise_sigma: given, or tracked over the frames);
  // empty before the first frame and for modes that take no sigma.
  std::vector<double> noise_sigma() const { return denoiser_ ? denoiser_->noise_sigma() : std::vector<double>{}; }
  // How many frames the estimated noise holds (StreamDenoiser::noise_frames).
  long long noise_frames() const { return denoiser_ ? denoiser_->noise_frames() : 0; }
  // True when the estimate first became known or moved by more than 5 % since the last true.
  bool noise_changed() { return denoiser_ && denoiser_->noise_changed(); }
  // With --noise-model signal or curve: the model of each component the next
  // frame is filtered with (StreamDenoiser::noise_models); empty otherwise and
  // before the first frame.
  std::vector<NoiseModel> noise_models() const {
    return denoiser_ ? denoiser_->noise_models() : std::vector<NoiseModel>{};
  }
  // A note for the user the first time a frame had to change format ("" if none).
  const std::string& conversion_note() const { return note_; }

 private:
  // A frame ready for cdn: `frame` (device or host) in cdn format `format`.
  struct Prepared {
    const AVFrame* frame = nullptr;
    FramePtr holder;  // owns `frame` when it had to be downloaded or converted
    PixelFormat format = PixelFormat::GRAY8;
    MemoryKind memory = MemoryKind::Host;
  };
  // Output frames, one per take() (two with fields: the top field's, then the
  // bottom field's, into the same frame): each in the stream's layout, with the
  // properties of its input (the tag), into ready_; then it stops for now.
  class OneFrameSink final : public FrameSink {
   public:
    explicit OneFrameSink(FilterStep& step) : step_(step) {}
    FrameView next() override;
    bool take(FrameTag tag) override;

   private:
    FilterStep& step_;
    FramePtr frame_;  // the output frame being written
    int parity_ = 0;  // with fields: the field next() gives (0 top, 1 bottom)
  };

  Prepared prepare(const AVFrame* in);
  // An empty frame of `like`'s layout and size (no properties): from our CUDA
  // pool for device frames, else host.
  FramePtr new_output(const AVFrame* like, MemoryKind memory);
  void ensure_pool(const AVFrame* like);
  void* stream() const;
  // The height of the stream's frames: the frame's, or a field's.
  int stream_height(const AVFrame* frame) const;

  const GpuDevice* gpu_;
  std::vector<int> devices_;
  DenoiseSettings settings_;
  bool denoise_;
  std::unique_ptr<StreamDenoiser> denoiser_;  // made on the first frame (its format and size)
  MemoryKind memory_ = MemoryKind::Host;      // where the stream's frames are
  OneFrameSink sink_{*this};
  std::deque<FramePtr> ready_;   // filtered frames (--no-denoise: the input frames)
  std::shared_ptr<AVFrame> layout_;  // the layout and size of the stream's frames (its first frame's shell)
  BufferPtr pool_;               // our AVHWFramesContext for device output frames
  FormatConverter converter_;
  long long host_copies_ = 0;
  std::string note_;
  bool fields_ = false;
};

}  // namespace cdn::transcode
