// test_mode_registry.cpp: the mode registry (kernels/core/mode_spec.h) answers
// every question about a mode consistently, every registered mode runs through
// the one front door with the same stream semantics, and each frame's tag
// (cdn::FrameTag) comes back with that frame's output, for per-frame and
// temporal modes alike, through push/pop and through the pump.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/mode_spec.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/stream_denoiser.h"
#include "cudadenoise/stream_pump.h"
#include "stream/direct_stream.h"
#include "temporal/temporal_stream.h"

namespace cdn {
namespace {

TEST(ModeRegistry, EveryModeIsRegisteredOnceUnderItsName) {
  std::set<std::string> names;
  std::set<int> values;
  for (const ModeSpec* spec : mode_specs()) {
    SCOPED_TRACE(spec->name);
    EXPECT_TRUE(names.insert(spec->name).second) << "a name registered twice";
    EXPECT_TRUE(values.insert(static_cast<int>(spec->mode)).second) << "a mode registered twice";
    Mode parsed;
    ASSERT_TRUE(parse_mode(spec->name, &parsed));
    EXPECT_EQ(parsed, spec->mode);
    EXPECT_STREQ(mode_name(spec->mode), spec->name);
    EXPECT_NE(std::string(mode_description(spec->mode)), "");
    EXPECT_NE(spec->cpu_filter, nullptr) << "every mode has its CPU reference";
#ifdef CDN_HAVE_CUDA
    EXPECT_NE(spec->cuda_filter, nullptr) << "every mode has its CUDA kernels";
#endif
  }
  EXPECT_EQ(all_modes().size(), mode_specs().size());
  Mode m;
  EXPECT_FALSE(parse_mode("nosuch", &m));
}

TEST(ModeRegistry, ParameterGroupsNoiseAndWindowAgree) {
  for (Mode m : all_modes()) {
    SCOPED_TRACE(mode_name(m));
    const ModeSpec& spec = mode_spec(m);
    EXPECT_EQ(param_group_applies(ParamGroup::Noise, m), uses_sigma(m));
    EXPECT_EQ(param_group_applies(ParamGroup::Temporal, m), is_temporal(m));
    for (ParamGroup g : spec.groups) EXPECT_TRUE(param_group_applies(g, m));
    DenoiseSettings s;
    s.mode = m;
    s.window = TemporalWindow::Centred;
    const WindowShape w = window_shape(s);
    if (is_temporal(m)) {
      EXPECT_GT(w.before + w.after, 0) << "a temporal mode reads other frames";
    } else {
      EXPECT_EQ(w.before, 0);
      EXPECT_EQ(w.after, 0);
      EXPECT_EQ(w.chunk, 1);
      EXPECT_FALSE(has_causal_window(m));
    }
    if (has_causal_window(m) && causal_window_possible(s)) {
      s.window = TemporalWindow::Causal;
      EXPECT_EQ(window_shape(s).after, 0) << "a causal window reads no later frame";
    }
  }
}

// Every parameter's group applies to at least one registered mode: a parameter
// no mode reads would be a dead property of the element.
TEST(ModeRegistry, EveryParameterBelongsToAMode) {
  for (const ParamSpec& p : param_specs()) {
    bool used = false;
    for (Mode m : all_modes()) used = used || param_group_applies(p.group, m);
    EXPECT_TRUE(used) << p.name;
  }
}

// One convention for "the profile's value" (issue 34 item 6): every parameter
// that can take its profile's value takes it at kProfileValue (-1), under the
// word or the choice "profile", and defaults to it.
TEST(ModeRegistry, EveryProfileValueIsMinusOne) {
  const DenoiseSettings defaults;
  int profile_valued = 0;
  for (const ParamSpec& p : param_specs()) {
    const bool word = p.word && std::string(p.word) == "profile";
    const bool choice = p.choices && std::string(p.choices[0]) == "profile";
    if (!word && !choice) continue;
    SCOPED_TRACE(p.name);
    ++profile_valued;
    EXPECT_EQ(word ? p.word_value : p.min, kProfileValue);
    EXPECT_EQ(p.min, kProfileValue) << "nothing below the profile's marker";
    EXPECT_EQ(p.def, kProfileValue);
    EXPECT_EQ(p.get(defaults), kProfileValue) << "the struct's default is the table's";
    double v = 0;
    ASSERT_TRUE(param_value_from_text(p, "profile", &v));
    EXPECT_EQ(v, kProfileValue);
  }
  // bm3d-step, -window, -phases, -group1, -group2 and vbm3d's eight.
  EXPECT_EQ(profile_valued, 13);
}

HostFrame numbered_frame(int t) {
  HostFrame f(PixelFormat::I420, 32, 24);
  const auto c = components(f.view());
  for (std::size_t k = 0; k < c.size(); ++k)
    for (int y = 0; y < c[k].height; ++y)
      for (int x = 0; x < c[k].width; ++x) c[k].set(x, y, (x * 7 + y * 13 + t * 29 + static_cast<int>(k) * 5) % 200 + 20);
  return f;
}

DenoiseSettings small_settings(Mode m) {
  DenoiseSettings s;
  s.mode = m;
  s.sigma = 10;
  s.vbm3d.chunk = 3;
  s.nlm.chunk_size = 3;
  return s;
}

// Whether T has a member named causal.
template <typename T, typename = void>
struct HasCausal : std::false_type {};
template <typename T>
struct HasCausal<T, std::void_t<decltype(std::declval<T&>().causal)>> : std::true_type {};

// The window is stored once (issue 34 item 6), in DenoiseSettings::window: the
// modes' settings hold no copy of it; the registry resolves it and hands it to
// the mode, whose resolved parameters (NlmParams, Vbm3dParams) carry it.
TEST(ModeRegistry, TheWindowIsStoredOnce) {
  EXPECT_FALSE(HasCausal<PipdParams>::value);
  EXPECT_FALSE(HasCausal<NlmSettings>::value);
  EXPECT_FALSE(HasCausal<Bm3dSettings>::value);
  EXPECT_FALSE(HasCausal<Vbm3dSettings>::value);
  EXPECT_TRUE(HasCausal<NlmParams>::value);
  EXPECT_TRUE(HasCausal<Vbm3dParams>::value);
  EXPECT_TRUE(nlm_params(NlmSettings{}, true).causal);
  EXPECT_FALSE(nlm_params(NlmSettings{}, false).causal);
  EXPECT_TRUE(vbm3d_params(Vbm3dSettings{}, true).causal);
  EXPECT_FALSE(vbm3d_params(Vbm3dSettings{}, false).causal);
  // vbm3d's causal window searches twice the profile's radius back (the frame
  // aggregation given, whose reach is the radii's): the window=causal of
  // DenoiseSettings alone reaches the mode's parameters.
  DenoiseSettings s = small_settings(Mode::Vbm3d);
  s.vbm3d.aggregation = static_cast<int>(Vbm3dAggregation::Frame);
  s.window = TemporalWindow::Causal;
  EXPECT_EQ(window_shape(s).before, vbm3d_params(s.vbm3d, true).reach_before());
  EXPECT_NE(window_shape(s).before, vbm3d_params(s.vbm3d, false).reach_before());
}

// Frames out equal frames in, in order, each with the tag it was pushed with,
// for every mode (push/pop: per-frame modes through their own frames).
TEST(StreamTags, EveryModeHandsEachFrameItsTag) {
  const int n = 7;
  for (Mode m : all_modes()) {
    SCOPED_TRACE(mode_name(m));
    auto d = StreamDenoiser::create(Backend::Cpu, small_settings(m), PixelFormat::I420, 32, 24);
    HostFrame out(PixelFormat::I420, 32, 24);
    std::vector<int> got;
    auto pop_all = [&] {
      FrameTag tag;
      while (d->pop(out.view(), nullptr, &tag)) {
        ASSERT_NE(tag, nullptr);
        got.push_back(*static_cast<int*>(tag.get()));
      }
    };
    for (int t = 0; t < n; ++t) {
      d->push(numbered_frame(t).view(), nullptr, std::make_shared<int>(100 + t));
      pop_all();
    }
    d->finish();
    pop_all();
    ASSERT_EQ(static_cast<int>(got.size()), n);
    for (int t = 0; t < n; ++t) EXPECT_EQ(got[t], 100 + t);
    EXPECT_EQ(d->held(), 0);
  }
}

// The pump (feed, drain) gives the tags to the sink: per-frame modes at once
// (the input straight into the sink's frame), temporal ones when ready.
TEST(StreamTags, ThePumpGivesTheSinkEachFramesTag) {
  for (Mode m : all_modes()) {
    SCOPED_TRACE(mode_name(m));
    auto d = StreamDenoiser::create(Backend::Cpu, small_settings(m), PixelFormat::I420, 32, 24);
    HostFrame out(PixelFormat::I420, 32, 24);
    std::vector<int> got;
    FunctionSink sink([&] { return out.view(); },
                      [&](FrameTag tag) {
                        got.push_back(tag ? *static_cast<int*>(tag.get()) : -1);
                        return true;
                      });
    for (int t = 0; t < 5; ++t) feed(*d, numbered_frame(t).view(), sink, nullptr, std::make_shared<int>(t));
    drain(*d, sink);
    EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4}));
  }
}

