// test_cudadenoise_nlm3d.cpp: the temporal mode (mode=nlm3d) of cudadenoise on
// the CPU backend, through GstHarness: the LATENCY query, frames out == frames
// in on EOS, output equal to a cdn::StreamDenoiser CPU run, flush, DISCONT,
// caps changes, timestamps, latency messages, settings applied at the next
// stream start, QoS and mode switches.
//
// Small frames and radii keep it quick: the papers' cubes (their latency counts
// the cube's frames), 32x24, search-radius 2, temporal-radius 2, patch-radius 1
// (reach 3), chunk-size 4, sigma 10: a latency of 4 - 1 + 3 = 6 frames.
#include <gst/check/gstharness.h>

#include <string>
#include <vector>

#include "plugin_test_support.h"

using namespace cdn_test;

namespace {

constexpr int kW = 32, kH = 24;
constexpr int kLatencyFrames = 4 - 1 + 3;  // chunk-size - 1 + temporal-radius + patch-radius
// The cube first, in an order where it conflicts with the defaults until the
// options after it are set: the element judges the properties as a whole.
const char* const kNlmProps[] = {"mode=nlm3d",      "patch-shape=cube",    "motion-search=off",
                                 "neighbour-search-radius=-1", "frame-confidence=0", "patch-radius=1",
                                 "distance-offset=off", "nlm-beta=0.4",    "search-radius=2",
                                 "temporal-radius=2", "chunk-size=4",      "sigma=10",
                                 "self-weight-floor=0"};
const GstClockTime kFrame = gst_util_uint64_scale(1, GST_SECOND, 30);

cdn::DenoiseSettings nlm_settings() {
  cdn::DenoiseSettings s = element_defaults();
  s.mode = cdn::Mode::Nlm3d;
  s.nlm = cdn::nlm_paper_params();
  s.nlm.search_radius = 2;
  s.nlm.temporal_radius = 2;
  s.nlm.chunk_size = 4;
  s.sigma = 10;
  return s;
}

// A harness around a cudadenoise (backend=cpu, the small nlm3d settings, then
// `extra` "name=value" words); hs->element is the cudadenoise itself.
GstHarness* nlm_harness(const std::string& format, int w, int h, std::vector<std::string> extra = {}) {
  GstElement* e = gst_element_factory_make("cudadenoise", "dn");
  EXPECT_NE(e, nullptr);
  gst_util_set_object_arg(G_OBJECT(e), "backend", "cpu");
  std::vector<std::string> props(std::begin(kNlmProps), std::end(kNlmProps));
  props.insert(props.end(), extra.begin(), extra.end());
  for (const std::string& p : props) {
    const auto eq = p.find('=');
    gst_util_set_object_arg(G_OBJECT(e), p.substr(0, eq).c_str(), p.substr(eq + 1).c_str());
  }
  GstHarness* hs = gst_harness_new_with_element(e, "sink", "src");
  gst_object_unref(e);
  const std::string caps = caps_string(format, w, h);
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  return hs;
}

// A noisy frame with timestamps: frame i of a 30 fps stream.
GstBuffer* timed_frame(const GstVideoInfo& info, int i, std::uint64_t seed_base = 0) {
  GstBuffer* b = make_frame(info, seed_base + i);
  GST_BUFFER_PTS(b) = i * kFrame;
  GST_BUFFER_DTS(b) = i * kFrame;
  GST_BUFFER_DURATION(b) = kFrame;
  GST_BUFFER_OFFSET(b) = i;
  GST_BUFFER_OFFSET_END(b) = i + 1;
  return b;
}

// Host copies of the input frames, for the reference run.
struct Inputs {
  std::vector<std::unique_ptr<HostFrame>> frames;
  void add(GstBuffer* b, const GstVideoInfo& info) {
    MappedView m(b, info, GST_MAP_READ);
    EXPECT_TRUE(m.ok());
    const cdn::FrameView& v = m.view();
    auto copy = std::make_unique<HostFrame>(v.format, v.width, v.height);
    for (int p = 0; p < cdn::format_info(v.format).planes; ++p)
      for (int y = 0; y < cdn::plane_height(v.format, v.height, p); ++y)
        std::copy_n(static_cast<const std::uint8_t*>(v.data[p]) + y * v.pitch[p],
                    cdn::plane_row_bytes(v.format, v.width, p),
                    static_cast<std::uint8_t*>(copy->view.data[p]) + y * copy->view.pitch[p]);
    frames.push_back(std::move(copy));
  }
  std::vector<std::unique_ptr<HostFrame>> reference(const cdn::DenoiseSettings& s, std::size_t from = 0,
                                                    std::size_t to = SIZE_MAX) const {
    std::vector<cdn::FrameView> views;
    for (std::size_t i = from; i < frames.size() && i < to; ++i) views.push_back(frames[i]->view);
    return stream_reference(views, s);
  }
};

// Every buffer the harness received so far, in order.
std::vector<GstBuffer*> pull_all(GstHarness* hs) {
  std::vector<GstBuffer*> out;
  while (GstBuffer* b = gst_harness_try_pull(hs)) out.push_back(b);
  return out;
}

// Timed frames first .. first + n - 1 (noise seeds from `seed_base`) pushed and
// kept in `inputs`, then EOS; `outs`: every frame the harness received.
void push_then_eos(GstHarness* hs, const GstVideoInfo& info, int first, int n, std::uint64_t seed_base,
                   Inputs& inputs, std::vector<GstBuffer*>& outs) {
  for (int i = first; i < first + n; ++i) {
    GstBuffer* b = timed_frame(info, i, seed_base);
    inputs.add(b, info);
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK) << "frame " << i;
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  outs = pull_all(hs);
}

void unref_all(std::vector<GstBuffer*>& v) {
  for (GstBuffer* b : v) gst_buffer_unref(b);
  v.clear();
}

// Checks that the output frames equal the reference frames, sample for sample.
void expect_equal_frames(const std::vector<GstBuffer*>& outs, const GstVideoInfo& info,
                         const std::vector<std::unique_ptr<HostFrame>>& ref, const std::string& what) {
  ASSERT_EQ(outs.size(), ref.size()) << what;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    MappedView m(outs[i], info, GST_MAP_READ);
    ASSERT_TRUE(m.ok());
    const Diff d = compare(ref[i]->view, m.view());
    EXPECT_EQ(d.count, 0) << what << " frame " << i << ": max |diff| " << d.max_abs;
  }
}

