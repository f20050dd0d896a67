// hdr10_values.h: the HDR10 metadata the transcode tests put into clips and
// frames and look for in the output: a BT.2020 mastering display of
// 0.0001-1000 cd/m2 and a content light level of 1000 (MaxCLL) / 400 (MaxFALL)
// cd/m2, as FFmpeg's structures and as libx265's master-display / max-cll text.
#pragma once

extern "C" {
#include <libavutil/mastering_display_metadata.h>
}

namespace cdn::transcode_test {

inline constexpr const char* kHdr10MasterDisplay =
    "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)";
inline constexpr const char* kHdr10MaxCll = "1000,400";

inline AVMasteringDisplayMetadata hdr10_mastering() {
  AVMasteringDisplayMetadata m{};
  m.display_primaries[0][0] = {34000, 50000}, m.display_primaries[0][1] = {16000, 50000};
  m.display_primaries[1][0] = {13250, 50000}, m.display_primaries[1][1] = {34500, 50000};
  m.display_primaries[2][0] = {7500, 50000}, m.display_primaries[2][1] = {3000, 50000};
  m.white_point[0] = {15635, 50000}, m.white_point[1] = {16450, 50000};
  m.min_luminance = {1, 10000}, m.max_luminance = {10000000, 10000};
  m.has_primaries = m.has_luminance = 1;
  return m;
}

inline AVContentLightMetadata hdr10_light_level() {
  AVContentLightMetadata l{};
  l.MaxCLL = 1000, l.MaxFALL = 400;
  return l;
}

}  // namespace cdn::transcode_test
