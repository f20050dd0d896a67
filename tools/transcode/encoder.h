// encoder.h: the video encoder, opened on the first denoised frame (its size,
// format and, on the GPU path, its hw_frames_ctx decide the setup).
//
// Tried in order: NVENC (h264_nvenc / hevc_nvenc) when there is a GPU, fed
// with our CUDA frames directly (zero-copy) or with host frames; then libx264 /
// libx265, fed with host frames (CUDA frames are downloaded with
// av_hwframe_transfer_data, formats the encoder lacks are converted, e.g.
// p010le -> yuv420p10le). If NVENC does not open (H100/H200 have none) the
// reason is kept for one note. Packet durations are restored from the frames'
// (libx264 leaves them 0), so the container's duration is the input's.
//
// The stream's colour tags are those of the frames it encodes (after any
// conversion: format_converter.h). Interlaced input keeps its field order:
// libx264 and NVENC H.264 encode it interlaced; libx265 and NVENC HEVC cannot,
// so --codec hevc refuses interlaced input. For a raw muxer (yuv4mpegpipe)
// the "encoder" is wrapped_avframe: frames go out as they are, in a layout
// y4m holds (nv12 -> yuv420p, p010le -> yuv420p10le).
#pragma once

#include <map>
#include <string>

#include "av_ptr.h"
#include "format_converter.h"
#include "options.h"

extern "C" {
#include <libavformat/avformat.h>
}

namespace cdn::transcode {

class GpuDevice;

// Checked before decoding starts: "" or why --codec `codec` cannot encode
// frames of `width` x `height` decoded as `decoded` (a software decoder's
// format), with what to do instead. The format the encoder will be given (after
// the filter's conversion, as Encoder chooses it) must have a chroma
// subsampling that divides the size: 4:2:0 needs an even width and height,
// 4:2:2 an even width. Then the software encoder (libx264 / libx265) is opened
// once at that size, which finds its own limits (libx265's smallest picture).
// `raw` (yuv4mpegpipe) has no such limit.
std::string encoder_size_problem(const std::string& codec, bool raw, AVPixelFormat decoded, int width, int height);

class Encoder {
 public:
  // Throws Failure(kExitCodec) when no encoder for o.codec exists or opens.
  // *fallback_note gets "h264_nvenc cannot encode here (...)" when NVENC was tried and failed.
  // `field_order`: AV_FIELD_PROGRESSIVE or the input's field order. `raw`: a raw muxer (see above).
  Encoder(const TranscodeOptions& o, AVFormatContext* in_format, AVStream* in_stream, const AVFrame* first,
          const GpuDevice* gpu, bool global_header, std::string* fallback_note,
          AVFieldOrder field_order = AV_FIELD_PROGRESSIVE, bool raw = false);

  // Takes a frame (nullptr: flush). Throws Failure on encoder errors.
  void send(FramePtr frame);
  // The next packet (time base: context()->time_base); false when none is ready.
  bool receive(AVPacket* pkt);
  // Where the input's video stream says it ends (time base: the input stream's).
  // At the flush, the last frame's packet is lengthened to end there if that is
  // at most two frames away: MP4 keeps the last frame's length only in its edit
  // list, so the decoded duration can be short.
  void set_stream_end(std::int64_t end) { stream_end_ = av_rescale_q(end, in_tb_, ctx_->time_base); }

  AVCodecContext* context() const { return ctx_.get(); }
  // "nvenc", "libx264", "libx265" or "raw".
  std::string path_name() const;
  // Frames downloaded from the GPU to feed a CPU encoder.
  long long downloads() const { return downloads_; }

 private:
  bool try_open(const AVCodec* codec, const TranscodeOptions& o, AVFormatContext* in_format, AVStream* in_stream,
                const AVFrame* first, const GpuDevice* gpu, bool global_header, std::string* why);
  AVFieldOrder field_order_ = AV_FIELD_PROGRESSIVE;
  bool raw_ = false;

  CodecPtr ctx_;
  bool nvenc_ = false;
  FormatConverter converter_;
  std::map<std::int64_t, std::int64_t> durations_;  // frame pts -> duration, for packets
  std::int64_t default_duration_ = 0;
  std::int64_t stream_end_ = AV_NOPTS_VALUE;
  AVRational in_tb_{1, 1};  // frames arrive in the input stream's time base
  std::int64_t last_pts_ = AV_NOPTS_VALUE;  // the largest frame pts sent
  bool flushing_ = false;
  long long downloads_ = 0;
};

}  // namespace cdn::transcode
