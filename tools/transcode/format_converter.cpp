// format_converter.cpp: swscale format conversion (format_converter.h).
#include "format_converter.h"

#include <string>

#include "errors.h"
#include "pixel_format.h"

extern "C" {
#include <libswscale/swscale.h>
}

namespace cdn::transcode {

FormatConverter::~FormatConverter() { sws_freeContext(sws_); }

FramePtr FormatConverter::convert(const AVFrame* in, AVPixelFormat to) {
  const auto from = static_cast<AVPixelFormat>(in->format);
  // Same size, so no filtering: point sampling keeps samples exact where the
  // formats differ only in layout (p010le <-> yuv420p10le).
  sws_ = sws_getCachedContext(sws_, in->width, in->height, from, in->width, in->height, to,
                              SWS_POINT | SWS_ACCURATE_RND | SWS_BITEXACT, nullptr, nullptr, nullptr);
  if (!sws_)
    throw Failure(kExitFailure, std::string("swscale cannot convert ") + pix_fmt_name(from) + " to " + pix_fmt_name(to));
  FramePtr out = alloc_frame();
  out->format = to;
  out->width = in->width;
  out->height = in->height;
  int rc = av_frame_get_buffer(out.get(), 0);
  if (rc >= 0) rc = av_frame_copy_props(out.get(), in);
  if (rc < 0) throw Failure(kExitFailure, "cannot allocate a frame: " + av_error(rc));
  sws_scale(sws_, in->data, in->linesize, 0, in->height, out->data, out->linesize);
  return out;
}

}  // namespace cdn::transcode
