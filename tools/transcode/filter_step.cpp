// filter_step.cpp: the denoising step (filter_step.h).
#include "filter_step.h"

#include <cmath>

#include "cudadenoise/error.h"
#include "cudadenoise/interlace.h"
#include "cudadenoise/noise_estimate.h"
#include "errors.h"
#include "gpu_device.h"
#include "interrupt.h"
#include "pixel_format.h"

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace cdn::transcode {

namespace {

AVHWFramesContext* frames_of(const AVFrame* f) { return reinterpret_cast<AVHWFramesContext*>(f->hw_frames_ctx->data); }

// The pixel layout a frame has in memory: the sw_format of CUDA frames.
AVPixelFormat layout_of(const AVFrame* f) {
  return f->format == AV_PIX_FMT_CUDA ? frames_of(f)->sw_format : static_cast<AVPixelFormat>(f->format);
}

// A denoiser's error as the tool's failure. Cancelled: a signal set the
// denoiser's flag (interrupt_flag), and the run exits as the signal says.
[[noreturn]] void fail_denoising(const Error& e, bool gpu) {
  if (dynamic_cast<const Cancelled*>(&e)) check_interrupted();
  throw Failure(gpu ? kExitGpu : kExitFailure, std::string("denoising failed: ") + e.what());
}

void check_av(int rc, const char* what) {
  if (rc < 0) throw Failure(rc == AVERROR(ENOMEM) ? kExitFailure : kExitGpu, std::string(what) + ": " + av_error(rc));
}

}  // namespace

FilterStep::FilterStep(const DenoiseSettings& settings, bool denoise, const GpuDevice* gpu, std::vector<int> devices)
    : gpu_(gpu), devices_(std::move(devices)), settings_(settings), denoise_(denoise) {
  // The denoiser needs the first frame's format and size; bad settings fail now.
  try {
    if (denoise_) validate(settings);
  } catch (const InvalidArgument& e) {
    throw Failure(kExitUsage, e.what());
  }
}

FilterStep::~FilterStep() = default;

const char* FilterStep::name() const {
  if (!denoise_) return "none";
  return gpu_ ? "cuda" : "cpu";
}

FilterStep::Prepared FilterStep::prepare(const AVFrame* in) {
  Prepared p;
  if (in->format == AV_PIX_FMT_CUDA) {
    if (gpu_ && frames_of(in)->device_ref->data != gpu_->device()->data)
      throw Failure(kExitGpu, "a decoded CUDA frame is not on the tool's CUDA device");
    if (gpu_ && cdn_format_of(frames_of(in)->sw_format, &p.format)) {
      p.frame = in;  // zero-copy: NVDEC's surface is read where it is
      p.memory = MemoryKind::Device;
      return p;
    }
    // A layout cdn does not filter (NVDEC's 4:4:4 16-bit): download, then convert below.
    p.holder = alloc_frame();
    check_av(av_hwframe_transfer_data(p.holder.get(), in, 0), "cannot download a CUDA frame");
    check_av(av_frame_copy_props(p.holder.get(), in), "cannot copy frame properties");
    in = p.holder.get();
  }
  if (!cdn_format_of(static_cast<AVPixelFormat>(in->format), &p.format)) {
    const AVPixelFormat to = conversion_target(static_cast<AVPixelFormat>(in->format));
    if (note_.empty())
      note_ = std::string(pix_fmt_name(in->format)) + " is converted to " + pix_fmt_name(to) + " for denoising";
    FramePtr converted = converter_.convert(in, to);
    p.holder = std::move(converted);
    in = p.holder.get();
    cdn_format_of(to, &p.format);
  }
  p.frame = in;
  p.memory = MemoryKind::Host;
  if (gpu_) ++host_copies_;  // a host frame on the GPU path: the denoiser uploads it
  return p;
}

void FilterStep::ensure_pool(const AVFrame* like) {
  const AVPixelFormat sw = layout_of(like);
  if (pool_) {
    const auto* f = reinterpret_cast<const AVHWFramesContext*>(pool_->data);
    if (f->sw_format == sw && f->width == like->width && f->height == like->height) return;
  }
  BufferPtr pool(av_hwframe_ctx_alloc(gpu_->device()));
  if (!pool) throw std::bad_alloc();
  auto* f = reinterpret_cast<AVHWFramesContext*>(pool->data);
  f->format = AV_PIX_FMT_CUDA;
  f->sw_format = sw;
  f->width = like->width;
  f->height = like->height;
  f->initial_pool_size = 0;  // CUDA pools grow on demand; NVENC keeps what it still encodes
  check_av(av_hwframe_ctx_init(pool.get()), "cannot create the CUDA output frame pool");
  pool_ = std::move(pool);
}

FramePtr FilterStep::new_output(const AVFrame* like, MemoryKind memory) {
  FramePtr out = alloc_frame();
  if (memory == MemoryKind::Device) {
    ensure_pool(like);
    check_av(av_hwframe_get_buffer(pool_.get(), out.get(), 0), "cannot get a CUDA output frame");
  } else {
    out->format = like->format;
    out->width = like->width;
    out->height = like->height;
    check_av(av_frame_get_buffer(out.get(), 0), "cannot allocate a frame");
  }
  return out;
}

void* FilterStep::stream() const { return gpu_ ? gpu_->stream() : nullptr; }

FrameView FilterStep::OneFrameSink::next() {
  const AVFrame* like = step_.layout_.get();
  if (!frame_) frame_ = step_.new_output(like, step_.memory_);  // a bottom field goes into its top's frame
  PixelFormat format;
  cdn_format_of(layout_of(like), &format);
  const FrameView whole = frame_view(frame_.get(), format, step_.memory_);
  return step_.fields_ ? field_view(whole, parity_) : whole;
}

bool FilterStep::OneFrameSink::take(FrameTag tag) {
  if (step_.fields_ && parity_ == 0) {  // the top field is in; the bottom one completes the frame
    parity_ = 1;
    return true;
  }
  parity_ = 0;
  check_av(av_frame_copy_props(frame_.get(), static_cast<const AVFrame*>(tag.get())), "cannot copy frame properties");
  step_.ready_.push_back(std::move(frame_));
  return false;  // one at a time: pop() asks for the next
}

int FilterStep::stream_height(const AVFrame* frame) const { return fields_ ? frame->height / 2 : frame->height; }

void FilterStep::push(const AVFrame* in) {
  if (!denoise_) {
    FramePtr same = alloc_frame();
    check_av(av_frame_ref(same.get(), in), "cannot reference a frame");
    ready_.push_back(std::move(same));
    return;
  }
  const Prepared p = prepare(in);
  // What the frame leaves behind until it comes out (its tag): its properties and layout.
  std::shared_ptr<AVFrame> shell(alloc_frame().release(), [](AVFrame* f) { av_frame_free(&f); });
  check_av(av_frame_copy_props(shell.get(), p.frame), "cannot copy frame properties");
  shell->format = p.frame->format;
  shell->width = p.frame->width;
  shell->height = p.frame->height;
  if (p.frame->hw_frames_ctx) shell->hw_frames_ctx = av_buffer_ref(p.frame->hw_frames_ctx);
  try {
    // Another format or size: a new stream when the old one holds nothing (the
    // encoder then says what it thinks of it); a window refuses the frame.
    if (denoiser_ && denoiser_->held() == 0 &&
        (denoiser_->format() != p.format || denoiser_->width() != p.frame->width ||
         denoiser_->height() != stream_height(p.frame)))
      denoiser_.reset();
    if (!denoiser_) {
      denoiser_ = StreamDenoiser::create(gpu_ ? Backend::Cuda : Backend::Cpu, settings_, p.format, p.frame->width,
                                         stream_height(p.frame), gpu_ ? devices_ : std::vector<int>{});
      denoiser_->set_cancel_flag(interrupt_flag());  // Ctrl-C stops the frame or chunk being filtered
      memory_ = p.memory;
      layout_ = shell;
    }
    if (p.memory != memory_)
      throw Failure(kExitInput, "the video switched between NVDEC and software decoding mid-stream: not supported");
    // A per-frame mode filters straight into a new output frame; a window keeps
    // the frame (copied before feed() returns: the NVDEC surface may go back).
    const FrameView in_view = frame_view(p.frame, p.format, p.memory);
    if (fields_) {  // interlaced: the top field, then the bottom one, each a frame of the stream
      for (int parity = 0; parity < 2; ++parity) feed(*denoiser_, field_view(in_view, parity), sink_, stream(), shell);
    } else {
      feed(*denoiser_, in_view, sink_, stream(), shell);
    }
  } catch (const InvalidArgument& e) {
    throw Failure(kExitInput, std::string("the denoiser cannot take this frame: ") + e.what());
  } catch (const Error& e) {
    fail_denoising(e, gpu_ != nullptr);
  }
}

FramePtr FilterStep::pop() {
  if (ready_.empty() && denoiser_) {
    try {
      pop_ready(*denoiser_, sink_, stream());
    } catch (const Error& e) {
      fail_denoising(e, gpu_ != nullptr);
    }
  }
  if (ready_.empty()) return nullptr;
  FramePtr out = std::move(ready_.front());
  ready_.pop_front();
  return out;
}

void FilterStep::finish() {
  if (denoiser_) denoiser_->finish();  // pop() then gives every held frame
}

}  // namespace cdn::transcode
