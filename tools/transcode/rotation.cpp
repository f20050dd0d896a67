// rotation.cpp: turning frames by right angles for --autorotate (rotation.h).
#include "rotation.h"

#include <cmath>
#include <cstring>
#include <string>

#include "errors.h"
#include "pixel_format.h"

extern "C" {
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

namespace cdn::transcode {

int quarter_turns_of(const std::int32_t* m) {
  if (!m) return 0;
  // A mirror makes the 2x2 part's determinant negative: not a rotation.
  const double det = double(m[0]) * m[4] - double(m[1]) * m[3];
  if (det <= 0) return -1;
  const double clockwise = -av_display_rotation_get(m);  // FFmpeg returns counterclockwise degrees
  const double turns = clockwise / 90.0;
  const long whole = std::lround(turns);
  if (std::fabs(turns - whole) > 1e-3) return -1;
  return static_cast<int>(((whole % 4) + 4) % 4);
}

namespace {

// Element (x, y) of a plane of w x h elements of `size` bytes, turned: where it goes.
void turn_plane(const std::uint8_t* src, int src_pitch, std::uint8_t* dst, int dst_pitch, int w, int h, int size,
                int turns) {
  for (int y = 0; y < h; ++y) {
    const std::uint8_t* row = src + static_cast<std::ptrdiff_t>(y) * src_pitch;
    for (int x = 0; x < w; ++x) {
      int dx, dy;
      switch (turns) {
        case 1: dx = h - 1 - y, dy = x; break;          // 90 clockwise: W x H -> H x W
        case 2: dx = w - 1 - x, dy = h - 1 - y; break;  // 180
        default: dx = y, dy = w - 1 - x; break;         // 270 clockwise
      }
      std::memcpy(dst + static_cast<std::ptrdiff_t>(dy) * dst_pitch + static_cast<std::ptrdiff_t>(dx) * size,
                  row + static_cast<std::ptrdiff_t>(x) * size, size);
    }
  }
}

}  // namespace

FramePtr rotate_frame(const AVFrame* in, int turns) {
  const auto format = static_cast<AVPixelFormat>(in->format);
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  if (!d || (d->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_PAL)))
    throw Failure(kExitFailure, std::string("--autorotate cannot turn ") + pix_fmt_name(format) + " frames");
  const bool odd = turns % 2 != 0;
  FramePtr out = alloc_frame();
  out->format = format;
  out->width = odd ? in->height : in->width;
  out->height = odd ? in->width : in->height;
  int rc = av_frame_get_buffer(out.get(), 0);
  if (rc >= 0) rc = av_frame_copy_props(out.get(), in);
  if (rc < 0) throw Failure(kExitFailure, "cannot allocate a frame: " + av_error(rc));
  if (odd) out->sample_aspect_ratio = AVRational{in->sample_aspect_ratio.den, in->sample_aspect_ratio.num};
  // Each plane: its size in elements (the first component on it gives the element's bytes).
  for (int p = 0; p < av_pix_fmt_count_planes(format); ++p) {
    int component = -1;
    for (int c = 0; c < d->nb_components && component < 0; ++c)
      if (d->comp[c].plane == p) component = c;
    if (component < 0) continue;
    const bool chroma = component == 1 || component == 2;
    const int w = chroma ? AV_CEIL_RSHIFT(in->width, d->log2_chroma_w) : in->width;
    const int h = chroma ? AV_CEIL_RSHIFT(in->height, d->log2_chroma_h) : in->height;
    if (odd && d->log2_chroma_w != d->log2_chroma_h && chroma)
      throw Failure(kExitFailure, std::string("--autorotate cannot turn ") + pix_fmt_name(format) +
                                      " by 90 degrees (its chroma is subsampled in one direction only)");
    turn_plane(in->data[p], in->linesize[p], out->data[p], out->linesize[p], w, h, d->comp[component].step, turns);
  }
  return out;
}

}  // namespace cdn::transcode
