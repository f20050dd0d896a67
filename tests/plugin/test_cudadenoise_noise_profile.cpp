// test_cudadenoise_noise_profile.cpp: cudadenoise's noise-profile property and
// the signal-dependent noise model in its cudadenoise-noise message (issue 37),
// on the CPU backend through GstHarness: the property's round trip, a file that
// cannot be read (an error at start; a warning while playing, the previous
// settings kept), a profile giving the same bytes as noise-a and noise-b of the
// same model, and the message's model fields.
#include <gst/check/gstharness.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cudadenoise/noise_profile.h"
#include "plugin_test_support.h"

using namespace cdn_test;

namespace {

namespace fs = std::filesystem;

class NoiseProfileElement : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cdn-plugin-profile-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // A profile file of `planes` planes, each var = a x + b (with a curve when `curve`).
  std::string profile(const std::string& name, double a, double b, int planes = 3, bool curve = false) const {
    cdn::NoiseProfile p;
    for (int k = 0; k < planes; ++k) {
      cdn::NoiseModel m;
      m.a = a;
      m.b = b;
      m.usable = true;
      if (curve)
        for (double x : {16.0, 128.0, 235.0}) m.levels.push_back({x, a * x + b, 300});
      p.planes.push_back(m);
    }
    cdn::save_noise_profile(p, path(name));
    return path(name);
  }
  fs::path dir_;
};

GstHarness* harness(const std::string& props, const std::string& format = "I420", int w = 64, int h = 48) {
  GstHarness* hs = gst_harness_new_parse(("cudadenoise name=dn backend=cpu " + props).c_str());
  const std::string caps = caps_string(format, w, h);
  gst_harness_set_caps_str(hs, caps.c_str(), caps.c_str());
  return hs;
}

GstElement* element_of(GstHarness* hs) { return gst_bin_get_by_name(GST_BIN(hs->element), "dn"); }

// The frame the harness gives for `in` (pushed; `in` is taken).
std::unique_ptr<HostFrame> denoise(GstHarness* hs, const GstVideoInfo& info, GstBuffer* in) {
  EXPECT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(hs);
  if (!out) return nullptr;
  MappedView m(out, info, GST_MAP_READ);
  EXPECT_TRUE(m.ok());
  auto frame = std::make_unique<HostFrame>(m.view().format, m.view().width, m.view().height);
  for (int c = 0; c < static_cast<int>(cdn::components(m.view()).size()); ++c) {
    const cdn::PlaneView from = cdn::components(m.view())[c], to = cdn::components(frame->view)[c];
    for (int y = 0; y < from.height; ++y)
      for (int x = 0; x < from.width; ++x) to.set(x, y, from.get(x, y));
  }
  gst_buffer_unref(out);
  return frame;
}

std::string noise_profile_of(GstElement* e) {
  gchar* v = nullptr;
  g_object_get(e, "noise-profile", &v, nullptr);
  const std::string out = v ? v : "";
  g_free(v);
  return out;
}

// The warnings (or errors) on `bus`, as "SOURCE: message".
std::vector<std::string> messages(GstBus* bus, GstMessageType type) {
  std::vector<std::string> out;
  while (GstMessage* m = gst_bus_pop_filtered(bus, type)) {
    GError* err = nullptr;
    if (type == GST_MESSAGE_WARNING)
      gst_message_parse_warning(m, &err, nullptr);
    else
      gst_message_parse_error(m, &err, nullptr);
    out.push_back(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))) + ": " + err->message);
    g_error_free(err);
    gst_message_unref(m);
  }
  return out;
}

std::vector<double> doubles(const GValue* array) {
  std::vector<double> out;
  for (guint i = 0; array && i < gst_value_array_get_size(array); ++i)
    out.push_back(g_value_get_double(gst_value_array_get_value(array, i)));
  return out;
}

// The cudadenoise-noise messages on `bus`, as copies of their structures.
std::vector<GstStructure*> noise_messages(GstBus* bus) {
  std::vector<GstStructure*> out;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure* st = gst_message_get_structure(m);
    if (gst_structure_has_name(st, "cudadenoise-noise")) out.push_back(gst_structure_copy(st));
    gst_message_unref(m);
  }
  return out;
}

}  // namespace