// What left the element's src pad, in order: "B<pts in frames>" for buffers, the
// event name for events.
struct Recorder {
  std::vector<std::string> log;
  gulong id = 0;
  GstPad* pad = nullptr;
  explicit Recorder(GstElement* e) {
    pad = gst_element_get_static_pad(e, "src");
    id = gst_pad_add_probe(pad, (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                           on_data, this, nullptr);
  }
  ~Recorder() {
    gst_pad_remove_probe(pad, id);
    gst_object_unref(pad);
  }
  static GstPadProbeReturn on_data(GstPad*, GstPadProbeInfo* info, gpointer data) {
    auto* r = static_cast<Recorder*>(data);
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
      GstBuffer* b = GST_PAD_PROBE_INFO_BUFFER(info);
      r->log.push_back("B" + std::to_string(GST_BUFFER_PTS(b) / kFrame));
    } else {
      r->log.push_back(GST_EVENT_TYPE_NAME(GST_PAD_PROBE_INFO_EVENT(info)));
    }
    return GST_PAD_PROBE_OK;
  }
  // Index of the first entry equal to `what` at or after `from`, or -1.
  int find(const std::string& what, int from = 0) const {
    for (int i = from; i < (int)log.size(); ++i)
      if (log[i] == what) return i;
    return -1;
  }
  std::string text() const {
    std::string t;
    for (const auto& s : log) t += s + " ";
    return t;
  }
};

bool new_segment(GstHarness* hs) {
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  return gst_harness_push_event(hs, gst_event_new_segment(&seg));
}

int latency_messages(GstBus* bus) {
  int n = 0;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_LATENCY)) {
    ++n;
    gst_message_unref(m);
  }
  return n;
}

}  // namespace

TEST(Nlm3dElement, LatencyQueryAddsTheWindow) {
  GstHarness* hs = nlm_harness("I420", kW, kH);
  gst_harness_set_upstream_latency(hs, 7 * GST_MSECOND);
  // upstream + (chunk-size - 1 + temporal-radius + patch-radius) x frame duration (30 fps)
  EXPECT_EQ(gst_harness_query_latency(hs), 7 * GST_MSECOND + gst_util_uint64_scale(kLatencyFrames, GST_SECOND, 30));
  gst_harness_teardown(hs);

  hs = nlm_harness("I420", kW, kH, {"chunk-size=10", "temporal-radius=3", "patch-radius=0"});
  const std::string caps = "video/x-raw,format=I420,width=32,height=24,framerate=25/1";
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  gst_harness_set_upstream_latency(hs, 0);
  EXPECT_EQ(gst_harness_query_latency(hs), (10 - 1 + 3) * GST_SECOND / 25);
  gst_harness_teardown(hs);

  // The per-frame modes add nothing.
  hs = nlm_harness("I420", kW, kH, {"mode=hybrid"});
  gst_harness_set_upstream_latency(hs, 7 * GST_MSECOND);
  EXPECT_EQ(gst_harness_query_latency(hs), 7 * GST_MSECOND);
  gst_harness_teardown(hs);
}

