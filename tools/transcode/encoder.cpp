// encoder.cpp: encoder choice, setup and the send/receive loop (encoder.h).
#include "encoder.h"

#include <algorithm>
#include <vector>

#include "encoder_options.h"
#include "errors.h"
#include "ffmpeg_log.h"
#include "gpu_device.h"
#include "hdr_metadata.h"
#include "pixel_format.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace cdn::transcode {

namespace {

// What a CPU encoder receives: CUDA frames arrive downloaded, in their sw_format.
AVPixelFormat host_format_of(const AVFrame* f) {
  if (f->format == AV_PIX_FMT_CUDA) return reinterpret_cast<const AVHWFramesContext*>(f->hw_frames_ctx->data)->sw_format;
  return static_cast<AVPixelFormat>(f->format);
}

bool supports(const AVCodec* codec, AVPixelFormat fmt) {
  if (!codec->pix_fmts) return true;
  for (const AVPixelFormat* p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; ++p)
    if (*p == fmt) return true;
  return false;
}

// The full-range "j" formats are plain formats with color_range JPEG: relabel, never convert.
AVPixelFormat unjay(AVPixelFormat f) {
  switch (f) {
    case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: return AV_PIX_FMT_YUV444P;
    default: return f;
  }
}

// What y4m holds (yuv4mpegpipe's formats that cdn's layouts map to).
const AVPixelFormat kY4mFormats[] = {AV_PIX_FMT_YUV420P,     AV_PIX_FMT_YUV422P,     AV_PIX_FMT_YUV444P,
                                     AV_PIX_FMT_GRAY8,       AV_PIX_FMT_GRAY16LE,    AV_PIX_FMT_YUV420P10LE,
                                     AV_PIX_FMT_YUV422P10LE, AV_PIX_FMT_YUV444P10LE, AV_PIX_FMT_YUV420P16LE,
                                     AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_NONE};

bool interlaced(AVFieldOrder f) { return f != AV_FIELD_PROGRESSIVE && f != AV_FIELD_UNKNOWN; }

// The format `codec` is given for host frames of format `src`.
AVPixelFormat encoder_format(const AVCodec* codec, AVPixelFormat src) {
  if (codec->id == AV_CODEC_ID_WRAPPED_AVFRAME) {
    for (const AVPixelFormat* p = kY4mFormats; *p != AV_PIX_FMT_NONE; ++p)
      if (*p == src || *p == unjay(src)) return *p;
    return avcodec_find_best_pix_fmt_of_list(kY4mFormats, src, 0, nullptr);
  }
  if (supports(codec, src)) return src;
  if (supports(codec, unjay(src))) return unjay(src);
  return avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, src, 0, nullptr);
}

// A frame size every H.264 and HEVC encoder takes.
constexpr int kOrdinaryWidth = 1280, kOrdinaryHeight = 720;

// "" if `codec` opens for `width` x `height` frames of `fmt` with its defaults,
// else its reason. Single-threaded and quiet: only the frame size is asked about.
std::string size_refusal(const AVCodec* codec, AVPixelFormat fmt, int width, int height) {
  CodecPtr ctx(avcodec_alloc_context3(codec));
  if (!ctx) throw std::bad_alloc();
  ctx->width = width;
  ctx->height = height;
  ctx->pix_fmt = fmt;
  ctx->time_base = {1, 25};
  ctx->framerate = {25, 1};
  ctx->thread_count = 1;
  AVDictionary* opts = nullptr;
  // x265 prints to stderr by itself and starts thread pools unless told not to.
  if (std::string(codec->name) == "libx265") av_dict_set(&opts, "x265-params", "log-level=error:pools=none:frame-threads=1", 0);
  clear_ffmpeg_error();
  const int rc = avcodec_open2(ctx.get(), codec, &opts);
  av_dict_free(&opts);
  return rc < 0 ? av_error(rc) : "";
}

}  // namespace

