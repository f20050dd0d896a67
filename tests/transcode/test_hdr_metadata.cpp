// test_hdr_metadata.cpp: tools/transcode/hdr_metadata.h on its own: what it
// reads from a frame and a stream, the encoders' parameter strings, and the
// note naming what the output loses (HDR10+ dynamic metadata, which no
// encoder of FFmpeg 5.1 takes from frames; the clips of test_transcode_hdr.cpp
// cannot carry it: Debian's x265 writes none).
#include <gtest/gtest.h>

#include <string>

#include "av_ptr.h"
#include "hdr10_values.h"
#include "hdr_metadata.h"

extern "C" {
#include <libavutil/hdr_dynamic_metadata.h>
}

namespace {

using namespace cdn::transcode;
using namespace cdn::transcode_test;

// A frame with the three kinds of side data the decoders give.
FramePtr frame_with_hdr(bool dynamic) {
  FramePtr f = alloc_frame();
  AVMasteringDisplayMetadata* m = av_mastering_display_metadata_create_side_data(f.get());
  AVContentLightMetadata* l = av_content_light_metadata_create_side_data(f.get());
  if (!m || !l) return nullptr;
  *m = hdr10_mastering();
  *l = hdr10_light_level();
  if (dynamic && !av_dynamic_hdr_plus_create_side_data(f.get())) return nullptr;
  return f;
}

TEST(HdrMetadata, FrameSideDataGoesToTheEncodersParameters) {
  const FramePtr f = frame_with_hdr(false);
  ASSERT_TRUE(f);
  const HdrMetadata m = hdr_metadata_of(f.get(), nullptr);
  EXPECT_TRUE(m.has_mastering && m.has_light_level);
  EXPECT_FALSE(m.has_dynamic);
  const std::string mastering = kHdr10MasterDisplay, light = kHdr10MaxCll;
  EXPECT_EQ(hdr_encoder_params("libx265", m), "master-display=" + mastering + ":max-cll=" + light);
  EXPECT_EQ(hdr_encoder_params("libx264", m), "mastering-display=" + mastering + ":cll=" + light);
  EXPECT_EQ(hdr_encoder_params("hevc_nvenc", m), "");
  EXPECT_EQ(hdr_dropped_note(m, "libx265", "matroska"), "");
  EXPECT_EQ(hdr_dropped_note(m, "libx264", "mp4"), "");
}

TEST(HdrMetadata, WhatIsLostIsNamed) {
  const FramePtr f = frame_with_hdr(true);
  ASSERT_TRUE(f);
  const HdrMetadata m = hdr_metadata_of(f.get(), nullptr);
  EXPECT_TRUE(m.has_dynamic);
  // HDR10+ is lost everywhere; the static metadata only where neither the encoder nor the container keeps it.
  const std::string hdr10plus = "the HDR10+ dynamic metadata is dropped";
  const std::string mkv = hdr_dropped_note(m, "libx265", "matroska");
  EXPECT_NE(mkv.find(hdr10plus), std::string::npos) << mkv;
  EXPECT_EQ(mkv.find("mastering display"), std::string::npos) << mkv;
  const std::string nvenc = hdr_dropped_note(m, "hevc_nvenc", "mp4");
  EXPECT_NE(nvenc.find("kept in the mp4 container only: hevc_nvenc does not write them into the bitstream"),
            std::string::npos) << nvenc;
  EXPECT_NE(nvenc.find(hdr10plus), std::string::npos) << nvenc;
  const std::string y4m = hdr_dropped_note(m, "wrapped_avframe", "yuv4mpegpipe");
  EXPECT_NE(y4m.find("mastering display and content light level metadata are dropped"), std::string::npos) << y4m;
}

}  // namespace
