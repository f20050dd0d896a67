// decoder.cpp: video decoder setup and the send/receive loop (decoder.h).
#include "decoder.h"

#include <string>

#include "errors.h"
#include "gpu_device.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace cdn::transcode {

namespace {

bool has_cuda_hwaccel(const AVCodec* codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* c = avcodec_get_hw_config(codec, i);
    if (!c) return false;
    if (c->device_type == AV_HWDEVICE_TYPE_CUDA && (c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) &&
        c->pix_fmt == AV_PIX_FMT_CUDA)
      return true;
  }
}

}  // namespace

AVPixelFormat Decoder::pick_format(AVCodecContext* ctx, const AVPixelFormat* offered) {
  const auto* self = static_cast<const Decoder*>(ctx->opaque);
  if (self->want_cuda_)
    for (const AVPixelFormat* p = offered; *p != AV_PIX_FMT_NONE; ++p)
      if (*p == AV_PIX_FMT_CUDA) return *p;
  // NVDEC declined (codec profile, chroma format or size it cannot do, or its
  // setup failed and FFmpeg asks again without CUDA): the first software format.
  for (const AVPixelFormat* p = offered; *p != AV_PIX_FMT_NONE; ++p) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(*p);
    if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
  }
  return AV_PIX_FMT_NONE;
}

Decoder::Decoder(AVFormatContext* format, AVStream* stream, const GpuDevice* gpu) {
  const AVCodec* codec = avcodec_find_decoder(stream->codecpar->codec_id);
  if (!codec)
    throw Failure(kExitCodec, std::string("no decoder for the video codec '") +
                                  avcodec_get_name(stream->codecpar->codec_id) + "'");
  ctx_.reset(avcodec_alloc_context3(codec));
  if (!ctx_) throw std::bad_alloc();
  int rc = avcodec_parameters_to_context(ctx_.get(), stream->codecpar);
  if (rc < 0) throw Failure(kExitInput, "bad video stream parameters: " + av_error(rc));
  ctx_->pkt_timebase = stream->time_base;
  ctx_->framerate = av_guess_frame_rate(format, stream, nullptr);
  ctx_->thread_count = 0;  // as many as useful (NVDEC too: its hwaccels are frame-thread safe)
  ctx_->opaque = this;
  ctx_->get_format = pick_format;
  if (gpu && has_cuda_hwaccel(codec)) {
    want_cuda_ = true;
    ctx_->hw_device_ctx = av_buffer_ref(gpu->device());
    if (!ctx_->hw_device_ctx) throw std::bad_alloc();
  }
  rc = avcodec_open2(ctx_.get(), codec, nullptr);
  if (rc < 0) throw Failure(kExitInput, std::string("cannot open the ") + codec->name + " decoder: " + av_error(rc));
}

void Decoder::count_error(const std::string& what) {
  if (errors_++ == 0) first_error_ = what;
}

void Decoder::send(const AVPacket* pkt) {
  const int rc = avcodec_send_packet(ctx_.get(), pkt);
  if (pkt) ++packets_;
  if (pkt && (pkt->flags & AV_PKT_FLAG_CORRUPT)) count_error("packet " + std::to_string(packets_) + " is marked corrupt by the demuxer");
  if (rc == AVERROR_INVALIDDATA) {  // FFmpeg skips the packet; so do we, counting it
    count_error("packet " + std::to_string(packets_) + ": " + av_error(rc));
    return;
  }
  if (rc < 0 && rc != AVERROR_EOF)
    throw Failure(error_code(rc), "decoding the video failed at packet " + std::to_string(packets_) + ": " + av_error(rc));
}

int Decoder::error_code(int averror) const {
  // NVDEC at work and not a bitstream error: the GPU failed, not the input.
  return ctx_->hw_frames_ctx && averror != AVERROR_INVALIDDATA ? kExitGpu : kExitInput;
}

bool Decoder::receive(AVFrame* frame) {
  for (;;) {
    const int rc = avcodec_receive_frame(ctx_.get(), frame);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return false;
    if (rc == AVERROR_INVALIDDATA) {  // a frame FFmpeg gave up on: counted, and on to the next
      count_error("after packet " + std::to_string(packets_) + ": " + av_error(rc));
      continue;
    }
    if (rc < 0)
      throw Failure(error_code(rc), "decoding the video failed after packet " + std::to_string(packets_) + ": " +
                                    av_error(rc));
    ++frames_;
    if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT)) {
      std::string why;
      if (frame->decode_error_flags & FF_DECODE_ERROR_INVALID_BITSTREAM) why += ", invalid bitstream";
      if (frame->decode_error_flags & FF_DECODE_ERROR_MISSING_REFERENCE) why += ", missing reference";
      if (frame->decode_error_flags & FF_DECODE_ERROR_CONCEALMENT_ACTIVE) why += ", damage concealed";
      if (frame->decode_error_flags & FF_DECODE_ERROR_DECODE_SLICES) why += ", slices lost";
      if (frame->flags & AV_FRAME_FLAG_CORRUPT) why += ", marked corrupt";
      count_error("frame " + std::to_string(frames_) + " is damaged (" + why.substr(2) + ")");
    }
    return true;
  }
}

}  // namespace cdn::transcode
