// convert.h: between file images (image.h) and the frames the denoiser filters.
//
// Gray images (with or without alpha) become GRAY8 / GRAY16_LE frames; colour
// images become Y444, 8-bit YCbCr 4:4:4 in BT.601 full range (the JPEG/JFIF
// matrix, no headroom: Y, Cb, Cr all span 0..255):
//   Y  =       0.299 R    + 0.587 G    + 0.114 B
//   Cb = 128 - 0.168736 R - 0.331264 G + 0.5 B
//   Cr = 128 + 0.5 R      - 0.418688 G - 0.081312 B
// and back with R = Y + 1.402 (Cr-128), G = Y - 0.344136 (Cb-128) - 0.714136
// (Cr-128), B = Y + 1.772 (Cb-128); every result rounded and clamped to 0..255.
// Alpha is not part of the frame: frame_to_image leaves the image's alpha as is.
#pragma once

#include "cudadenoise/host_frame.h"
#include "image.h"

namespace cdn::tools {

// The frame format an image is filtered as. Colour images must be 8-bit (see to_8bit).
PixelFormat frame_format_for(const Image& image);

HostFrame image_to_frame(const Image& image);
// Writes the frame's samples into the image's gray / colour channels; the frame
// must have frame_format_for(image) and the image's size.
void frame_to_image(const FrameView& frame, Image& image);

// 16-bit to 8-bit, rounded (v * 255 / 65535); 8-bit images are returned as they are.
Image to_8bit(const Image& image);

struct Yuv {
  int y, cb, cr;
};
struct Rgb {
  int r, g, b;
};
Yuv rgb_to_yuv(Rgb c);
Rgb yuv_to_rgb(Yuv c);

}  // namespace cdn::tools