// reset() (a flush) drops the held frames' tags, and so does the stream's end of
// life: nothing the caller attached outlives the frames.
TEST(StreamTags, ResetAndDestructionReleaseTheTags) {
  for (Mode m : all_modes()) {
    SCOPED_TRACE(mode_name(m));
    std::vector<std::weak_ptr<int>> watched;
    auto d = StreamDenoiser::create(Backend::Cpu, small_settings(m), PixelFormat::I420, 32, 24);
    for (int t = 0; t < 3; ++t) {
      auto tag = std::make_shared<int>(t);
      watched.push_back(tag);
      d->push(numbered_frame(t).view(), nullptr, tag);
    }
    d->reset();
    for (const auto& w : watched) EXPECT_TRUE(w.expired()) << "reset() kept a tag";
    watched.clear();
    auto tag = std::make_shared<int>(9);
    watched.push_back(tag);
    d->push(numbered_frame(0).view(), nullptr, std::move(tag));
    d.reset();
    EXPECT_TRUE(watched[0].expired()) << "the destroyed stream kept a tag";
  }
}

// No stream estimates a noise level on its own (the front door always gives
// one): a stream of a mode that takes one refuses to filter without it.
TEST(ModeRegistry, StreamsWithoutANoiseLevelRefuseToFilter) {
  HostFrame in = numbered_frame(0), out(PixelFormat::I420, 32, 24);
  auto direct = make_cpu_direct_stream(small_settings(Mode::Bm3d), PixelFormat::I420, 32, 24);
  EXPECT_THROW(direct->process(in.view(), out.view(), nullptr), Error);
  direct->set_noise({10, 10, 10});
  EXPECT_NO_THROW(direct->process(in.view(), out.view(), nullptr));
  auto pipd = make_cpu_direct_stream(small_settings(Mode::Pipd), PixelFormat::I420, 32, 24);
  EXPECT_NO_THROW(pipd->process(in.view(), out.view(), nullptr)) << "pipd takes no noise level";
  auto window = make_cpu_temporal_stream(small_settings(Mode::Vbm3d), PixelFormat::I420, 32, 24);
  EXPECT_THROW(window->push(in.view(), nullptr), Error);
}

}  // namespace
}  // namespace cdn
