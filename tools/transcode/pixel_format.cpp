// pixel_format.cpp: FFmpeg <-> cdn pixel formats (pixel_format.h).
#include "pixel_format.h"

#include <cstdint>

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace cdn::transcode {

bool cdn_format_of(AVPixelFormat av, PixelFormat* out) {
  switch (av) {
    case AV_PIX_FMT_YUV420P:
    case AV_PIX_FMT_YUVJ420P: *out = PixelFormat::I420; return true;
    case AV_PIX_FMT_NV12: *out = PixelFormat::NV12; return true;
    case AV_PIX_FMT_P010LE: *out = PixelFormat::P010_10LE; return true;
    case AV_PIX_FMT_P016LE: *out = PixelFormat::P016_LE; return true;
    case AV_PIX_FMT_YUV444P:
    case AV_PIX_FMT_YUVJ444P: *out = PixelFormat::Y444; return true;
    case AV_PIX_FMT_GRAY8: *out = PixelFormat::GRAY8; return true;
    case AV_PIX_FMT_GRAY16LE: *out = PixelFormat::GRAY16_LE; return true;
    default: return false;
  }
}

AVPixelFormat conversion_target(AVPixelFormat av) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(av);
  if (d && d->comp[0].depth > 8) return AV_PIX_FMT_P010LE;
  const bool full_chroma = d && d->nb_components >= 3 && d->log2_chroma_w == 0 && d->log2_chroma_h == 0;
  return full_chroma || (d && (d->flags & AV_PIX_FMT_FLAG_RGB)) ? AV_PIX_FMT_YUV444P : AV_PIX_FMT_YUV420P;
}

FrameView frame_view(const AVFrame* frame, PixelFormat format, MemoryKind memory) {
  FrameView v;
  v.format = format;
  v.width = frame->width;
  v.height = frame->height;
  v.memory = memory;
  for (int p = 0; p < format_info(format).planes; ++p) {
    v.data[p] = frame->data[p];
    v.pitch[p] = static_cast<std::size_t>(frame->linesize[p]);
  }
  return v;
}

const char* pix_fmt_name(int av) {
  const char* n = av_get_pix_fmt_name(static_cast<AVPixelFormat>(av));
  return n ? n : "none";
}

}  // namespace cdn::transcode