// window=auto follows the upstream's liveness (its LATENCY answer): asked when
// the caps come, since the element builds its stream then, and asked again by
// every LATENCY query through it. 2D patches, so that NLM-3D has a causal window.
TEST(Nlm3dElement, WindowAutoFollowsTheUpstreamsLivenessFromTheCapsOn) {
  const GstVideoInfo info = video_info("I420", kW, kH);
  cdn::DenoiseSettings s = small_nlm3d_settings();
  enum class Told { NonLiveBeforeCaps, Live, NonLiveAfterCapsThenQueried };
  for (Told told : {Told::NonLiveBeforeCaps, Told::Live, Told::NonLiveAfterCapsThenQueried}) {
    SCOPED_TRACE(static_cast<int>(told));
    GstHarness* hs = gst_harness_new_parse((std::string("cudadenoise backend=cpu ") + kSmallNlm3dProps).c_str());
    gst_harness_set_live(hs, told == Told::Live || told == Told::NonLiveAfterCapsThenQueried);
    const std::string caps = caps_string("I420", kW, kH);
    gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
    if (told == Told::NonLiveAfterCapsThenQueried) {
      gst_harness_set_live(hs, FALSE);
      gst_harness_query_latency(hs);  // a LATENCY query through the element says it
    }
    Inputs inputs;
    std::vector<GstBuffer*> outs;
    ASSERT_NO_FATAL_FAILURE(push_then_eos(hs, info, 0, 9, 70, inputs, outs));
    s.window = told == Told::Live ? cdn::TemporalWindow::Causal : cdn::TemporalWindow::Centred;
    expect_equal_frames(outs, info, inputs.reference(s), told == Told::Live ? "causal" : "centred");
    if (told == Told::Live) {  // the two windows differ on these frames: the test can tell them apart
      s.window = cdn::TemporalWindow::Centred;
      const auto centred = inputs.reference(s);
      MappedView m(outs[4], info, GST_MAP_READ);  // a middle frame: the centred window reads later frames
      ASSERT_TRUE(m.ok());
      EXPECT_GT(compare(centred[4]->view, m.view()).count, 0);
    }
    unref_all(outs);
    gst_harness_teardown(hs);
  }
}

TEST(Nlm3dElement, LatencyWithoutFramerateUsesBufferDurations) {
  GstHarness* hs = nlm_harness("GRAY8", kW, kH);
  const std::string caps = "video/x-raw,format=GRAY8,width=32,height=24,framerate=0/1";
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  gst_harness_set_upstream_latency(hs, 0);
  // Nothing to put a time on yet: no latency of our own.
  EXPECT_EQ(gst_harness_query_latency(hs), 0u);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  const GstVideoInfo info = video_info("GRAY8", kW, kH);
  GstBuffer* b = timed_frame(info, 0);
  GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
  ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
  EXPECT_EQ(latency_messages(bus), 1) << "a buffer duration gives the latency a time";
  EXPECT_EQ(gst_harness_query_latency(hs), kLatencyFrames * 40 * GST_MSECOND);
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}

class EosDrains : public ::testing::TestWithParam<int> {};