TEST_F(NoiseProfileElement, PropertyRoundTrip) {
  GstElement* e = gst_element_factory_make("cudadenoise", nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(noise_profile_of(e), "") << "no profile by default";
  const std::string file = profile("p.json", 0.5, 4);
  g_object_set(e, "noise-profile", file.c_str(), nullptr);
  EXPECT_EQ(noise_profile_of(e), file);
  g_object_set(e, "noise-profile", "", nullptr);
  EXPECT_EQ(noise_profile_of(e), "");
  gst_object_unref(e);
}

// A file that cannot be read, or is not a profile, stops the start with the
// library's message.
TEST_F(NoiseProfileElement, BadFileAtStartFailsWithTheLibrarysMessage) {
  {
    std::ofstream(path("bad.json")) << "{\"format\": \"something else\"}";
  }
  const struct {
    std::string file, says;
  } cases[] = {{path("missing.json"), "cannot read " + path("missing.json")},
               {path("bad.json"), "no \"format\": \"cudadenoise-noise-profile\""}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    GstElement* pipeline = gst_parse_launch(("videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=32,height=24 ! "
                                             "cudadenoise name=dn backend=cpu noise-model=signal noise-profile=" +
                                             c.file + " ! fakesink")
                                                .c_str(),
                                            nullptr);
    ASSERT_NE(pipeline, nullptr);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* m = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND, (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(GST_MESSAGE_TYPE(m), GST_MESSAGE_ERROR) << "ran without the profile";
    GError* err = nullptr;
    gst_message_parse_error(m, &err, nullptr);
    const std::string text = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))) + ": " + err->message;
    g_error_free(err);
    gst_message_unref(m);
    EXPECT_EQ(text.rfind("dn: noise-profile: ", 0), 0u) << text;
    EXPECT_NE(text.find(c.says), std::string::npos) << text;
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
}

// While playing: a bad file is a warning with the library's message, and the
// frames keep the previous profile's settings.
// The stream is built when the caps come (gst_cuda_denoise_set_caps), not at the
// first frame: a live source negotiates before its pipeline plays, so a
// stream's start is not paid on the clock. One that cannot start (a profile of
// 3 planes for GRAY8 frames) refuses the caps with the library's message
// before any frame is pushed.
TEST_F(NoiseProfileElement, StreamThatCannotStartRefusesTheCapsBeforeAnyFrame) {
  const std::string file = profile("three.json", 0.5, 4, 3);
  GstHarness* hs = gst_harness_new_parse(("cudadenoise name=dn backend=cpu noise-model=signal noise-profile=" + file).c_str());
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  const std::string gray = caps_string("GRAY8", 64, 48);
  gst_harness_set_caps_str(hs, gray.c_str(), gray.c_str());
  const std::vector<std::string> errors = messages(bus, GST_MESSAGE_ERROR);
  // (The pad offers its sticky caps again with the segment event: each refusal posts.)
  ASSERT_FALSE(errors.empty()) << "the caps alone start the stream";
  for (const std::string& e : errors)
    EXPECT_EQ(e, "dn: starting the denoiser failed: the noise profile has 3 planes, GRAY8 frames 1");
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);

  // The same profile with three-plane caps: no error at the caps.
  hs = gst_harness_new_parse(("cudadenoise name=dn backend=cpu noise-model=signal noise-profile=" + file).c_str());
  bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  const std::string i420 = caps_string("I420", 64, 48);
  gst_harness_set_caps_str(hs, i420.c_str(), i420.c_str());
  EXPECT_TRUE(messages(bus, GST_MESSAGE_ERROR).empty());
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}

TEST_F(NoiseProfileElement, BadFileWhilePlayingWarnsAndKeepsTheOldSettings) {
  const GstVideoInfo info = video_info("I420", 64, 48);
  const std::string good = profile("good.json", 0.5, 4);
  {
    std::ofstream(path("garbage.json")) << "not json at all";
  }
  GstHarness* hs = harness("noise-model=signal noise-profile=" + good);
  GstHarness* given = harness("noise-model=signal noise-a=0.5 noise-b=4");
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  GstElement* e = element_of(hs);
  auto first = denoise(hs, info, make_frame(info, 1));
  auto want_first = denoise(given, info, make_frame(info, 1));
  ASSERT_TRUE(first && want_first);
  EXPECT_EQ(compare(first->view, want_first->view).count, 0);

  g_object_set(e, "noise-profile", path("garbage.json").c_str(), nullptr);
  const std::vector<std::string> warnings = messages(bus, GST_MESSAGE_WARNING);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("dn: ", 0), 0u) << warnings[0];
  EXPECT_NE(warnings[0].find(path("garbage.json") + ": noise profile: not JSON"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("the previous noise settings stay"), std::string::npos) << warnings[0];
  EXPECT_TRUE(messages(bus, GST_MESSAGE_ERROR).empty());

  auto second = denoise(hs, info, make_frame(info, 2));
  auto want_second = denoise(given, info, make_frame(info, 2));
  ASSERT_TRUE(second && want_second);
  EXPECT_EQ(compare(second->view, want_second->view).count, 0) << "the old profile's settings must stay";

  gst_object_unref(e);
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(given);
  gst_harness_teardown(hs);
}

