// image_io.h: reading and writing images: PNG (gray, gray+alpha, RGB, RGBA at 8
// or 16 bits, through libpng) and binary PGM (P5, 8 or 16 bits).
//
// Reading detects the format from the file's first bytes. Palette and sub-8-bit
// PNGs are expanded to 8 bits, tRNS to an alpha channel. PGMs whose maxval is not
// 255 or 65535 are rescaled to the full 8- or 16-bit range. Writing picks PGM for
// a ".pgm" name (gray only) and PNG otherwise, and goes through a temporary file
// in the same directory that is renamed over the target: a reader never sees a
// half-written file. A symlink is written through (the file it names is
// replaced). Failures throw ImageError with the path and the reason.
//
// Reading checks the header's size before allocating anything: each side at
// most kMaxImageSide pixels, at most kMaxImagePixels pixels in all, and no more
// pixel data than the file can hold (PGM: the bytes after the header; PNG: the
// compressed data can expand at most kMaxDeflateRatio times, deflate's limit).
// A crafted header claiming 100000x100000 fails at once, allocating nothing.
#pragma once

#include <stdexcept>
#include <string>

#include "image.h"

namespace cdn::tools {

class ImageError : public std::runtime_error {
 public:
  explicit ImageError(const std::string& what) : std::runtime_error(what) {}
};

constexpr long kMaxImageSide = 65535;
constexpr long long kMaxImagePixels = 1LL << 28;  // 268 megapixels (16384 x 16384)
constexpr long long kMaxDeflateRatio = 1032;

Image read_image(const std::string& path);
void write_image(const std::string& path, const Image& image);  // by extension
void write_png(const std::string& path, const Image& image);
void write_pgm(const std::string& path, const Image& image);

}  // namespace cdn::tools
