// decoder.h: the video decoder: NVDEC into CUDA frames when a GPU device is
// given and the codec has a CUDA hwaccel, else software. FFmpeg decides per
// stream whether NVDEC takes it (get_format is offered AV_PIX_FMT_CUDA only if
// the hwaccel can), so the path actually taken shows on the frames: format
// AV_PIX_FMT_CUDA (nvdec) or a software format (software).
//
// Decode errors. FFmpeg conceals damage: a packet it rejects as invalid data is
// skipped (decoding goes on with the next one), and a frame it had to patch up
// comes out with decode_error_flags (FF_DECODE_ERROR_*, e.g. concealment
// active) or AV_FRAME_FLAG_CORRUPT. Each counts as one decode error (errors()),
// with the first one's description kept for a note (first_error()). Only
// errors that are not the input's fault (out of memory, a GPU failure) throw.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <string>

#include "av_ptr.h"

namespace cdn::transcode {

class GpuDevice;

class Decoder {
 public:
  // Throws Failure(kExitCodec) when there is no decoder, kExitInput when it
  // cannot open with the stream's parameters.
  Decoder(AVFormatContext* format, AVStream* stream, const GpuDevice* gpu);

  // Sends one packet (nullptr: end of stream). Invalid data counts as a decode
  // error; other failures throw Failure(kExitInput), or kExitGpu for NVDEC.
  void send(const AVPacket* pkt);
  // The next decoded frame into `frame`; false when it needs more input or is
  // drained. A frame FFmpeg marks damaged counts as a decode error.
  bool receive(AVFrame* frame);

  long long errors() const { return errors_; }
  const std::string& first_error() const { return first_error_; }

  AVCodecContext* context() const { return ctx_.get(); }
  const char* codec_name() const { return ctx_->codec->name; }

 private:
  static AVPixelFormat pick_format(AVCodecContext* ctx, const AVPixelFormat* offered);
  int error_code(int averror) const;
  void count_error(const std::string& what);
  CodecPtr ctx_;
  long long errors_ = 0;
  long long frames_ = 0;
  std::string first_error_;
  bool want_cuda_ = false;
  long long packets_ = 0;
};

}  // namespace cdn::transcode