TEST_P(EosDrains, EveryFrameOutInOrderEqualToStreamDenoiser) {
  const int n = GetParam();
  const GstVideoInfo info = video_info("I420", kW, kH);
  GstHarness* hs = nlm_harness("I420", kW, kH);
  Recorder rec(hs->element);
  Inputs inputs;
  for (int i = 0; i < n; ++i) {
    GstBuffer* b = timed_frame(info, i);
    inputs.add(b, info);
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    // Frames come out as soon as the window allows: never more than the latency behind.
    const int out = (int)gst_harness_buffers_received(hs);
    EXPECT_LE(out, i + 1);
    EXPECT_GE(out, i + 1 - kLatencyFrames) << "after " << i + 1 << " frames";
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  EXPECT_EQ((int)gst_harness_buffers_received(hs), n) << "frames out must equal frames in";
  std::vector<GstBuffer*> outs = pull_all(hs);
  ASSERT_EQ((int)outs.size(), n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(GST_BUFFER_PTS(outs[i]), i * kFrame) << "frame " << i;
  expect_equal_frames(outs, info, inputs.reference(nlm_settings()), "I420 " + std::to_string(n) + " frames");
  // Every frame left before the EOS did.
  const int eos = rec.find("eos");
  ASSERT_GE(eos, 0) << rec.text();
  EXPECT_EQ(rec.find("B" + std::to_string(n - 1)), eos - 1) << rec.text();
  unref_all(outs);
  gst_harness_teardown(hs);
}

INSTANTIATE_TEST_SUITE_P(Frames, EosDrains, ::testing::Values(1, 3, 10, 23));

class Nlm3dFormats : public ::testing::TestWithParam<const char*> {};

TEST_P(Nlm3dFormats, EqualsStreamDenoiser) {
  const std::string fmt = GetParam();
  for (bool luma_only : {false, true}) {
    SCOPED_TRACE(fmt + (luma_only ? " planes=luma" : " planes=all"));
    const GstVideoInfo info = video_info(fmt, 33, 17);
    GstHarness* hs = nlm_harness(fmt, 33, 17, {luma_only ? "planes=luma" : "planes=all"});
    Inputs inputs;
    for (int i = 0; i < 7; ++i) {
      GstBuffer* b = make_frame(info, 40 + i, /*padded=*/i % 2 == 1);
      inputs.add(b, info);
      ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    }
    ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
    std::vector<GstBuffer*> outs = pull_all(hs);
    cdn::DenoiseSettings s = nlm_settings();
    s.planes = luma_only ? cdn::PlaneSelection::Luma : cdn::PlaneSelection::All;
    expect_equal_frames(outs, info, inputs.reference(s), fmt);
    unref_all(outs);
    gst_harness_teardown(hs);
  }
}

INSTANTIATE_TEST_SUITE_P(SystemMemory, Nlm3dFormats,
                         ::testing::Values("NV12", "I420", "P010_10LE", "P016_LE", "Y444", "GRAY8", "GRAY16_LE"));

TEST(Nlm3dElement, SigmaAutoEqualsStreamDenoiser) {
  const GstVideoInfo info = video_info("NV12", kW, kH);
  GstHarness* hs = nlm_harness("NV12", kW, kH, {"sigma=0"});
  Inputs inputs;
  std::vector<GstBuffer*> outs;
  ASSERT_NO_FATAL_FAILURE(push_then_eos(hs, info, 0, 5, 200, inputs, outs));
  cdn::DenoiseSettings s = nlm_settings();
  s.sigma = 0;
  expect_equal_frames(outs, info, inputs.reference(s), "sigma auto");
  unref_all(outs);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, TimestampsDurationsOffsetsFlagsPreservedInOrder) {
  const GstVideoInfo info = video_info("I420", kW, kH);
  GstHarness* hs = nlm_harness("I420", kW, kH);
  const int n = 11;
  std::vector<guint> flags(n);
  for (int i = 0; i < n; ++i) {
    GstBuffer* in = make_frame(info, i);
    GST_BUFFER_PTS(in) = i * 40 * GST_MSECOND + 7;
    GST_BUFFER_DTS(in) = i * 40 * GST_MSECOND;
    GST_BUFFER_DURATION(in) = (40 + i) * GST_MSECOND;
    GST_BUFFER_OFFSET(in) = 100 + i;
    GST_BUFFER_OFFSET_END(in) = 101 + i;
    flags[i] = (i % 2 ? GST_BUFFER_FLAG_DELTA_UNIT : 0) | (i == 3 ? GST_BUFFER_FLAG_MARKER : 0) |
               (i == 5 ? GST_BUFFER_FLAG_HEADER : 0);
    GST_BUFFER_FLAG_SET(in, flags[i]);
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  std::vector<GstBuffer*> outs = pull_all(hs);
  ASSERT_EQ((int)outs.size(), n);
  for (int i = 0; i < n; ++i) {
    GstBuffer* out = outs[i];
    EXPECT_EQ(GST_BUFFER_PTS(out), i * 40 * GST_MSECOND + 7) << "frame " << i;
    EXPECT_EQ(GST_BUFFER_DTS(out), i * 40 * GST_MSECOND) << "frame " << i;
    EXPECT_EQ(GST_BUFFER_DURATION(out), (40 + i) * GST_MSECOND) << "frame " << i;
    EXPECT_EQ(GST_BUFFER_OFFSET(out), 100u + i) << "frame " << i;
    EXPECT_EQ(GST_BUFFER_OFFSET_END(out), 101u + i) << "frame " << i;
    EXPECT_EQ(GST_BUFFER_FLAGS(out) & flags[i], flags[i]) << "frame " << i;
    const guint others = (GST_BUFFER_FLAG_DELTA_UNIT | GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_HEADER) & ~flags[i];
    EXPECT_EQ(GST_BUFFER_FLAGS(out) & others, 0u) << "frame " << i << " carries another frame's flags";
    if (i > 0) {
      EXPECT_FALSE(GST_BUFFER_FLAG_IS_SET(out, GST_BUFFER_FLAG_DISCONT)) << "frame " << i;
    }
  }
  unref_all(outs);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, FlushDropsHeldFramesAndANewStreamWorks) {
  const GstVideoInfo info = video_info("NV12", kW, kH);
  GstHarness* hs = nlm_harness("NV12", kW, kH);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(gst_harness_push(hs, timed_frame(info, i)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_buffers_received(hs), 0u) << "5 frames are inside the 6-frame latency";
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  ASSERT_TRUE(new_segment(hs));
  Inputs inputs;
  std::vector<GstBuffer*> outs;
  ASSERT_NO_FATAL_FAILURE(push_then_eos(hs, info, 100, 3, 50, inputs, outs));
  ASSERT_EQ(outs.size(), 3u) << "the flushed frames must not come out";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(GST_BUFFER_PTS(outs[i]), (100 + i) * kFrame);
  // The new stream does not see the flushed frames.
  expect_equal_frames(outs, info, inputs.reference(nlm_settings()), "after flush");
  unref_all(outs);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, DiscontEndsTheStream) {
  const GstVideoInfo info = video_info("I420", kW, kH);
  GstHarness* hs = nlm_harness("I420", kW, kH);
  Inputs inputs;
  for (int i = 0; i < 9; ++i) {
    GstBuffer* b = timed_frame(info, i);
    if (i == 5) GST_BUFFER_FLAG_SET(b, GST_BUFFER_FLAG_DISCONT);
    inputs.add(b, info);
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    if (i == 5) {
      EXPECT_EQ(gst_harness_buffers_received(hs), 5u) << "the DISCONT drains the 5 frames before it";
    }
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  std::vector<GstBuffer*> outs = pull_all(hs);
  ASSERT_EQ(outs.size(), 9u);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(GST_BUFFER_PTS(outs[i]), i * kFrame);
  EXPECT_TRUE(GST_BUFFER_FLAG_IS_SET(outs[5], GST_BUFFER_FLAG_DISCONT));
  for (int i : {1, 2, 3, 4, 6, 7, 8}) EXPECT_FALSE(GST_BUFFER_FLAG_IS_SET(outs[i], GST_BUFFER_FLAG_DISCONT)) << i;
  // Two streams: frames 0-4 and 5-8, each filtered on its own.
  std::vector<GstBuffer*> first(outs.begin(), outs.begin() + 5), second(outs.begin() + 5, outs.end());
  expect_equal_frames(first, info, inputs.reference(nlm_settings(), 0, 5), "before DISCONT");
  expect_equal_frames(second, info, inputs.reference(nlm_settings(), 5), "after DISCONT");
  unref_all(outs);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, CapsChangeDrainsOldFramesFirst) {
  const GstVideoInfo a = video_info("I420", kW, kH), b = video_info("I420", 40, 30);
  GstHarness* hs = nlm_harness("I420", kW, kH);
  Recorder rec(hs->element);
  Inputs in_a, in_b;
  for (int i = 0; i < 5; ++i) {
    GstBuffer* f = timed_frame(a, i);
    in_a.add(f, a);
    ASSERT_EQ(gst_harness_push(hs, f), GST_FLOW_OK);
  }
  EXPECT_EQ(gst_harness_buffers_received(hs), 0u);
  const std::string caps_b = caps_string("I420", 40, 30);
  gst_harness_set_caps_str(hs, caps_b.c_str(), caps_b.c_str());
  EXPECT_EQ(gst_harness_buffers_received(hs), 5u) << "the old frames are drained by the caps change";
  // ... before the new caps went downstream (the recorder came after the first caps).
  const int new_caps = rec.find("caps");
  ASSERT_GE(new_caps, 0) << rec.text();
  EXPECT_EQ(rec.find("B4"), new_caps - 1) << rec.text();
  for (int i = 0; i < 3; ++i) {
    GstBuffer* f = timed_frame(b, 10 + i, 90);
    in_b.add(f, b);
    ASSERT_EQ(gst_harness_push(hs, f), GST_FLOW_OK);
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  std::vector<GstBuffer*> outs = pull_all(hs);
  ASSERT_EQ(outs.size(), 8u);
  std::vector<GstBuffer*> old_size(outs.begin(), outs.begin() + 5), new_size(outs.begin() + 5, outs.end());
  for (GstBuffer* o : old_size) EXPECT_GE(gst_buffer_get_size(o), GST_VIDEO_INFO_SIZE(&a));
  expect_equal_frames(old_size, a, in_a.reference(nlm_settings()), "old caps");
  expect_equal_frames(new_size, b, in_b.reference(nlm_settings()), "new caps");
  unref_all(outs);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, SegmentAndStreamStartDrain) {
  const GstVideoInfo info = video_info("GRAY8", kW, kH);
  GstHarness* hs = nlm_harness("GRAY8", kW, kH);
  Recorder rec(hs->element);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(gst_harness_push(hs, timed_frame(info, i)), GST_FLOW_OK);
  ASSERT_TRUE(new_segment(hs));
  EXPECT_EQ(gst_harness_buffers_received(hs), 3u);
  const int seg = rec.find("segment", rec.find("B2"));
  EXPECT_GT(seg, rec.find("B2")) << "the frames go out before the new segment: " << rec.text();
  for (int i = 3; i < 5; ++i) ASSERT_EQ(gst_harness_push(hs, timed_frame(info, i)), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_stream_start("second")));
  EXPECT_EQ(gst_harness_buffers_received(hs), 5u);
  EXPECT_GT(rec.find("stream-start", rec.find("B4")), rec.find("B4")) << rec.text();
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, SettingsChangeAppliesAtTheNextStreamStartAndPostsLatency) {
  const GstVideoInfo info = video_info("I420", kW, kH);
  GstHarness* hs = nlm_harness("I420", kW, kH);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  gst_harness_set_upstream_latency(hs, 0);
  ASSERT_EQ(gst_harness_query_latency(hs), gst_util_uint64_scale(kLatencyFrames, GST_SECOND, 30));
  latency_messages(bus);

  Inputs first;
  for (int i = 0; i < 8; ++i) {
    GstBuffer* b = timed_frame(info, i);
    first.add(b, info);
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    if (i == 3) {
      // While playing: a longer window raises the latency at once (reported
      // ahead of the stream start where it applies), with a latency message.
      g_object_set(hs->element, "temporal-radius", 3, nullptr);
      EXPECT_EQ(latency_messages(bus), 1) << "temporal-radius 2 -> 3 changes the latency";
      EXPECT_EQ(gst_harness_query_latency(hs), gst_util_uint64_scale(kLatencyFrames + 1, GST_SECOND, 30));
      g_object_set(hs->element, "nlm-beta", 0.8, nullptr);
      EXPECT_EQ(latency_messages(bus), 0) << "nlm-beta does not change the latency";
    }
  }
  // The running stream keeps the settings it started with.
  ASSERT_TRUE(new_segment(hs));
  std::vector<GstBuffer*> outs = pull_all(hs);
  expect_equal_frames(outs, info, first.reference(nlm_settings()), "stream started before the change");
  unref_all(outs);

  // The next stream uses the new ones.
  // 7 frames were reported for temporal-radius 3; the window is empty now, so
  // temporal-radius 1 gives the next stream's 5 at once.
  g_object_set(hs->element, "temporal-radius", 1, nullptr);
  EXPECT_EQ(latency_messages(bus), 1);
  EXPECT_EQ(gst_harness_query_latency(hs), gst_util_uint64_scale(kLatencyFrames - 1, GST_SECOND, 30));
  cdn::DenoiseSettings s = nlm_settings();
  s.nlm.temporal_radius = 1;
  s.nlm.beta = 0.8;
  Inputs second;
  for (int i = 0; i < 6; ++i) {
    GstBuffer* b = timed_frame(info, 20 + i, 60);
    second.add(b, info);
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    if (i == 0) {
      EXPECT_EQ(latency_messages(bus), 0) << "the stream restarted with the window already reported";
      EXPECT_EQ(gst_harness_query_latency(hs), gst_util_uint64_scale(4 - 1 + 2, GST_SECOND, 30));
    }
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  outs = pull_all(hs);
  expect_equal_frames(outs, info, second.reference(s), "stream started after the change");
  unref_all(outs);
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, QosIsOffInTheTemporalMode) {
  const GstVideoInfo info = video_info("GRAY8", kW, kH);
  GstHarness* hs = nlm_harness("GRAY8", kW, kH, {"qos=true"});
  ASSERT_EQ(gst_harness_push(hs, timed_frame(info, 0)), GST_FLOW_OK);
  gboolean qos = TRUE;
  g_object_get(hs->element, "qos", &qos, nullptr);
  EXPECT_FALSE(qos) << "QoS would drop frames of the window";
  // Back to a per-frame mode at the next stream start: QoS as it was.
  gst_util_set_object_arg(G_OBJECT(hs->element), "mode", "pipd");
  ASSERT_TRUE(new_segment(hs));
  ASSERT_EQ(gst_harness_push(hs, timed_frame(info, 1)), GST_FLOW_OK);
  g_object_get(hs->element, "qos", &qos, nullptr);
  EXPECT_TRUE(qos);
  EXPECT_EQ(gst_harness_buffers_received(hs), 2u);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, ModeSwitchesWhilePlaying) {
  const GstVideoInfo info = video_info("NV12", kW, kH);
  GstHarness* hs = nlm_harness("NV12", kW, kH, {"mode=hybrid"});
  cdn::DenoiseSettings hybrid;
  hybrid.mode = cdn::Mode::Hybrid;
  // Per-frame: out at once, equal to the library's.
  for (int i = 0; i < 2; ++i) {
    GstBuffer* b = timed_frame(info, i);
    std::unique_ptr<HostFrame> ref;
    {
      MappedView m(b, info, GST_MAP_READ);
      ref = cpu_reference(m.view(), hybrid);
    }
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    GstBuffer* out = gst_harness_try_pull(hs);
    ASSERT_NE(out, nullptr);
    MappedView m(out, info, GST_MAP_READ);
    EXPECT_EQ(compare(ref->view, m.view()).count, 0);
    gst_buffer_unref(out);
  }
  // Into nlm3d from the next frame (nothing is held in a per-frame mode).
  gst_util_set_object_arg(G_OBJECT(hs->element), "mode", "nlm3d");
  Inputs inputs;
  for (int i = 2; i < 6; ++i) {
    GstBuffer* b = timed_frame(info, i);
    inputs.add(b, info);
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
  }
  EXPECT_EQ(gst_harness_buffers_received(hs), 2u) << "nlm3d holds its window";
  // Out of nlm3d at the next stream start: the window drains with nlm3d first.
  gst_util_set_object_arg(G_OBJECT(hs->element), "mode", "pipd");
  ASSERT_EQ(gst_harness_push(hs, timed_frame(info, 6)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_buffers_received(hs), 2u) << "still the nlm3d stream";
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  EXPECT_EQ(gst_harness_buffers_received(hs), 7u);
  std::vector<GstBuffer*> outs = pull_all(hs);
  ASSERT_EQ(outs.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(GST_BUFFER_PTS(outs[i]), (2 + i) * kFrame);
  unref_all(outs);
  gst_harness_teardown(hs);
}

TEST(Nlm3dElement, ManyFramesHoldABoundedWindow) {
  const GstVideoInfo info = video_info("I420", kW, kH);
  GstHarness* hs = nlm_harness("I420", kW, kH);
  GstBuffer* frame = make_frame(info, 3);
  const int n = 60;
  for (int i = 0; i < n; ++i) {
    GstBuffer* b = gst_buffer_copy_deep(frame);
    GST_BUFFER_PTS(b) = i * kFrame;
    ASSERT_EQ(gst_harness_push(hs, b), GST_FLOW_OK);
    const int held = i + 1 - (int)gst_harness_buffers_received(hs);
    EXPECT_LE(held, kLatencyFrames) << "after " << i + 1 << " frames";
    while (GstBuffer* out = gst_harness_try_pull(hs)) gst_buffer_unref(out);
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  EXPECT_EQ((int)gst_harness_buffers_received(hs), n);
  gst_buffer_unref(frame);
  gst_harness_teardown(hs);
}

namespace {
// Refuses the first buffer that reaches the element's src pad with NOT_LINKED.
GstPadProbeReturn refuse_first(GstPad*, GstPadProbeInfo* info, gpointer data) {
  int* seen = static_cast<int*>(data);
  if ((*seen)++ > 0) return GST_PAD_PROBE_OK;
  gst_buffer_unref(GST_PAD_PROBE_INFO_BUFFER(info));
  GST_PAD_PROBE_INFO_FLOW_RETURN(info) = GST_FLOW_NOT_LINKED;
  return GST_PAD_PROBE_HANDLED;
}
}  // namespace

TEST(Nlm3dElement, FramesReadyWhenDownstreamRefusedOneStillGoOut) {
  const GstVideoInfo info = video_info("GRAY8", kW, kH);
  GstHarness* hs = nlm_harness("GRAY8", kW, kH);
  GstPad* src = gst_element_get_static_pad(hs->element, "src");
  int seen = 0;
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, refuse_first, &seen, nullptr);
  Recorder rec(hs->element);
  // The 7th frame makes a chunk of 4 ready; the first is refused and the base
  // stops asking for more.
  for (int i = 0; i < 7; ++i)
    ASSERT_EQ(gst_harness_push(hs, timed_frame(info, i)), i < 6 ? GST_FLOW_OK : GST_FLOW_NOT_LINKED);
  EXPECT_EQ(seen, 1);
  // The next frame sends the 3 that were left first.
  ASSERT_EQ(gst_harness_push(hs, timed_frame(info, 7)), GST_FLOW_OK);
  EXPECT_EQ(seen, 4);
  for (int i = 8; i < 12; ++i) ASSERT_EQ(gst_harness_push(hs, timed_frame(info, i)), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  EXPECT_EQ(seen, 12) << "every frame reached the src pad once";
  std::vector<std::string> want;
  for (int i = 1; i < 12; ++i) want.push_back("B" + std::to_string(i));
  std::vector<std::string> got;
  for (const auto& e : rec.log)
    if (e[0] == 'B') got.push_back(e);
  EXPECT_EQ(got, want) << rec.text();
  gst_object_unref(src);
  gst_harness_teardown(hs);
}

namespace {
// The element's answer to a POSITION query on its src pad (what a sink asks
// upstream when it cannot answer itself), or NONE.
GstClockTime output_position(GstHarness* hs) {
  GstPad* src = gst_element_get_static_pad(hs->element, "src");
  GstQuery* q = gst_query_new_position(GST_FORMAT_TIME);
  gint64 pos = -1;
  if (gst_pad_query(src, q)) gst_query_parse_position(q, nullptr, &pos);
  gst_query_unref(q);
  gst_object_unref(src);
  return pos < 0 ? GST_CLOCK_TIME_NONE : (GstClockTime)pos;
}
}  // namespace

// Every frame of a window leaves by one path: the frames the EOS drains and
// those a refused push left for the catch-up count in the output position like
// those sent after a push.
TEST(Nlm3dElement, PositionFollowsEveryFrameOutDrainedOrCaughtUp) {
  const GstVideoInfo info = video_info("GRAY8", kW, kH);
  GstHarness* hs = nlm_harness("GRAY8", kW, kH);
  const int n = 10;
  for (int i = 0; i < n; ++i) ASSERT_EQ(gst_harness_push(hs, timed_frame(info, i)), GST_FLOW_OK);
  const int out = (int)gst_harness_buffers_received(hs);
  ASSERT_GT(out, 0);
  ASSERT_LT(out, n);
  EXPECT_EQ(output_position(hs), out * kFrame) << "the end of the last frame out";
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  ASSERT_EQ((int)gst_harness_buffers_received(hs), n);
  EXPECT_EQ(output_position(hs), n * kFrame) << "the drained frames are out too";
  gst_harness_teardown(hs);

  // Downstream refuses the first frame; the next push sends the 3 left ready.
  hs = nlm_harness("GRAY8", kW, kH);
  GstPad* src = gst_element_get_static_pad(hs->element, "src");
  int seen = 0;
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, refuse_first, &seen, nullptr);
  for (int i = 0; i < 7; ++i)
    ASSERT_EQ(gst_harness_push(hs, timed_frame(info, i)), i < 6 ? GST_FLOW_OK : GST_FLOW_NOT_LINKED);
  ASSERT_EQ(seen, 1);
  ASSERT_EQ(gst_harness_push(hs, timed_frame(info, 7)), GST_FLOW_OK);
  ASSERT_EQ(seen, 4);
  EXPECT_EQ(output_position(hs), 4 * kFrame) << "the caught-up frames 1-3 are out";
  gst_object_unref(src);
  gst_harness_teardown(hs);
}
