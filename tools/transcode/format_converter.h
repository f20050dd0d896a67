// format_converter.h: a pixel format change at the same size (swscale), for
// software frames cdn or the encoder cannot take as they are. One converter
// per direction; it rebuilds its SwsContext when the input changes.
#pragma once

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include "av_ptr.h"

struct SwsContext;

namespace cdn::transcode {

class FormatConverter {
 public:
  FormatConverter() = default;
  ~FormatConverter();
  FormatConverter(const FormatConverter&) = delete;
  FormatConverter& operator=(const FormatConverter&) = delete;

  // A new frame in format `to` with `in`'s picture and properties (pts, colour
  // description, side data). Throws Failure(kExitFailure) if swscale cannot.
  FramePtr convert(const AVFrame* in, AVPixelFormat to);

 private:
  SwsContext* sws_ = nullptr;
};

}  // namespace cdn::transcode