std::string encoder_size_problem(const std::string& codec, bool raw, AVPixelFormat decoded, int width, int height) {
  if (raw || decoded == AV_PIX_FMT_NONE || width <= 0 || height <= 0) return "";
  PixelFormat layout;
  const AVPixelFormat filtered = cdn_format_of(decoded, &layout) ? decoded : conversion_target(decoded);
  // The software encoder's choice; NVENC takes the same subsampled layouts.
  const AVCodec* enc = avcodec_find_encoder_by_name(codec == "hevc" ? "libx265" : "libx264");
  const AVPixelFormat given = enc ? encoder_format(enc, filtered) : filtered;
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(given);
  if (!d) return "";
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  const bool subsampled = d->nb_components >= 3 && !(d->flags & AV_PIX_FMT_FLAG_RGB);
  const int step_w = subsampled ? 1 << d->log2_chroma_w : 1, step_h = subsampled ? 1 << d->log2_chroma_h : 1;
  if (width % step_w != 0 || height % step_h != 0) {
    const std::string need = step_h > 1 ? "an even width and height" : "an even width";
    const int even_w = width + width % step_w, even_h = height + height % step_h;
    const int crop_w = width - width % step_w, crop_h = height - height % step_h;
    return "the video is " + size + ": --codec " + codec + " cannot encode it as " + pix_fmt_name(given) +
           ", which needs " + need + "; crop or pad it to " +
           (crop_w > 0 && crop_h > 0 ? std::to_string(crop_w) + "x" + std::to_string(crop_h) + " or " : std::string()) +
           std::to_string(even_w) + "x" + std::to_string(even_h) + " first (ffmpeg -vf crop=" +
           std::to_string(crop_w > 0 ? crop_w : even_w) + ":" + std::to_string(crop_h > 0 ? crop_h : even_h) +
           ":0:0 or pad=" + std::to_string(even_w) + ":" + std::to_string(even_h) +
           "), make it 4:4:4 (ffmpeg -pix_fmt yuv444p), or write raw frames (-f yuv4mpegpipe or a .y4m output)";
  }
  // The encoder's own limits (libx265's smallest picture, say): ask it. One
  // that opens at no size (a stub build) is no size problem: Encoder reports it.
  if (!enc) return "";
  const std::string why = size_refusal(enc, given, width, height);
  if (why.empty() || !size_refusal(enc, given, kOrdinaryWidth, kOrdinaryHeight).empty()) return "";
  return "the video is " + size + ": --codec " + codec + " cannot encode it (" + enc->name + ": " + why +
         "); pad it to a size " + enc->name + " takes first (ffmpeg -vf pad=W:H), try the other --codec, or "
         "write raw frames (-f yuv4mpegpipe or a .y4m output)";
}

Encoder::Encoder(const TranscodeOptions& o, AVFormatContext* in_format, AVStream* in_stream, const AVFrame* first,
                 const GpuDevice* gpu, bool global_header, std::string* fallback_note, AVFieldOrder field_order,
                 bool raw)
    : field_order_(field_order), raw_(raw) {
  if (interlaced(field_order) && o.codec == "hevc" && !raw)
    throw Failure(kExitUsage, "the input is interlaced: HEVC encoders (libx265, NVENC) cannot keep its fields; use "
                              "--codec h264, which encodes it interlaced");
  const std::vector<std::string> names = raw ? std::vector<std::string>{"wrapped_avframe"}
                                         : o.codec == "hevc" ? std::vector<std::string>{"hevc_nvenc", "libx265"}
                                                             : std::vector<std::string>{"h264_nvenc", "libx264"};
  std::string failures;
  for (const std::string& name : names) {
    const bool nvenc = name.find("_nvenc") != std::string::npos;
    if (nvenc && !gpu) continue;
    const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
    std::string why = "not in this FFmpeg build";
    if (codec && try_open(codec, o, in_format, in_stream, first, gpu, global_header, &why)) return;
    if (nvenc && fallback_note) *fallback_note = name + " cannot encode here (" + why + ")";
    failures += (failures.empty() ? "" : "; ") + name + ": " + why;
  }
  throw Failure(kExitCodec, "no usable " + (raw ? std::string("raw video") : o.codec) + " encoder (" + failures + ")");
}

