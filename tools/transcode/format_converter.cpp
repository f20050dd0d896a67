// format_converter.cpp: swscale format conversion with explicit colour
// (format_converter.h).
#include "format_converter.h"

#include <string>

#include "errors.h"
#include "pixel_format.h"

extern "C" {
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace cdn::transcode {

namespace {

bool is_rgb(AVPixelFormat f) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
  return d && (d->flags & AV_PIX_FMT_FLAG_RGB);
}

// The full-range "j" formats say their range in their name.
bool is_jpeg_format(AVPixelFormat f) {
  return f == AV_PIX_FMT_YUVJ420P || f == AV_PIX_FMT_YUVJ422P || f == AV_PIX_FMT_YUVJ444P ||
         f == AV_PIX_FMT_YUVJ440P || f == AV_PIX_FMT_YUVJ411P;
}

// A matrix that turns RGB into YUV (not RGB/GBR itself, not unspecified).
bool is_yuv_matrix(AVColorSpace s) {
  return s != AVCOL_SPC_RGB && s != AVCOL_SPC_UNSPECIFIED && s != AVCOL_SPC_RESERVED && s < AVCOL_SPC_NB;
}

bool full_range(const AVFrame* in, AVPixelFormat from) {
  return in->color_range == AVCOL_RANGE_JPEG || is_jpeg_format(from) || is_rgb(from);
}

}  // namespace

ColourTags converted_colour(const AVFrame* in, AVPixelFormat from, AVPixelFormat to) {
  ColourTags t;
  t.primaries = in->color_primaries;
  t.trc = in->color_trc;
  if (is_rgb(from) && !is_rgb(to)) {
    t.space = is_yuv_matrix(in->colorspace) ? in->colorspace : (in->width >= 1280 || in->height > 576 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M);
    t.range = AVCOL_RANGE_MPEG;
  } else if (!is_rgb(from) && is_rgb(to)) {
    t.space = AVCOL_SPC_RGB;
    t.range = AVCOL_RANGE_JPEG;
  } else {
    t.space = in->colorspace;
    t.range = is_jpeg_format(from) ? AVCOL_RANGE_JPEG : in->color_range;
  }
  return t;
}

FormatConverter::~FormatConverter() { sws_freeContext(sws_); }

FramePtr FormatConverter::convert(const AVFrame* in, AVPixelFormat to) {
  const auto from = static_cast<AVPixelFormat>(in->format);
  const ColourTags out_tags = converted_colour(in, from, to);
  // Same size: point sampling keeps samples exact where the formats differ
  // only in layout (p010le <-> yuv420p10le); from RGB, chroma is averaged.
  const int flags = is_rgb(from) != is_rgb(to)
                        ? SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP | SWS_BITEXACT
                        : SWS_POINT | SWS_ACCURATE_RND | SWS_BITEXACT;
  sws_ = sws_getCachedContext(sws_, in->width, in->height, from, in->width, in->height, to, flags, nullptr, nullptr,
                              nullptr);
  if (!sws_)
    throw Failure(kExitFailure, std::string("swscale cannot convert ") + pix_fmt_name(from) + " to " + pix_fmt_name(to));
  // Both sides explicitly: YUV to YUV keeps its range (no level change), RGB
  // to YUV uses out_tags' matrix and limited range. (For YUV the "inverse"
  // table is the source's matrix; the other table is the destination's.)
  const AVColorSpace src_space = is_rgb(from) ? out_tags.space : in->colorspace;
  const AVColorSpace dst_space = is_rgb(to) ? src_space : out_tags.space;
  const int src_full = full_range(in, from), dst_full = is_rgb(to) || out_tags.range == AVCOL_RANGE_JPEG;
  if (sws_setColorspaceDetails(sws_, sws_getCoefficients(is_yuv_matrix(src_space) ? src_space : SWS_CS_DEFAULT),
                               src_full, sws_getCoefficients(is_yuv_matrix(dst_space) ? dst_space : SWS_CS_DEFAULT),
                               dst_full, 0, 1 << 16, 1 << 16) < 0)
    throw Failure(kExitFailure, std::string("swscale cannot set the colour details to convert ") + pix_fmt_name(from) +
                                    " to " + pix_fmt_name(to));
  FramePtr out = alloc_frame();
  out->format = to;
  out->width = in->width;
  out->height = in->height;
  int rc = av_frame_get_buffer(out.get(), 0);
  if (rc >= 0) rc = av_frame_copy_props(out.get(), in);
  if (rc < 0) throw Failure(kExitFailure, "cannot allocate a frame: " + av_error(rc));
  out->colorspace = out_tags.space;
  out->color_range = out_tags.range;
  sws_scale(sws_, in->data, in->linesize, 0, in->height, out->data, out->linesize);
  return out;
}

}  // namespace cdn::transcode
