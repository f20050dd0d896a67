// format_converter.h: a pixel format change at the same size (swscale), for
// software frames cdn or the encoder cannot take as they are. One converter
// per direction; it rebuilds its SwsContext when the input changes.
//
// The colour description of the result is decided here, once, for both the
// conversion and the tags the output carries (converted_colour): between YUV
// formats nothing changes but the layout, bit depth or chroma subsampling
// (same matrix, same range: no level conversion); RGB becomes YUV with the
// matrix the input names, else BT.709 for HD (1280 wide or more than 576
// lines) and BT.601 (SMPTE 170M) below, in limited range, as players assume for untagged video. swscale
// is told both sides explicitly (sws_setColorspaceDetails), so a full-range
// frame is never squeezed or stretched by a default. Primaries and transfer
// are kept as the input has them.
#pragma once

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include "av_ptr.h"

struct SwsContext;

namespace cdn::transcode {

struct ColourTags {
  AVColorSpace space = AVCOL_SPC_UNSPECIFIED;
  AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
  AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
  AVColorTransferCharacteristic trc = AVCOL_TRC_UNSPECIFIED;
};

// The colour a frame with `in`'s tags, `in`'s height and pixel layout `from`
// has after conversion to `to` (see above).
ColourTags converted_colour(const AVFrame* in, AVPixelFormat from, AVPixelFormat to);

class FormatConverter {
 public:
  FormatConverter() = default;
  ~FormatConverter();
  FormatConverter(const FormatConverter&) = delete;
  FormatConverter& operator=(const FormatConverter&) = delete;

  // A new frame in format `to` with `in`'s picture and properties (pts, side
  // data), tagged with converted_colour(). Throws Failure(kExitFailure) if
  // swscale cannot.
  FramePtr convert(const AVFrame* in, AVPixelFormat to);

 private:
  SwsContext* sws_ = nullptr;
};

}  // namespace cdn::transcode