bool Encoder::try_open(const AVCodec* codec, const TranscodeOptions& o, AVFormatContext* in_format,
                       AVStream* in_stream, const AVFrame* first, const GpuDevice* gpu, bool global_header,
                       std::string* why) {
  CodecPtr ctx(avcodec_alloc_context3(codec));
  if (!ctx) throw std::bad_alloc();
  const bool nvenc = std::string(codec->name).find("_nvenc") != std::string::npos;
  ctx->width = first->width;
  ctx->height = first->height;
  ctx->sample_aspect_ratio = first->sample_aspect_ratio.num ? first->sample_aspect_ratio
                                                            : in_stream->codecpar->sample_aspect_ratio;
  ctx->time_base = in_stream->time_base;  // frames keep the input's timestamps exactly
  ctx->framerate = av_guess_frame_rate(in_format, in_stream, nullptr);
  // y4m has no timestamps: its muxer takes the frame rate from the time base.
  if (raw_ && ctx->framerate.num > 0 && ctx->framerate.den > 0) ctx->time_base = av_inv_q(ctx->framerate);
  ctx->chroma_sample_location = first->chroma_location;
  if (global_header) ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  ctx->field_order = field_order_;
  if (interlaced(field_order_) && !raw_) ctx->flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME;
  if (nvenc && first->format == AV_PIX_FMT_CUDA) {
    ctx->pix_fmt = AV_PIX_FMT_CUDA;  // zero-copy: NVENC reads our pool's frames
    ctx->sw_pix_fmt = host_format_of(first);
    ctx->hw_frames_ctx = av_buffer_ref(first->hw_frames_ctx);
    if (!ctx->hw_frames_ctx) throw std::bad_alloc();
  } else {
    ctx->pix_fmt = encoder_format(codec, host_format_of(first));
    if (ctx->pix_fmt == AV_PIX_FMT_NONE) {
      *why = std::string("it takes no format close to ") + pix_fmt_name(host_format_of(first));
      return false;
    }
    if (nvenc) {
      ctx->hw_device_ctx = av_buffer_ref(gpu->device());  // our context and stream
      if (!ctx->hw_device_ctx) throw std::bad_alloc();
    } else {
      ctx->thread_count = 0;
    }
  }
  // The tags of the frames as the encoder gets them (converted, if they must be).
  const ColourTags tags = ctx->pix_fmt == AV_PIX_FMT_CUDA
                              ? converted_colour(first, host_format_of(first), host_format_of(first))
                              : converted_colour(first, host_format_of(first), ctx->pix_fmt);
  ctx->color_range = tags.range;
  ctx->color_primaries = tags.primaries;
  ctx->color_trc = tags.trc;
  ctx->colorspace = tags.space;
  const EncoderSettings settings = encoder_settings(codec->name, o);
  AVDictionary* opts = nullptr;
  for (const auto& kv : settings.options) av_dict_set(&opts, kv.first.c_str(), kv.second.c_str(), 0);
  // HDR10 metadata into the bitstream (hdr_metadata.h): appended to the encoder's parameter string.
  const std::string hdr = hdr_encoder_params(codec->name, hdr_metadata_of(first, in_stream));
  if (!hdr.empty()) {
    const std::string key = std::string(codec->name) == "libx265" ? "x265-params" : "x264-params";
    const AVDictionaryEntry* e = av_dict_get(opts, key.c_str(), nullptr, 0);
    av_dict_set(&opts, key.c_str(), (e && *e->value ? std::string(e->value) + ":" : std::string()).append(hdr).c_str(), 0);
  }
  if (settings.bit_rate > 0) ctx->bit_rate = settings.bit_rate;
  clear_ffmpeg_error();
  const int rc = avcodec_open2(ctx.get(), codec, &opts);
  av_dict_free(&opts);
  if (rc < 0) {
    *why = av_error(rc);
    return false;
  }
  ctx_ = std::move(ctx);
  nvenc_ = nvenc;
  in_tb_ = in_stream->time_base;
  if (ctx_->framerate.num > 0 && ctx_->framerate.den > 0)
    default_duration_ = av_rescale_q(1, av_inv_q(ctx_->framerate), ctx_->time_base);
  return true;
}

