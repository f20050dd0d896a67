// test_cudadenoise.cpp: the cudadenoise element on the CPU backend, through
// GstHarness, in the per-frame modes: properties against cdn::param_specs(),
// negotiation of every system-memory format, output equal to kernels/ for the
// same frame, caps changes, flush and EOS, steady memory, timestamps, readable
// refusals. The temporal mode (nlm3d) has test_cudadenoise_nlm3d.cpp.
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>

#include <cmath>
#include <string>
#include <vector>

#include "plugin_test_support.h"

using namespace cdn_test;

namespace {

const char* const kSystemFormats[] = {"NV12", "I420", "P010_10LE", "P016_LE", "Y444", "GRAY8"};

GstHarness* denoise_harness(const std::string& format, int w, int h, const char* props = "") {
  GstHarness* hs = gst_harness_new_parse((std::string("cudadenoise name=dn backend=cpu ") + props).c_str());
  const std::string caps = caps_string(format, w, h);
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  return hs;
}

GstElement* harness_element(GstHarness* hs) { return gst_bin_get_by_name(GST_BIN(hs->element), "dn"); }

}  // namespace

TEST(CudaDenoiseElement, IsRegisteredWithDocumentedMetadata) {
  GstElementFactory* f = gst_element_factory_find("cudadenoise");
  ASSERT_NE(f, nullptr) << "plugin not found: is GST_PLUGIN_PATH_1_0 the build's plugin dir?";
  EXPECT_STREQ(gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_KLASS), "Filter/Effect/Video");
  EXPECT_NE(std::string(gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_DESCRIPTION)).find("PI-PD"),
            std::string::npos);
  const GList* templates = gst_element_factory_get_static_pad_templates(f);
  int n = 0;
  for (const GList* l = templates; l; l = l->next, ++n) {
    auto* t = static_cast<GstStaticPadTemplate*>(l->data);
    GstCaps* caps = gst_static_caps_get(&t->static_caps);
    for (const char* fmt : kSystemFormats) {
      GstCaps* one = gst_caps_from_string(caps_string(fmt, 16, 16).c_str());
      EXPECT_TRUE(gst_caps_can_intersect(caps, one)) << t->name_template << " lacks " << fmt;
      gst_caps_unref(one);
    }
#ifdef CDN_GST_CUDA
    for (const char* fmt : {"NV12", "I420", "P010_10LE", "P016_LE", "Y444"}) {
      GstCaps* one = gst_caps_from_string(caps_string(fmt, 16, 16, true).c_str());
      EXPECT_TRUE(gst_caps_can_intersect(caps, one)) << t->name_template << " lacks CUDA " << fmt;
      gst_caps_unref(one);
    }
    GstCaps* gray = gst_caps_from_string(caps_string("GRAY8", 16, 16, true).c_str());
    EXPECT_FALSE(gst_caps_can_intersect(caps, gray)) << "GRAY8 has no CUDA allocator layout in 1.22";
    gst_caps_unref(gray);
#endif
    gst_caps_unref(caps);
  }
  EXPECT_EQ(n, 2);
  gst_object_unref(f);
}

