// pipeline_watch.h: pipelines run side by side in one test process and watched
// from the test's thread (the isolation tests, test_isolation.cpp and
// test_gpu_isolation.cpp): each one's frames at its sink, its errors and
// warnings, whether it reached EOS.
#pragma once

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

namespace cdn_test {

struct Pipeline {
  std::string name;
  GstElement* pipeline = nullptr;
  std::atomic<int> frames{0};  // buffers that reached the sink
  std::atomic<long long> last_frame_ns{0};  // steady clock, when the last one did
  std::vector<std::string> errors, warnings;
  bool eos = false;
  bool stopped = false;  // set to NULL by the test
  bool start_failed = false;  // the state change to PLAYING failed at once
};

// The steady clock, in nanoseconds (Pipeline::last_frame_ns's clock).
inline long long steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline GstPadProbeReturn count_buffer(GstPad*, GstPadProbeInfo*, gpointer data) {
  auto* p = static_cast<Pipeline*>(data);
  p->last_frame_ns = steady_now_ns();
  p->frames++;
  return GST_PAD_PROBE_OK;
}

// Parses `description` (its sink named "sink"), counts what reaches the sink, plays it;
// `context` (e.g. a shared CUDA context), when given, is set on it first. A state change
// that fails at once ends the pipeline (start_failed): elements may fail it without
// posting an error (nvcodec's when no CUDA context can be made), and it would never end.
inline void start(Pipeline& p, const std::string& description, GstContext* context = nullptr) {
  GError* err = nullptr;
  p.pipeline = gst_parse_launch(description.c_str(), &err);
  ASSERT_EQ(err, nullptr) << description << ": " << err->message;
  GstElement* sink = gst_bin_get_by_name(GST_BIN(p.pipeline), "sink");
  ASSERT_NE(sink, nullptr);
  GstPad* pad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, &p, nullptr);
  gst_object_unref(pad);
  gst_object_unref(sink);
  if (context) gst_element_set_context(p.pipeline, context);
  if (gst_element_set_state(p.pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    p.start_failed = true;
}

// "element: message (debug)" of an error or warning message.
inline std::string text_of(GstMessage* m) {
  GError* err = nullptr;
  gchar* debug = nullptr;
  if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR)
    gst_message_parse_error(m, &err, &debug);
  else
    gst_message_parse_warning(m, &err, &debug);
  std::string s = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))) + ": " + (err ? err->message : "") + " (" +
                  (debug ? debug : "") + ")";
  if (err) g_error_free(err);
  g_free(debug);
  return s;
}

// Takes what the pipeline's bus holds; true once it is over (EOS, an error, stopped, or
// failed to start).
inline bool poll(Pipeline& p) {
  if (p.stopped) return true;
  GstBus* bus = gst_element_get_bus(p.pipeline);
  while (GstMessage* m = gst_bus_pop(bus)) {
    switch (GST_MESSAGE_TYPE(m)) {
      case GST_MESSAGE_EOS: p.eos = true; break;
      case GST_MESSAGE_ERROR: p.errors.push_back(text_of(m)); break;
      case GST_MESSAGE_WARNING: p.warnings.push_back(text_of(m)); break;
      default: break;
    }
    gst_message_unref(m);
  }
  gst_object_unref(bus);
  return p.eos || !p.errors.empty() || p.start_failed;
}

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

// A healthy pipeline: at EOS with no error or warning, every one of `frames` at its sink.
inline void expect_healthy(const Pipeline& q, int frames) {
  SCOPED_TRACE(q.name);
  EXPECT_TRUE(q.eos);
  EXPECT_TRUE(q.errors.empty()) << joined(q.errors);
  EXPECT_TRUE(q.warnings.empty()) << joined(q.warnings);
  EXPECT_EQ(q.frames, frames) << "every frame to the sink";
}

// Sets the pipeline to NULL and drops it.
inline void stop_and_free(Pipeline& p) {
  if (!p.pipeline) return;
  gst_element_set_state(p.pipeline, GST_STATE_NULL);
  gst_object_unref(p.pipeline);
  p.pipeline = nullptr;
}

}  // namespace cdn_test
