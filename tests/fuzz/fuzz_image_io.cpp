// fuzz_image_io.cpp: libFuzzer target for the image reader of the tools
// (tools/common/image_io: PNG through libpng, binary PGM), then what
// cudadenoise-image does with a small image: conversion to a frame and the CPU
// filter. A read either throws ImageError or gives a consistent image.
//
// PNG chunks carry CRCs that libpng checks, so random mutations of a header
// would nearly all be rejected as corrupt: the custom mutator below rewrites
// every chunk's CRC after libFuzzer's own mutation, which lets the fuzzer reach
// header values (sizes, depths, colour types) and the chunks after them.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "convert.h"
#include "cudadenoise/host_frame.h"
#include "fuzz_support.h"
#include "image_io.h"
#include "cudadenoise/stream_denoiser.h"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

constexpr std::uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr long kMaxFilteredPixels = 64 * 64;  // larger images are read and checked, not filtered

std::uint32_t big_endian32(const std::uint8_t* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

void fix_png_crcs(std::uint8_t* data, std::size_t size) {
  if (size < 8 || std::memcmp(data, kPngSignature, 8) != 0) return;
  std::size_t pos = 8;
  while (pos + 12 <= size) {
    const std::uint32_t length = big_endian32(data + pos);
    if (length > size - pos - 12) return;
    const std::uint32_t crc = static_cast<std::uint32_t>(crc32(0, data + pos + 4, length + 4));
    std::uint8_t* out = data + pos + 8 + length;
    out[0] = std::uint8_t(crc >> 24), out[1] = std::uint8_t(crc >> 16), out[2] = std::uint8_t(crc >> 8);
    out[3] = std::uint8_t(crc);
    pos += 12 + length;
  }
}

void check(const cdn::tools::Image& img) {
  using cdn::fuzz::fuzz_fail;
  if (img.width <= 0 || img.height <= 0) fuzz_fail("image without pixels");
  if (img.channels < 1 || img.channels > 4) fuzz_fail("channel count " + std::to_string(img.channels));
  if (img.bit_depth != 8 && img.bit_depth != 16) fuzz_fail("bit depth " + std::to_string(img.bit_depth));
  if (img.data.size() != img.row_bytes() * static_cast<std::size_t>(img.height)) fuzz_fail("data size");
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int /*seed*/) {
  size = LLVMFuzzerMutate(data, size, max_size);
  fix_png_crcs(data, size);
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static cdn::fuzz::MemFile file;
  file.set(data, size);
  cdn::tools::Image img;
  try {
    img = cdn::tools::read_image(file.path());
  } catch (const cdn::tools::ImageError&) {
    return 0;  // refused with a message: what bad input must get
  }
  check(img);
  if (static_cast<long>(img.width) * img.height > kMaxFilteredPixels) return 0;
  // cudadenoise-image: colour images are filtered at 8 bits, gray at their depth.
  cdn::tools::Image in = img.is_colour() ? cdn::tools::to_8bit(img) : img;
  check(in);
  const cdn::HostFrame frame = cdn::tools::image_to_frame(in);
  cdn::HostFrame out(frame.view().format, frame.view().width, frame.view().height);
  cdn::DenoiseSettings s;
  s.mode = cdn::Mode::Hybrid;
  cdn::StreamDenoiser::create(cdn::Backend::Cpu, s, frame.view().format, frame.view().width, frame.view().height)
      ->process(frame.view(), out.view());
  cdn::tools::frame_to_image(out.view(), in);
  check(in);
  return 0;
}