TEST(CudaDenoiseElement, NumericPropertiesComeFromParamSpecs) {
  GstElement* e = gst_element_factory_make("cudadenoise", nullptr);
  ASSERT_NE(e, nullptr);
  std::map<cdn::ParamGroup, int> groups;
  for (const cdn::ParamSpec& p : cdn::param_specs()) {
    GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), p.name);
    ++groups[p.group];
    ASSERT_NE(ps, nullptr) << p.name;
    // The table's help, then the modes the parameter applies to.
    const std::string blurb = g_param_spec_get_blurb(ps);
    EXPECT_EQ(blurb.rfind(p.blurb, 0), 0u) << blurb;
    std::string modes;
    for (cdn::Mode m : cdn::all_modes())
      if (cdn::param_group_applies(p.group, m)) modes += std::string(modes.empty() ? "" : ", ") + cdn::mode_name(m);
    EXPECT_NE(blurb.find("Applies to mode"), std::string::npos) << blurb;
    EXPECT_NE(blurb.find(modes), std::string::npos) << blurb << " should name " << modes;
    // Changes of a temporal mode's parameters wait for the next stream start.
    EXPECT_EQ(blurb.find("next stream start") != std::string::npos, cdn::param_group_applies(p.group, cdn::Mode::Nlm3d))
        << blurb;
    EXPECT_TRUE(ps->flags & GST_PARAM_MUTABLE_PLAYING) << p.name;
    EXPECT_TRUE(ps->flags & GST_PARAM_DOC_SHOW_DEFAULT) << p.name;
    if (p.integer) {
      ASSERT_TRUE(G_IS_PARAM_SPEC_INT(ps)) << p.name;
      auto* pi = G_PARAM_SPEC_INT(ps);
      EXPECT_EQ(pi->minimum, (int)p.min) << p.name;
      EXPECT_EQ(pi->maximum, (int)p.max) << p.name;
      EXPECT_EQ(pi->default_value, (int)p.def) << p.name;
      int v = -1;
      g_object_get(e, p.name, &v, nullptr);
      EXPECT_EQ(v, (int)p.def) << p.name;
    } else {
      ASSERT_TRUE(G_IS_PARAM_SPEC_DOUBLE(ps)) << p.name;
      auto* pd = G_PARAM_SPEC_DOUBLE(ps);
      EXPECT_DOUBLE_EQ(pd->minimum, p.min) << p.name;
      EXPECT_DOUBLE_EQ(pd->maximum, p.max) << p.name;
      EXPECT_DOUBLE_EQ(pd->default_value, p.def) << p.name;
      double v = -1;
      g_object_get(e, p.name, &v, nullptr);
      EXPECT_DOUBLE_EQ(v, p.def) << p.name;
    }
    // The table's default is DenoiseSettings{}'s.
    EXPECT_DOUBLE_EQ(p.get(cdn::DenoiseSettings{}), p.def) << p.name;
  }
  EXPECT_EQ(groups[cdn::ParamGroup::Pipd], 6) << "segment-length, max-length, tmax, t2max, thickness, direction-prefilter";
  EXPECT_EQ(groups[cdn::ParamGroup::Nlm], 9)
      << "search-radius, temporal-radius, neighbour-search-radius, patch-radius, patch-shape, motion-search, "
         "distance-offset, strength, chunk-size";
  EXPECT_EQ(groups[cdn::ParamGroup::Bm3d], 3) << "bm3d-step, bm3d-window, bm3d-phases";
  EXPECT_EQ(groups[cdn::ParamGroup::Noise], 1) << "sigma";
  gst_object_unref(e);
}

TEST(CudaDenoiseElement, EnumPropertiesUseLibraryNames) {
  GstElement* e = gst_element_factory_make("cudadenoise", nullptr);
  ASSERT_NE(e, nullptr);
  struct Expect {
    const char* prop;
    std::vector<std::string> nicks;
    std::string def;
  };
  const Expect expects[] = {
      {"mode", {}, "pipd"},
      {"planes", {cdn::planes_name(cdn::PlaneSelection::Luma), cdn::planes_name(cdn::PlaneSelection::All)}, "all"},
      {"backend",
       {cdn::backend_name(cdn::Backend::Auto), cdn::backend_name(cdn::Backend::Cuda),
        cdn::backend_name(cdn::Backend::Cpu)},
       "auto"},
  };
  for (Expect x : expects) {
    if (x.nicks.empty())  // mode: every mode of the library, described by it
      for (cdn::Mode m : cdn::all_modes()) x.nicks.push_back(cdn::mode_name(m));
    GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), x.prop);
    ASSERT_NE(ps, nullptr) << x.prop;
    ASSERT_TRUE(G_IS_PARAM_SPEC_ENUM(ps));
    GEnumClass* ec = G_PARAM_SPEC_ENUM(ps)->enum_class;
    ASSERT_EQ(ec->n_values, x.nicks.size()) << x.prop;
    for (guint i = 0; i < ec->n_values; ++i) EXPECT_EQ(x.nicks[i], ec->values[i].value_nick) << x.prop;
    if (std::string(x.prop) == "mode") {
      for (guint i = 0; i < ec->n_values; ++i)
        EXPECT_STREQ(ec->values[i].value_name, cdn::mode_description((cdn::Mode)ec->values[i].value));
    }
    GEnumValue* dv = g_enum_get_value(ec, G_PARAM_SPEC_ENUM(ps)->default_value);
    ASSERT_NE(dv, nullptr);
    EXPECT_EQ(x.def, dv->value_nick) << x.prop;
  }
  int id = 0;
  g_object_get(e, "cuda-device-id", &id, nullptr);
  EXPECT_EQ(id, -1);
  // gst-launch style string values work.
  gst_util_set_object_arg(G_OBJECT(e), "mode", "hybrid");
  gint mode = 0;
  g_object_get(e, "mode", &mode, nullptr);
  EXPECT_EQ(mode, (gint)cdn::Mode::Hybrid);
  gst_object_unref(e);
}

