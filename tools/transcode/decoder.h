// decoder.h: the video decoder: NVDEC into CUDA frames when a GPU device is
// given and the codec has a CUDA hwaccel, else software. FFmpeg decides per
// stream whether NVDEC takes it (get_format is offered AV_PIX_FMT_CUDA only if
// the hwaccel can), so the path actually taken shows on the frames: format
// AV_PIX_FMT_CUDA (nvdec) or a software format (software).
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include "av_ptr.h"

namespace cdn::transcode {

class GpuDevice;

class Decoder {
 public:
  // Throws Failure(kExitCodec) when there is no decoder, kExitInput when it
  // cannot open with the stream's parameters.
  Decoder(AVFormatContext* format, AVStream* stream, const GpuDevice* gpu);

  // Sends one packet (nullptr: end of stream). Throws Failure(kExitInput) on
  // decode errors (kExitGpu for NVDEC failures other than bad bitstream data).
  void send(const AVPacket* pkt);
  // The next decoded frame into `frame`; false when it needs more input or is drained.
  bool receive(AVFrame* frame);

  AVCodecContext* context() const { return ctx_.get(); }
  const char* codec_name() const { return ctx_->codec->name; }

 private:
  static AVPixelFormat pick_format(AVCodecContext* ctx, const AVPixelFormat* offered);
  int error_code(int averror) const;
  CodecPtr ctx_;
  bool want_cuda_ = false;
  long long packets_ = 0;
};

}  // namespace cdn::transcode
