// interlace.cpp: interlaced input per mode, and fields as frames (interlace.h).
#include "cudadenoise/interlace.h"

#include <cstdint>

#include "cudadenoise/error.h"

namespace cdn {

InterlacedInput interlaced_input(Mode m) {
  return is_temporal(m) ? InterlacedInput::Refuse : InterlacedInput::FilterFields;
}

std::string interlaced_refusal(Mode m, const std::string& how_to_deinterlace) {
  if (interlaced_input(m) == InterlacedInput::FilterFields) return "";
  std::string per_frame;
  for (Mode other : all_modes())
    if (interlaced_input(other) == InterlacedInput::FilterFields)
      per_frame += (per_frame.empty() ? "" : ", ") + std::string(mode_name(other));
  return std::string(mode_name(m)) +
         " filters whole frames over a window of time and would mix their two fields; deinterlace it first" +
         (how_to_deinterlace.empty() ? "" : " (" + how_to_deinterlace + ")") + " or use a per-frame mode (" +
         per_frame + "), which filters each field apart";
}

bool fields_fit(PixelFormat format, int height) {
  return height > 0 && height % (2 << format_info(format).chroma_shift_y) == 0;
}

std::string fields_misfit(PixelFormat format, int height) {
  if (fields_fit(format, height)) return "";
  return "a height (" + std::to_string(height) + ") whose " +
         (format_info(format).chroma_shift_y ? "chroma " : "") + "lines do not split evenly into two fields";
}

FrameView field_view(const FrameView& frame, int parity) {
  if (parity != 0 && parity != 1) throw InvalidArgument("field parity " + std::to_string(parity) + ": 0 or 1");
  if (!fields_fit(frame.format, frame.height))
    throw InvalidArgument(std::string(format_name(frame.format)) + " frame: " + fields_misfit(frame.format, frame.height));
  FrameView f = frame;
  f.height = frame.height / 2;
  for (int p = 0; p < format_info(frame.format).planes; ++p) {
    f.data[p] = static_cast<std::uint8_t*>(frame.data[p]) + frame.pitch[p] * parity;
    f.pitch[p] = frame.pitch[p] * 2;
  }
  return f;
}

}  // namespace cdn