TEST(CudaDenoiseElement, InvalidValuesAreRejectedAndOldValuesKept) {
  GstElement* e = gst_element_factory_make("cudadenoise", nullptr);
  ASSERT_NE(e, nullptr);
  int v = 0;
  // In range for GObject but invalid for the library: rejected by cdn::validate.
  g_object_set(e, "thickness", 2, nullptr);
  g_object_get(e, "thickness", &v, nullptr);
  EXPECT_EQ(v, 1);
  g_object_set(e, "thickness", 3, nullptr);
  g_object_get(e, "thickness", &v, nullptr);
  EXPECT_EQ(v, 3);
  // Out of the table's range: refused by GObject with a warning.
  g_object_set(e, "segment-length", 100, nullptr);
  g_object_get(e, "segment-length", &v, nullptr);
  EXPECT_EQ(v, 5);
  double t = 0;
  g_object_set(e, "tmax", -1.0, nullptr);
  g_object_get(e, "tmax", &t, nullptr);
  EXPECT_DOUBLE_EQ(t, 1.0);
  gst_object_unref(e);
}

TEST(CudaDenoiseElement, SegmentAndMaxLengthCanBeChangedInEitherOrder) {
  // (5, 25) -> (4, 24): each single step is an invalid pair, so the element keeps
  // the request and filters with the last valid pair until both are set.
  const GstVideoInfo info = video_info("GRAY8", 48, 40);
  GstHarness* hs = denoise_harness("GRAY8", 48, 40);
  GstElement* e = harness_element(hs);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "max-length", 24, nullptr);
  int v = 0;
  g_object_get(e, "max-length", &v, nullptr);
  EXPECT_EQ(v, 24);  // kept as requested
  cdn::DenoiseSettings s;  // frames still use (5, 25)
  expect_denoised(hs, info, make_frame(info, 1), s);
  g_object_set(e, "segment-length", 4, nullptr);
  s.pipd.segment_length = 4;
  s.pipd.max_length = 24;
  expect_denoised(hs, info, make_frame(info, 2), s);
  gst_object_unref(e);
  gst_harness_teardown(hs);
}

