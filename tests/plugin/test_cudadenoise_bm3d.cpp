// test_cudadenoise_bm3d.cpp: the cudadenoise element in mode=bm3d on the CPU
// backend, through GstHarness: every system-memory format equals kernels/ for the
// same frame (given and estimated sigma), timestamps and frames out = frames in,
// and a slow frame (the CPU reference on a large picture takes seconds) is
// abandoned at once by a flush and by stopping the pipeline, after which the
// element keeps working.
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "plugin_test_support.h"

using namespace cdn_test;

namespace {

GstHarness* bm3d_harness(const std::string& format, int w, int h, const std::string& props) {
  GstHarness* hs = gst_harness_new_parse(("cudadenoise backend=cpu mode=bm3d " + props).c_str());
  const std::string caps = caps_string(format, w, h);
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  return hs;
}

cdn::DenoiseSettings bm3d_settings(double sigma) {
  cdn::DenoiseSettings s;
  s.mode = cdn::Mode::Bm3d;
  s.sigma = sigma;
  return s;
}

}  // namespace

TEST(CudaDenoiseBm3d, EverySystemFormatEqualsKernelsResult) {
  for (const char* format : {"NV12", "I420", "P010_10LE", "P016_LE", "Y444", "GRAY8", "GRAY16_LE"}) {
    const GstVideoInfo info = video_info(format, 37, 29);  // odd sizes
    GstHarness* hs = bm3d_harness(format, 37, 29, "sigma=18");
    expect_denoised(hs, info, make_frame(info, 5), bm3d_settings(18));
    gst_harness_teardown(hs);
  }
}

TEST(CudaDenoiseBm3d, SigmaAutoAndProfileProperties) {
  const GstVideoInfo info = video_info("I420", 48, 40);
  GstHarness* hs = bm3d_harness("I420", 48, 40, "bm3d-step=8 bm3d-window=19 bm3d-phases=1");
  cdn::DenoiseSettings s = bm3d_settings(0);
  s.bm3d.step = 8;
  s.bm3d.window = 19;
  s.bm3d.phases = 1;
  expect_denoised(hs, info, make_frame(info, 9), s);
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseBm3d, TimestampsAndFramesOutEqualFramesIn) {
  const GstVideoInfo info = video_info("NV12", 24, 16);
  GstHarness* hs = bm3d_harness("NV12", 24, 16, "sigma=10");
  for (int i = 0; i < 5; ++i) {
    GstBuffer* in = make_frame(info, i);
    GST_BUFFER_PTS(in) = i * 40 * GST_MSECOND + 3;
    GST_BUFFER_DURATION(in) = 40 * GST_MSECOND;
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  ASSERT_EQ(gst_harness_buffers_received(hs), 5u);
  for (int i = 0; i < 5; ++i) {
    GstBuffer* out = gst_harness_pull(hs);
    EXPECT_EQ(GST_BUFFER_PTS(out), i * 40 * GST_MSECOND + 3);
    EXPECT_EQ(GST_BUFFER_DURATION(out), 40 * GST_MSECOND);
    gst_buffer_unref(out);
  }
  gst_harness_teardown(hs);
}

// A frame the CPU backend needs many seconds for: 1920x1080, both phases.
constexpr int kSlowW = 1920, kSlowH = 1080;

TEST(CudaDenoiseBm3d, FlushAbandonsASlowFrameAtOnce) {
  const GstVideoInfo big = video_info("GRAY8", kSlowW, kSlowH);
  GstHarness* hs = bm3d_harness("GRAY8", kSlowW, kSlowH, "sigma=20");
  GstBuffer* frame = make_frame(big, 1);
  auto pushed = std::async(std::launch::async, [&] { return gst_harness_push(hs, frame); });
  // Let the streaming thread get well into the frame.
  ASSERT_EQ(pushed.wait_for(std::chrono::milliseconds(700)), std::future_status::timeout)
      << "the frame finished too fast to test cancellation";
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  const GstFlowReturn ret = pushed.get();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(ret, GST_FLOW_FLUSHING);
  EXPECT_LT(ms, 1500 * kSanitizerSlowdown) << "the frame in progress must be abandoned promptly";
  EXPECT_EQ(gst_harness_buffers_received(hs), 0u);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  gst_harness_teardown(hs);

  // A new stream after the flush works.
  const GstVideoInfo small = video_info("GRAY8", 40, 32);
  hs = bm3d_harness("GRAY8", 40, 32, "sigma=20");
  expect_denoised(hs, small, make_frame(small, 2), bm3d_settings(20));
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseBm3d, StoppingDoesNotWaitForASlowFrame) {
  GstElement* pipeline = gst_parse_launch(
      ("appsrc name=src format=time caps=" + caps_string("GRAY8", kSlowW, kSlowH) +
       " ! cudadenoise backend=cpu mode=bm3d sigma=20 ! fakesink name=sink signal-handoffs=true")
          .c_str(),
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  std::atomic<int> frames_out{0};
  g_signal_connect(sink, "handoff", G_CALLBACK(+[](GstElement*, GstBuffer*, GstPad*, gpointer n) {
                     ++*static_cast<std::atomic<int>*>(n);
                   }),
                   &frames_out);
  ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);
  gst_app_src_push_buffer(GST_APP_SRC(src), make_frame(video_info("GRAY8", kSlowW, kSlowH), 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  // The frame is in progress: the streaming thread took it from appsrc and
  // nothing has come out yet.
  guint64 queued = 1;
  g_object_get(src, "current-level-buffers", &queued, nullptr);
  ASSERT_EQ(queued, 0u) << "the frame never reached the denoiser";
  ASSERT_EQ(frames_out.load(), 0) << "the frame finished too fast to test stopping";
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 1500 * kSanitizerSlowdown) << "stopping waited for the frame in progress";
  EXPECT_EQ(frames_out.load(), 0) << "the frame was finished, not abandoned";
  gst_object_unref(sink);
  gst_object_unref(src);
  gst_object_unref(pipeline);
}