// A profile of a = 0.5, b = 4 on every plane is the model noise-a=0.5
// noise-b=4 gives: the same bytes, and not the constant model's.
TEST_F(NoiseProfileElement, ProfileGivesTheBytesOfTheSameGivenModel) {
  for (const char* format : {"I420", "GRAY8"}) {
    SCOPED_TRACE(format);
    const GstVideoInfo info = video_info(format, 64, 48);
    const int planes = std::string(format) == "GRAY8" ? 1 : 3;
    const std::string file = profile(std::string(format) + ".json", 0.5, 4, planes);
    GstHarness* from_file = harness("noise-model=signal noise-profile=" + file, format);
    GstHarness* given = harness("noise-model=signal noise-a=0.5 noise-b=4", format);
    GstHarness* constant = harness("", format);
    for (int i = 0; i < 2; ++i) {
      auto a = denoise(from_file, info, make_frame(info, 10 + i, false, 8.0));
      auto b = denoise(given, info, make_frame(info, 10 + i, false, 8.0));
      auto c = denoise(constant, info, make_frame(info, 10 + i, false, 8.0));
      ASSERT_TRUE(a && b && c);
      const Diff d = compare(a->view, b->view);
      EXPECT_EQ(d.count, 0) << "frame " << i << ": max |diff| " << d.max_abs;
      EXPECT_GT(compare(a->view, c->view).count, 0) << "frame " << i << ": the profile made no difference";
    }
    gst_harness_teardown(constant);
    gst_harness_teardown(given);
    gst_harness_teardown(from_file);
  }
}

// The message carries the model: posted when it first becomes known and when
// a new profile changes it, not for every frame.
TEST_F(NoiseProfileElement, NoiseMessageCarriesTheModel) {
  const GstVideoInfo info = video_info("I420", 64, 48);
  const std::string first = profile("first.json", 0.5, 4, 3, true);
  GstHarness* hs = harness("noise-model=signal noise-profile=" + first);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  for (int i = 0; i < 3; ++i) denoise(hs, info, make_frame(info, 20 + i));
  std::vector<GstStructure*> posted = noise_messages(bus);
  ASSERT_EQ(posted.size(), 1u) << "one model, one message";
  EXPECT_STREQ(gst_structure_get_string(posted[0], "noise-model"), "signal");
  EXPECT_EQ(doubles(gst_structure_get_value(posted[0], "noise-a")), std::vector<double>(3, 0.5));
  EXPECT_EQ(doubles(gst_structure_get_value(posted[0], "noise-b")), std::vector<double>(3, 4.0));
  const GValue* curves = gst_structure_get_value(posted[0], "noise-curve");
  ASSERT_NE(curves, nullptr);
  ASSERT_EQ(gst_value_array_get_size(curves), 3u);
  const GValue* luma = gst_value_array_get_value(curves, 0);
  ASSERT_EQ(gst_value_array_get_size(luma), 3u);
  const std::vector<double> point = doubles(gst_value_array_get_value(luma, 1));
  ASSERT_EQ(point.size(), 2u);
  EXPECT_DOUBLE_EQ(point[0], 128.0);
  EXPECT_NEAR(point[1], std::sqrt(0.5 * 128 + 4), 1e-9);
  for (GstStructure* s : posted) gst_structure_free(s);

  // A new profile: the next frame posts it.
  GstElement* e = element_of(hs);
  g_object_set(e, "noise-profile", profile("second.json", 2, 2).c_str(), nullptr);
  denoise(hs, info, make_frame(info, 30));
  posted = noise_messages(bus);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(doubles(gst_structure_get_value(posted[0], "noise-a")), std::vector<double>(3, 2.0));
  EXPECT_EQ(doubles(gst_structure_get_value(posted[0], "noise-b")), std::vector<double>(3, 2.0));
  for (GstStructure* s : posted) gst_structure_free(s);

  // The constant model's message says so, without a model.
  g_object_set(e, "noise-model", 0, "noise-profile", "", nullptr);
  denoise(hs, info, make_frame(info, 31));
  posted = noise_messages(bus);
  ASSERT_FALSE(posted.empty());
  EXPECT_STREQ(gst_structure_get_string(posted[0], "noise-model"), "constant");
  EXPECT_FALSE(gst_structure_has_field(posted[0], "noise-a"));
  for (GstStructure* s : posted) gst_structure_free(s);

  gst_object_unref(e);
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}