class EveryFormat : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryFormat, NegotiatesAndEqualsKernelsResult) {
  const std::string fmt = GetParam();
  for (auto [w, h] : {std::pair{64, 48}, std::pair{33, 17}, std::pair{3, 2}, std::pair{1, 1}}) {
    for (bool padded : {false, true}) {
      SCOPED_TRACE(fmt + " " + std::to_string(w) + "x" + std::to_string(h) + (padded ? " padded" : ""));
      const GstVideoInfo info = video_info(fmt, w, h);
      GstHarness* hs = denoise_harness(fmt, w, h);
      expect_denoised(hs, info, make_frame(info, 7, padded), cdn::DenoiseSettings{});
      GstCaps* out = gst_pad_get_current_caps(hs->sinkpad);
      ASSERT_NE(out, nullptr);
      GstCaps* want = gst_caps_from_string(caps_string(fmt, w, h).c_str());
      EXPECT_TRUE(gst_caps_is_subset(out, want)) << gst_caps_to_string(out);
      gst_caps_unref(want);
      gst_caps_unref(out);
      gst_harness_teardown(hs);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SystemMemory, EveryFormat, ::testing::ValuesIn(kSystemFormats));

TEST(CudaDenoiseElement, HybridAndLumaOnlyEqualKernelsResult) {
  const GstVideoInfo info = video_info("NV12", 80, 64);
  GstHarness* hs = denoise_harness("NV12", 80, 64, "mode=hybrid planes=luma tmax=1.5 thickness=3 direction-prefilter=2");
  cdn::DenoiseSettings s;
  s.mode = cdn::Mode::Hybrid;
  s.planes = cdn::PlaneSelection::Luma;
  s.pipd.tmax = 1.5;
  s.pipd.thickness = 3;
  s.pipd.direction_prefilter = 2;
  expect_denoised(hs, info, make_frame(info, 11), s);
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseElement, PropertyChangeWhilePlayingAppliesFromNextFrame) {
  const GstVideoInfo info = video_info("I420", 64, 48);
  GstHarness* hs = denoise_harness("I420", 64, 48);
  GstElement* e = harness_element(hs);
  cdn::DenoiseSettings s;
  expect_denoised(hs, info, make_frame(info, 1), s);
  gst_util_set_object_arg(G_OBJECT(e), "mode", "hybrid");
  g_object_set(e, "t2max", 3.0, nullptr);
  s.mode = cdn::Mode::Hybrid;
  s.pipd.t2max = 3.0;
  expect_denoised(hs, info, make_frame(info, 2), s);
  gst_util_set_object_arg(G_OBJECT(e), "planes", "luma");
  s.planes = cdn::PlaneSelection::Luma;
  expect_denoised(hs, info, make_frame(info, 3), s);
  gst_object_unref(e);
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseElement, ResolutionAndFormatChangeMidStream) {
  GstHarness* hs = denoise_harness("NV12", 64, 48);
  const GstVideoInfo a = video_info("NV12", 64, 48);
  expect_denoised(hs, a, make_frame(a, 1), {});
  expect_denoised(hs, a, make_frame(a, 2), {});
  const std::string caps_b = caps_string("NV12", 40, 30);
  gst_harness_set_caps_str(hs, caps_b.c_str(), caps_b.c_str());
  const GstVideoInfo b = video_info("NV12", 40, 30);
  expect_denoised(hs, b, make_frame(b, 3), {});
  const std::string caps_c = caps_string("P010_10LE", 50, 22);
  gst_harness_set_caps_str(hs, caps_c.c_str(), caps_c.c_str());
  const GstVideoInfo c = video_info("P010_10LE", 50, 22);
  expect_denoised(hs, c, make_frame(c, 4), {});
  GstCaps* now = gst_pad_get_current_caps(hs->sinkpad);
  GstVideoInfo got;
  ASSERT_TRUE(gst_video_info_from_caps(&got, now));
  EXPECT_EQ(GST_VIDEO_INFO_WIDTH(&got), 50);
  EXPECT_EQ(GST_VIDEO_INFO_FORMAT(&got), GST_VIDEO_FORMAT_P010_10LE);
  gst_caps_unref(now);
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseElement, TimestampsDurationsFlagsPreserved) {
  const GstVideoInfo info = video_info("I420", 32, 24);
  GstHarness* hs = denoise_harness("I420", 32, 24);
  for (int i = 0; i < 6; ++i) {
    GstBuffer* in = make_frame(info, i);
    GST_BUFFER_PTS(in) = i * 40 * GST_MSECOND + 7;
    GST_BUFFER_DTS(in) = i * 40 * GST_MSECOND;
    GST_BUFFER_DURATION(in) = 40 * GST_MSECOND;
    GST_BUFFER_OFFSET(in) = 100 + i;
    GST_BUFFER_OFFSET_END(in) = 101 + i;
    const guint flags = (i % 2 ? GST_BUFFER_FLAG_DELTA_UNIT : 0) | (i == 3 ? GST_BUFFER_FLAG_MARKER : 0) |
                        (i == 4 ? GST_BUFFER_FLAG_DISCONT : 0);
    GST_BUFFER_FLAG_SET(in, flags);
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(GST_BUFFER_PTS(out), i * 40 * GST_MSECOND + 7);
    EXPECT_EQ(GST_BUFFER_DTS(out), i * 40 * GST_MSECOND);
    EXPECT_EQ(GST_BUFFER_DURATION(out), 40 * GST_MSECOND);
    EXPECT_EQ(GST_BUFFER_OFFSET(out), 100u + i);
    EXPECT_EQ(GST_BUFFER_OFFSET_END(out), 101u + i);
    EXPECT_EQ(GST_BUFFER_FLAGS(out) & flags, flags) << "frame " << i;
    if (i != 0 && i != 4) {
      EXPECT_FALSE(GST_BUFFER_FLAG_IS_SET(out, GST_BUFFER_FLAG_DISCONT)) << "frame " << i;
    }
    gst_buffer_unref(out);
  }
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseElement, FlushAndEosKeepFramesOutEqualFramesIn) {
  const GstVideoInfo info = video_info("NV12", 32, 32);
  GstHarness* hs = denoise_harness("NV12", 32, 32);
  int pushed = 0;
  for (; pushed < 3; ++pushed) {
    ASSERT_EQ(gst_harness_push(hs, make_frame(info, pushed)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(hs));
  }
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  // After the flush the element rebuilt its State and still equals the reference.
  expect_denoised(hs, info, make_frame(info, 42), {});
  ++pushed;
  for (int i = 0; i < 2; ++i, ++pushed) ASSERT_EQ(gst_harness_push(hs, make_frame(info, 100 + i)), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  EXPECT_EQ((int)gst_harness_buffers_received(hs), pushed);
  bool eos = false;
  while (GstEvent* ev = gst_harness_try_pull_event(hs)) {
    eos |= GST_EVENT_TYPE(ev) == GST_EVENT_EOS;
    gst_event_unref(ev);
  }
  EXPECT_TRUE(eos);
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseElement, ManyFramesConstantMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "RSS says nothing under AddressSanitizer (freed memory stays in its quarantine)";
#endif
  const GstVideoInfo info = video_info("NV12", 160, 120);
  GstHarness* hs = denoise_harness("NV12", 160, 120);
  GstBuffer* frame = make_frame(info, 5);
  long long rss_warm = 0;
  const int frames = 300, warmup = 30;
  for (int i = 0; i < frames; ++i) {
    ASSERT_EQ(gst_harness_push(hs, gst_buffer_copy_deep(frame)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(hs));
    if (i == warmup) rss_warm = rss_bytes();
  }
  const long long growth = rss_bytes() - rss_warm;
  EXPECT_LT(growth, 2 * 1024 * 1024) << "RSS grew by " << growth << " bytes over " << frames - warmup << " frames";
  EXPECT_EQ((int)gst_harness_buffers_received(hs), frames);
  gst_buffer_unref(frame);
  gst_harness_teardown(hs);
}

TEST(CudaDenoiseElement, OutputComesFromAPoolWithVideoMetaWhenDownstreamAsks) {
  const GstVideoInfo info = video_info("I420", 36, 20);
  GstHarness* hs = gst_harness_new_parse("cudadenoise backend=cpu");
  gst_harness_add_propose_allocation_meta(hs, GST_VIDEO_META_API_TYPE, nullptr);
  const std::string caps = caps_string("I420", 36, 20);
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  expect_denoised(hs, info, make_frame(info, 3, true), {});
  gst_harness_teardown(hs);
}

namespace {
struct BusResult {
  std::vector<std::string> warnings, errors;
};

BusResult run_to_end(GstElement* pipeline) {
  BusResult r;
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  for (;;) {
    GstMessage* m = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND,
                                               (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
                                                                GST_MESSAGE_WARNING));
    if (!m) break;
    const GstMessageType t = GST_MESSAGE_TYPE(m);
    if (t == GST_MESSAGE_WARNING || t == GST_MESSAGE_ERROR) {
      GError* err = nullptr;
      if (t == GST_MESSAGE_WARNING)
        gst_message_parse_warning(m, &err, nullptr);
      else
        gst_message_parse_error(m, &err, nullptr);
      (t == GST_MESSAGE_WARNING ? r.warnings : r.errors)
          .push_back(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))) + ": " + err->message);
      g_error_free(err);
    }
    gst_message_unref(m);
    if (t != GST_MESSAGE_WARNING) break;
  }
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  return r;
}
}  // namespace

TEST(CudaDenoiseElement, UnsupportedFormatFailsWithReadableMessage) {
  // An element that can only produce YUY2 (like many webcams); linked without a
  // caps check so that negotiation, not gst-launch's parser, finds the mismatch.
  GstElement* pipeline = gst_pipeline_new(nullptr);
  GstElement* src = gst_element_factory_make("videotestsrc", nullptr);
  GstElement* filter = gst_element_factory_make("capsfilter", nullptr);
  GstElement* dn = gst_element_factory_make("cudadenoise", "dn");
  GstElement* sink = gst_element_factory_make("fakesink", nullptr);
  ASSERT_TRUE(src && filter && dn && sink);
  GstCaps* yuy2 = gst_caps_from_string("video/x-raw,format=YUY2,width=64,height=48");
  g_object_set(filter, "caps", yuy2, nullptr);
  gst_caps_unref(yuy2);
  g_object_set(src, "num-buffers", 2, nullptr);
  gst_bin_add_many(GST_BIN(pipeline), src, filter, dn, sink, nullptr);
  ASSERT_TRUE(gst_element_link(src, filter));
  ASSERT_TRUE(gst_element_link(dn, sink));
  ASSERT_EQ(gst_pad_link_full(gst_element_get_static_pad(filter, "src"), gst_element_get_static_pad(dn, "sink"),
                              GST_PAD_LINK_CHECK_NOTHING),
            GST_PAD_LINK_OK);
  const BusResult r = run_to_end(pipeline);
  EXPECT_FALSE(r.errors.empty()) << "negotiation must fail";
  bool explained = false;
  for (const auto& w : r.warnings)
    explained |= w.rfind("dn: ", 0) == 0 && w.find("YUY2") != std::string::npos &&
                 w.find("Supported: NV12") != std::string::npos;
  EXPECT_TRUE(explained) << "no readable warning from cudadenoise; warnings: " << r.warnings.size();
  gst_object_unref(pipeline);
}

TEST(CudaDenoiseElement, CudaMemoryWithoutContextFailsWithReadableMessage) {
  // backend=cpu never holds a CUDA context, so CUDA memory cannot be taken.
  GstElement* pipeline = gst_pipeline_new(nullptr);
  GstElement* src = gst_element_factory_make("appsrc", nullptr);
  GstElement* dn = gst_element_factory_make("cudadenoise", "dn");
  GstElement* sink = gst_element_factory_make("fakesink", nullptr);
  ASSERT_TRUE(src && dn && sink);
  GstCaps* caps = gst_caps_from_string(caps_string("NV12", 64, 48, true).c_str());
  g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, nullptr);
  gst_caps_unref(caps);
  gst_util_set_object_arg(G_OBJECT(dn), "backend", "cpu");
  gst_bin_add_many(GST_BIN(pipeline), src, dn, sink, nullptr);
  ASSERT_TRUE(gst_element_link(dn, sink));
  ASSERT_EQ(gst_pad_link_full(gst_element_get_static_pad(src, "src"), gst_element_get_static_pad(dn, "sink"),
                              GST_PAD_LINK_CHECK_NOTHING),
            GST_PAD_LINK_OK);
  gst_element_set_state(pipeline, GST_STATE_PAUSED);
  const GstVideoInfo info = video_info("NV12", 64, 48);
  gst_app_src_push_buffer(GST_APP_SRC(src), make_frame(info, 1));
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  const BusResult r = run_to_end(pipeline);
  EXPECT_FALSE(r.errors.empty()) << "negotiation must fail";
  // Refused in a caps query (warning) or, when the caps arrive directly, in set_caps (error).
  bool explained = false;
  for (const auto* list : {&r.warnings, &r.errors})
    for (const auto& w : *list)
      explained |= w.rfind("dn: ", 0) == 0 && w.find("memory:CUDAMemory") != std::string::npos &&
                   (w.find("backend=cpu") != std::string::npos ||          // a build with gst-cuda
                    w.find("no GStreamer CUDA support") != std::string::npos);  // one without
  std::string all;
  for (const auto* list : {&r.warnings, &r.errors})
    for (const auto& w : *list) all += "\n  " + w;
  EXPECT_TRUE(explained) << "no readable message from cudadenoise:" << all;
  gst_object_unref(pipeline);
}

TEST(CudaDenoiseElement, BackendCudaWithoutDeviceFailsToStart) {
  std::string why;
  if (cdn::cuda_available(&why)) GTEST_SKIP() << "a CUDA device is present";
  GstElement* pipeline = gst_parse_launch("videotestsrc num-buffers=1 ! cudadenoise backend=cuda ! fakesink", nullptr);
  ASSERT_NE(pipeline, nullptr);
  const BusResult r = run_to_end(pipeline);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].find("backend=cuda"), std::string::npos) << r.errors[0];
  gst_object_unref(pipeline);
}

TEST(CudaDenoiseElement, AutoBackendWithoutDeviceRunsOnCpu) {
  std::string why;
  if (cdn::cuda_available(&why)) GTEST_SKIP() << "a CUDA device is present";
  const GstVideoInfo info = video_info("NV12", 40, 24);
  GstHarness* hs = gst_harness_new_parse("cudadenoise");  // backend=auto
  const std::string caps = caps_string("NV12", 40, 24);
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  expect_denoised(hs, info, make_frame(info, 9), {});
  gst_harness_teardown(hs);
}
