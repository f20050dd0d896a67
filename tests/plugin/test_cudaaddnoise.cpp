// test_cudaaddnoise.cpp: the cudaaddnoise element on system memory (its CPU
// path): properties; output equal to kernels/include/cudadenoise/counter_noise.h with seed + frame
// number, for every format, tight and padded buffers; the noise's mean and
// standard deviation on a flat picture. The CUDA path: test_gpu_plugin.cpp.
#include <gst/check/gstharness.h>

#include <cmath>
#include <cstring>
#include <string>

#include "cudadenoise/counter_noise.h"
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
  for (bool padded : {false, true})
    for (const char* fmt : {"NV12", "I420", "P010_10LE", "P016_LE", "Y444", "GRAY8", "GRAY16_LE"}) {
      SCOPED_TRACE(std::string(fmt) + (padded ? " padded" : ""));
      const int w = 37, h = 21;
      const GstVideoInfo info = video_info(fmt, w, h);
      GstHarness* hs = gst_harness_new_parse("cudaaddnoise sigma=12.5 seed=1000");
      const std::string caps = caps_string(fmt, w, h);
      gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
      for (int n = 0; n < 3; ++n) {
        GstBuffer* in = make_frame(info, 50 + n, padded);
        cdn::PixelFormat pf;
        ASSERT_TRUE(cdn::parse_format(fmt, &pf));
        HostFrame ref(pf, w, h);
        {
          MappedView m(in, info, GST_MAP_READ);  // a padded buffer's video meta gives its strides
          ASSERT_TRUE(m.ok());
          cdn::add_counter_noise(m.view(), ref.view, 12.5, 1000 + n);
        }
        ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
        GstBuffer* out = gst_harness_pull(hs);
        ASSERT_NE(out, nullptr);
        {
          MappedView m(out, info, GST_MAP_READ);
          ASSERT_TRUE(m.ok());
          const Diff d = compare(ref.view, m.view());
          EXPECT_EQ(d.count, 0) << "frame " << n;
        }
        gst_buffer_unref(out);
      }
      gst_harness_teardown(hs);
    }
}

// A flat mid-grey picture: per component, the noise the element adds has mean 0
// and the standard deviation of sigma at the format's depth (sqrt(s^2 + 1/12)
// after rounding), within 5 standard errors; frame 1's noise is not frame 0's.
TEST(CudaAddNoiseElement, NoiseHasTheAskedStatistics) {
  for (const char* fmt : {"GRAY8", "NV12", "P010_10LE"}) {
    SCOPED_TRACE(fmt);
    const int w = 320, h = 240;
    const double sigma = 12.5;
    const GstVideoInfo info = video_info(fmt, w, h);
    GstHarness* hs = gst_harness_new_parse("cudaaddnoise sigma=12.5 seed=3");
    const std::string caps = caps_string(fmt, w, h);
    gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
    std::vector<std::vector<int>> first;
    for (int n = 0; n < 2; ++n) {
      GstBuffer* in = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
      {
        MappedView m(in, info, GST_MAP_WRITE);
        ASSERT_TRUE(m.ok());
        for (const cdn::PlaneView& p : cdn::components(m.view()))
          for (int y = 0; y < p.height; ++y)
            for (int x = 0; x < p.width; ++x) p.set(x, y, (p.max_value() + 1) / 2);
      }
      ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
      GstBuffer* out = gst_harness_pull(hs);
      ASSERT_NE(out, nullptr);
      {
        MappedView m(out, info, GST_MAP_READ);
        ASSERT_TRUE(m.ok());
        int c = 0;
        for (const cdn::PlaneView& p : cdn::components(m.view())) {
          const double mid = (p.max_value() + 1) / 2, s = std::ldexp(sigma, p.bit_depth - 8);
          const double want_sd = std::sqrt(s * s + 1.0 / 12);
          double sum = 0, sum2 = 0;
          long long same_as_frame0 = 0;
          std::vector<int> values;
          for (int y = 0; y < p.height; ++y)
            for (int x = 0; x < p.width; ++x) {
              const int v = p.get(x, y);
              values.push_back(v);
              sum += v - mid;
              sum2 += (v - mid) * (v - mid);
              if (n == 1) same_as_frame0 += v == first[c][values.size() - 1];
            }
          const double count = static_cast<double>(values.size());
          const double mean = sum / count, sd = std::sqrt(sum2 / count - mean * mean);
          EXPECT_LT(std::abs(mean), 5 * want_sd / std::sqrt(count)) << "frame " << n << " component " << c;
          EXPECT_LT(std::abs(sd - want_sd), 5 * want_sd / std::sqrt(2 * count)) << "frame " << n << " component " << c;
          // Independent noise agrees on a sample with probability about 1 / (2 sqrt(pi) s) (< 3 %).
          if (n == 1) {
            EXPECT_LT(same_as_frame0, count / 10) << "component " << c;
          }
          if (n == 0) first.push_back(std::move(values));
          ++c;
        }
      }
      gst_buffer_unref(out);
    }
    gst_harness_teardown(hs);
  }
}
