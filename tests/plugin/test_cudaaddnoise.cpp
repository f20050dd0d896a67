// test_cudaaddnoise.cpp: the cudaaddnoise element: properties, and output equal
// to kernels/include/cudadenoise/noise.h with seed + frame number.
#include <gst/check/gstharness.h>

#include <cstring>
#include <string>

#include "plugin_test_support.h"

using namespace cdn_test;

TEST(CudaAddNoiseElement, PropertyDefaults) {
  GstElement* e = gst_element_factory_make("cudaaddnoise", nullptr);
  ASSERT_NE(e, nullptr) << "plugin not found: is GST_PLUGIN_PATH_1_0 the build's plugin dir?";
  double sigma = -1;
  guint64 seed = 1;
  int id = 0;
  g_object_get(e, "sigma", &sigma, "seed", &seed, "cuda-device-id", &id, nullptr);
  EXPECT_DOUBLE_EQ(sigma, 20.0);
  EXPECT_EQ(seed, 0u);
  EXPECT_EQ(id, -1);
  g_object_set(e, "sigma", -3.0, nullptr);  // out of range: GObject refuses
  g_object_get(e, "sigma", &sigma, nullptr);
  EXPECT_DOUBLE_EQ(sigma, 20.0);
  gst_object_unref(e);
}

TEST(CudaAddNoiseElement, FrameNUsesSeedPlusN) {
  for (const char* fmt : {"NV12", "I420", "P010_10LE", "P016_LE", "Y444", "GRAY8", "GRAY16_LE"}) {
    SCOPED_TRACE(fmt);
    const int w = 37, h = 21;
    const GstVideoInfo info = video_info(fmt, w, h);
    GstHarness* hs = gst_harness_new_parse("cudaaddnoise sigma=12.5 seed=1000");
    const std::string caps = caps_string(fmt, w, h);
    gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
    for (int n = 0; n < 3; ++n) {
      GstBuffer* in = make_frame(info, 50 + n);
      cdn::PixelFormat pf;
      ASSERT_TRUE(cdn::parse_format(fmt, &pf));
      HostFrame ref(pf, w, h);
      {
        MappedView m(in, info, GST_MAP_READ);
        ASSERT_TRUE(m.ok());
        for (int p = 0; p < cdn::format_info(pf).planes; ++p)
          for (int y = 0; y < cdn::plane_height(pf, h, p); ++y)
            std::memcpy(ref.planes[p].data() + y * ref.view.pitch[p],
                        static_cast<const char*>(m.view().data[p]) + y * m.view().pitch[p], ref.view.pitch[p]);
      }
      cdn::add_gaussian_noise(ref.view, 12.5, 1000 + n);
      ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
      GstBuffer* out = gst_harness_pull(hs);
      ASSERT_NE(out, nullptr);
      {
        MappedView m(out, info, GST_MAP_READ);
        const Diff d = compare(ref.view, m.view());
        EXPECT_EQ(d.count, 0) << "frame " << n;
      }
      gst_buffer_unref(out);
    }
    gst_harness_teardown(hs);
  }
}
