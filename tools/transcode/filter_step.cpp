// filter_step.cpp: the denoising step (filter_step.h).
#include "filter_step.h"

#include "error.h"
#include "errors.h"
#include "gpu_device.h"
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

void check_av(int rc, const char* what) {
  if (rc < 0) throw Failure(rc == AVERROR(ENOMEM) ? kExitFailure : kExitGpu, std::string(what) + ": " + av_error(rc));
}

}  // namespace

FilterStep::FilterStep(const DenoiseSettings& settings, bool denoise, const GpuDevice* gpu, std::vector<int> devices)
    : gpu_(gpu), devices_(std::move(devices)), settings_(settings), denoise_(denoise) {
  if (!denoise_ || is_temporal(settings.mode)) return;  // the stream denoiser needs the first frame
  try {
    frame_denoiser_ = FrameDenoiser::create(gpu_ ? Backend::Cuda : Backend::Cpu, settings);
  } catch (const InvalidArgument& e) {
    throw Failure(kExitUsage, e.what());
  } catch (const Error& e) {
    throw Failure(gpu_ ? kExitGpu : kExitFailure, std::string("cannot start the denoiser: ") + e.what());
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
  check_av(av_frame_copy_props(out.get(), like), "cannot copy frame properties");
  out->width = like->width;
  out->height = like->height;
  return out;
}

void FilterStep::push(const AVFrame* in) {
  if (!denoise_) {
    FramePtr same = alloc_frame();
    check_av(av_frame_ref(same.get(), in), "cannot reference a frame");
    ready_.push_back(std::move(same));
    return;
  }
  const Prepared p = prepare(in);
  if (is_temporal(settings_.mode)) return push_temporal(p);
  FramePtr out = new_output(p.frame, p.memory);
  try {
    const FrameView in_view = frame_view(p.frame, p.format, p.memory), out_view = frame_view(out.get(), p.format, p.memory);
    if (fields_) {  // interlaced: top field, then bottom field, each a frame of its own
      for (int parity = 0; parity < 2; ++parity)
        frame_denoiser_->process(field_view(in_view, parity), field_view(out_view, parity),
                                 gpu_ ? gpu_->stream() : nullptr);
    } else {
      frame_denoiser_->process(in_view, out_view, gpu_ ? gpu_->stream() : nullptr);
    }
  } catch (const Error& e) {
    throw Failure(gpu_ ? kExitGpu : kExitFailure, std::string("denoising failed: ") + e.what());
  }
  ready_.push_back(std::move(out));
}

void FilterStep::push_temporal(const Prepared& p) {
  void* stream = gpu_ ? gpu_->stream() : nullptr;
  try {
    if (!stream_denoiser_) {
      stream_denoiser_ = StreamDenoiser::create(gpu_ ? Backend::Cuda : Backend::Cpu, settings_, p.format,
                                                p.frame->width, p.frame->height,
                                                gpu_ ? devices_ : std::vector<int>{});
      stream_memory_ = p.memory;
    }
    if (p.memory != stream_memory_)
      throw Failure(kExitInput, "the video switched between NVDEC and software decoding mid-stream: not supported");
    stream_denoiser_->push(frame_view(p.frame, p.format, p.memory), stream);
    // The window copy is queued on our stream; the NVDEC surface goes back to
    // the decoder when the caller lets go of it, so let the copy finish first.
    if (p.memory == MemoryKind::Device) gpu_->synchronize();
  } catch (const InvalidArgument& e) {
    throw Failure(kExitInput, std::string("the temporal denoiser cannot take this frame: ") + e.what());
  } catch (const Error& e) {
    throw Failure(gpu_ ? kExitGpu : kExitFailure, std::string("denoising failed: ") + e.what());
  }
  // What the frame leaves behind until it comes out: its properties and layout.
  FramePtr shell = alloc_frame();
  check_av(av_frame_copy_props(shell.get(), p.frame), "cannot copy frame properties");
  shell->format = p.frame->format;
  shell->width = p.frame->width;
  shell->height = p.frame->height;
  if (p.frame->hw_frames_ctx) shell->hw_frames_ctx = av_buffer_ref(p.frame->hw_frames_ctx);
  shells_.push_back(std::move(shell));
}

FramePtr FilterStep::pop() {
  if (!stream_denoiser_) {
    if (ready_.empty()) return nullptr;
    FramePtr out = std::move(ready_.front());
    ready_.pop_front();
    return out;
  }
  if (shells_.empty()) return nullptr;
  const AVFrame* like = shells_.front().get();
  FramePtr out = new_output(like, stream_memory_);
  PixelFormat format;
  cdn_format_of(layout_of(like), &format);
  try {
    if (!stream_denoiser_->pop(frame_view(out.get(), format, stream_memory_), gpu_ ? gpu_->stream() : nullptr))
      return nullptr;
  } catch (const Error& e) {
    throw Failure(gpu_ ? kExitGpu : kExitFailure, std::string("denoising failed: ") + e.what());
  }
  shells_.pop_front();
  return out;
}

void FilterStep::finish() {
  if (stream_denoiser_) stream_denoiser_->finish();
}

}  // namespace cdn::transcode