std::string Encoder::path_name() const { return nvenc_ ? "nvenc" : raw_ ? "raw" : ctx_->codec->name; }

void Encoder::send(FramePtr frame) {
  if (!frame) {
    flushing_ = true;
    const int rc = avcodec_send_frame(ctx_.get(), nullptr);
    if (rc < 0 && rc != AVERROR_EOF) throw Failure(kExitFailure, "flushing the encoder failed: " + av_error(rc));
    return;
  }
  if (ctx_->pix_fmt == AV_PIX_FMT_CUDA && frame->format != AV_PIX_FMT_CUDA)
    throw Failure(kExitInput, "the video switched from NVDEC to software decoding mid-stream: not supported");
  if (frame->format == AV_PIX_FMT_CUDA && ctx_->pix_fmt != AV_PIX_FMT_CUDA) {
    FramePtr host = alloc_frame();
    int rc = av_hwframe_transfer_data(host.get(), frame.get(), 0);
    if (rc >= 0) rc = av_frame_copy_props(host.get(), frame.get());
    if (rc < 0) throw Failure(kExitGpu, "cannot download a frame for " + path_name() + ": " + av_error(rc));
    ++downloads_;
    frame = std::move(host);
  }
  if (frame->format != ctx_->pix_fmt) {
    if (unjay(static_cast<AVPixelFormat>(frame->format)) == ctx_->pix_fmt)
      frame->format = ctx_->pix_fmt;  // same samples; color_range already says full range
    else
      frame = converter_.convert(frame.get(), ctx_->pix_fmt);
  }
  frame->pict_type = AV_PICTURE_TYPE_NONE;  // let the encoder choose its own frame types
  if (av_cmp_q(in_tb_, ctx_->time_base) != 0) {  // raw output: frame numbers, not the input's clock
    if (frame->pts != AV_NOPTS_VALUE) frame->pts = av_rescale_q(frame->pts, in_tb_, ctx_->time_base);
    frame->pkt_duration = av_rescale_q(frame->pkt_duration, in_tb_, ctx_->time_base);
  }
  if (frame->pts != AV_NOPTS_VALUE && frame->pkt_duration > 0) durations_[frame->pts] = frame->pkt_duration;
  if (frame->pts != AV_NOPTS_VALUE && (last_pts_ == AV_NOPTS_VALUE || frame->pts > last_pts_)) last_pts_ = frame->pts;
  const int rc = avcodec_send_frame(ctx_.get(), frame.get());
  if (rc < 0)
    throw Failure(nvenc_ ? kExitGpu : kExitFailure, "encoding with " + std::string(ctx_->codec->name) +
                                                        " failed: " + av_error(rc));
}

bool Encoder::receive(AVPacket* pkt) {
  const int rc = avcodec_receive_packet(ctx_.get(), pkt);
  if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return false;
  if (rc < 0)
    throw Failure(nvenc_ ? kExitGpu : kExitFailure, "encoding with " + std::string(ctx_->codec->name) +
                                                        " failed: " + av_error(rc));
  const auto it = durations_.find(pkt->pts);
  if (it != durations_.end()) {
    if (pkt->duration <= 0) pkt->duration = it->second;
    durations_.erase(it);
  } else if (pkt->duration <= 0) {
    pkt->duration = default_duration_;
  }
  if (flushing_ && pkt->pts == last_pts_ && stream_end_ != AV_NOPTS_VALUE) {
    const std::int64_t to_end = stream_end_ - pkt->pts;
    if (to_end > pkt->duration && to_end <= 2 * std::max<std::int64_t>(default_duration_, pkt->duration))
      pkt->duration = to_end;
  }
  return true;
}

}  // namespace cdn::transcode
