// test_flags.cpp: the flag parser (tools/common/flags.h), its parameter flags made
// from cdn::param_specs(), and cudadenoise-image's options (tools/image/options.h).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "cudadenoise/noise_profile.h"
#include "cudadenoise/presets.h"
#include "flags.h"
#include "options.h"

namespace {

using cdn::tools::FlagParser;
using cdn::tools::UsageError;

// argv for a parser: "prog" then the given arguments.
struct Args {
  explicit Args(std::initializer_list<const char*> a) : v{"prog"} { v.insert(v.end(), a.begin(), a.end()); }
  int argc() const { return static_cast<int>(v.size()); }
  const char* const* argv() const { return v.data(); }
  std::vector<const char*> v;
};

cdn::DenoiseSettings parse_params(std::initializer_list<const char*> a) {
  cdn::DenoiseSettings s;
  FlagParser p;
  p.add_param_flags(&s);
  const Args args(a);
  p.parse(args.argc(), args.argv());
  return s;
}

TEST(Flags, ParamFlagsSetTheSettings) {
  const cdn::DenoiseSettings s =
      parse_params({"--segment-length", "4", "--max-length=20", "--tmax", "2.5", "--t2max=0", "--thickness", "3",
                    "--direction-prefilter", "1"});
  EXPECT_EQ(s.pipd.segment_length, 4);
  EXPECT_EQ(s.pipd.max_length, 20);
  EXPECT_DOUBLE_EQ(s.pipd.tmax, 2.5);
  EXPECT_DOUBLE_EQ(s.pipd.t2max, 0.0);
  EXPECT_EQ(s.pipd.thickness, 3);
  EXPECT_EQ(s.pipd.direction_prefilter, 1);
  const cdn::DenoiseSettings d = parse_params({});
  EXPECT_EQ(d.pipd.segment_length, cdn::DenoiseSettings{}.pipd.segment_length);
}

TEST(Flags, ParamWordsStandForTheirValue) {
  for (const cdn::ParamSpec& spec : cdn::param_specs()) {
    if (!spec.word) continue;
    cdn::DenoiseSettings s;
    spec.set(s, spec.word_value == spec.max ? spec.min : spec.max);  // anything but the word's value
    FlagParser p;
    p.add_param_flags(&s);
    const std::string arg = std::string("--") + spec.name + "=" + spec.word;
    const Args args({arg.c_str()});
    p.parse(args.argc(), args.argv());
    EXPECT_EQ(spec.get(s), spec.word_value) << spec.name;
    EXPECT_NE(p.help().find(std::string("or ") + spec.word), std::string::npos) << spec.name;
  }
}

TEST(Flags, ChoiceParamsTakeTheirNames) {
  const cdn::DenoiseSettings s = parse_params({"--patch-shape", "2d", "--motion-search=on", "--distance-offset", "1"});
  EXPECT_EQ(s.nlm.patch_shape, cdn::NlmPatchShape::Planar);
  EXPECT_TRUE(s.nlm.motion_search);
  EXPECT_TRUE(s.nlm.distance_offset);
  EXPECT_EQ(parse_params({"--patch-shape=cube"}).nlm.patch_shape, cdn::NlmPatchShape::Cube);
  EXPECT_THROW(parse_params({"--patch-shape", "sphere"}), UsageError);
  EXPECT_THROW(parse_params({"--patch-shape", "2"}), UsageError);
  cdn::DenoiseSettings d;
  FlagParser p;
  p.add_param_flags(&d);
  EXPECT_NE(p.help().find("cube|2d"), std::string::npos) << p.help();
}


TEST(Flags, EnumeratedParamsTakeTheirNames) {
  int enumerated = 0;
  for (const cdn::ParamSpec& spec : cdn::param_specs()) {
    if (!spec.choices) continue;
    ++enumerated;
    for (int k = 0; spec.choices[k]; ++k) {
      cdn::DenoiseSettings s;
      FlagParser p;
      p.add_param_flags(&s);
      const std::string arg = std::string("--") + spec.name + "=" + spec.choices[k];
      const Args args({arg.c_str()});
      p.parse(args.argc(), args.argv());
      EXPECT_EQ(spec.get(s), spec.min + k) << arg;
      EXPECT_NE(p.help().find(spec.choices[k]), std::string::npos) << spec.name;
    }
    cdn::DenoiseSettings s;  // the numbers are still taken
    FlagParser p;
    p.add_param_flags(&s);
    const std::string arg = std::string("--") + spec.name + "=" + std::to_string(int(spec.max));
    const Args args({arg.c_str()});
    p.parse(args.argc(), args.argv());
    EXPECT_EQ(spec.get(s), spec.max) << arg;
  }
  EXPECT_GE(enumerated, 1) << "bm3d-profile";
  cdn::DenoiseSettings s;
  FlagParser p;
  p.add_param_flags(&s);
  const Args args({"--bm3d-profile", "reference"});
  p.parse(args.argc(), args.argv());
  EXPECT_EQ(s.bm3d.profile, cdn::Bm3dProfile::Reference);
  cdn::DenoiseSettings bad;
  FlagParser q;
  q.add_param_flags(&bad);
  const Args wrong({"--bm3d-profile", "best"});
  EXPECT_THROW(q.parse(wrong.argc(), wrong.argv()), UsageError);
}

TEST(Flags, BadValuesAreRejected) {
  for (auto bad : std::vector<std::vector<const char*>>{{"--tmax", "1000"},
                                                        {"--tmax", "-1"},
                                                        {"--segment-length", "2.5"},
                                                        {"--segment-length", "abc"},
                                                        {"--segment-length", "4x"},
                                                        {"--segment-length", ""},
                                                        {"--tmax", "nan"},
                                                        {"--tmax"},
                                                        {"--no-such-flag", "1"}}) {
    cdn::DenoiseSettings s;
    FlagParser p;
    p.add_param_flags(&s);
    std::vector<const char*> argv{"prog"};
    argv.insert(argv.end(), bad.begin(), bad.end());
    EXPECT_THROW(p.parse(static_cast<int>(argv.size()), argv.data()), UsageError) << bad[0];
  }
}

// parse_param_value, the one parser of a parameter's value (the parameter flags
// of every tool): words, choices, numbers in range.
TEST(Flags, ParamValuesTakeWordsChoicesAndNumbers) {
  using cdn::tools::parse_param_value;
  const cdn::ParamSpec* neighbour = cdn::find_param("neighbour-search-radius");
  const cdn::ParamSpec* motion = cdn::find_param("motion-search");
  const cdn::ParamSpec* confidence = cdn::find_param("frame-confidence");
  ASSERT_TRUE(neighbour && motion && confidence);
  EXPECT_EQ(parse_param_value(*neighbour, "f", "same"), -1.0);
  EXPECT_EQ(parse_param_value(*neighbour, "f", "3"), 3.0);
  EXPECT_EQ(parse_param_value(*motion, "f", "off"), 0.0);
  EXPECT_EQ(parse_param_value(*motion, "f", "on"), 1.0);
  EXPECT_EQ(parse_param_value(*motion, "f", "1"), 1.0);
  EXPECT_EQ(parse_param_value(*confidence, "f", "0.5"), 0.5);
  EXPECT_THROW(parse_param_value(*motion, "f", "maybe"), UsageError);
  EXPECT_THROW(parse_param_value(*neighbour, "f", "2.5"), UsageError) << "an integer parameter";
  try {
    parse_param_value(*confidence, "--settings fast:frame-confidence=11: frame-confidence", "11");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--settings fast:frame-confidence=11: frame-confidence: 11 is out of range [0, 10]");
  }
  // What a parameter takes, when the text is none of it: its word and choices too.
  const auto message = [](const cdn::ParamSpec& spec, const std::string& text) {
    try {
      parse_param_value(spec, "--f", text);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(*motion, "maybe"), "--f: 'maybe' is not a number, off or on");
  EXPECT_EQ(message(*neighbour, "x"), "--f: 'x' is not a number or same");
  EXPECT_EQ(message(*confidence, "x"), "--f: 'x' is not a number");
  EXPECT_EQ(message(*neighbour, "2.5"), "--f: '2.5' is not an integer");
  EXPECT_EQ(message(*neighbour, "11"), "--f: 11 is out of range [-1, 10]");
}

TEST(Flags, MessagesNameTheFlagAndRange) {
  try {
    parse_params({"--tmax", "1000"});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--tmax: 1000 is out of range [0, 100]");
  }
}

TEST(Flags, HelpListsEveryParameterWithRangeAndDefault) {
  cdn::DenoiseSettings s;
  FlagParser p;
  p.add_param_flags(&s);
  // Help text is word-wrapped: compare with runs of white space squashed to one space.
  std::string help;
  for (const char c : p.help())
    if (!std::isspace(static_cast<unsigned char>(c)))
      help += c;
    else if (!help.empty() && help.back() != ' ')
      help += ' ';
  for (const cdn::ParamSpec& spec : cdn::param_specs()) {
    EXPECT_NE(help.find(std::string("--") + spec.name), std::string::npos) << spec.name;
    EXPECT_NE(help.find(spec.blurb), std::string::npos) << spec.name;
  }
  EXPECT_NE(help.find("[2..8, default 5]"), std::string::npos) << help;
}

TEST(Flags, GroupFilterAddsOnlyThatGroupsFlags) {
  for (cdn::ParamGroup g : {cdn::ParamGroup::Pipd, cdn::ParamGroup::Hybrid, cdn::ParamGroup::Nlm}) {
    cdn::DenoiseSettings s;
    FlagParser p;
    p.add_param_flags(&s, g);
    for (const cdn::ParamSpec& spec : cdn::param_specs()) {
      const std::string flag = std::string("--") + spec.name;
      const std::string value = spec.word ? spec.word : (spec.integer ? std::to_string((int)spec.def) : "1");
      const Args args({flag.c_str(), value.c_str()});
      if (spec.group == g)
        EXPECT_NO_THROW(p.parse(args.argc(), args.argv())) << flag;
      else
        EXPECT_THROW(p.parse(args.argc(), args.argv()), UsageError) << flag << " is another group's";
    }
  }
  // The whole table, as before.
  cdn::DenoiseSettings s;
  FlagParser all;
  all.add_param_flags(&s);
  const Args args({"--thickness", "3", "--chunk-size", "7"});
  all.parse(args.argc(), args.argv());
  EXPECT_EQ(s.pipd.thickness, 3);
  EXPECT_EQ(s.nlm.chunk_size, 7);
}

TEST(Flags, HeadingsGoIntoHelpAndAreNotFlags) {
  bool a = false, b = false;
  FlagParser p;
  p.add_switch("--a", "first", &a);
  p.add_heading("More things");
  p.add_switch("--b", "second", &b);
  const std::string help = p.help();
  const auto heading = help.find("\nMore things:\n");
  ASSERT_NE(heading, std::string::npos) << help;
  EXPECT_LT(help.find("--a"), heading);
  EXPECT_GT(help.find("--b"), heading);
  const Args args({"More things"});
  EXPECT_EQ(p.parse(args.argc(), args.argv()), std::vector<std::string>{"More things"});
  EXPECT_EQ(cdn::tools::param_group_title(cdn::ParamGroup::Pipd), "Parameters of --mode pipd, hybrid");
  EXPECT_EQ(cdn::tools::param_group_title(cdn::ParamGroup::Nlm), "Parameters of --mode nlm3d");
  EXPECT_EQ(cdn::tools::param_group_title(cdn::ParamGroup::Hybrid), "Parameters of --mode hybrid");
}

TEST(Flags, SwitchesPositionalsAndDoubleDash) {
  bool json = false;
  std::string out;
  FlagParser p;
  p.add_switch("--json", "", &json);
  p.add_string("-o,--output", "PATH", "", &out);
  const Args args({"a.png", "-o", "b.png", "--json", "--", "--c.png"});
  const std::vector<std::string> pos = p.parse(args.argc(), args.argv());
  EXPECT_TRUE(json);
  EXPECT_EQ(out, "b.png");
  EXPECT_EQ(pos, (std::vector<std::string>{"a.png", "--c.png"}));
  EXPECT_TRUE(p.was_set("--output"));
  const Args bad({"--json=1"});
  EXPECT_THROW(p.parse(bad.argc(), bad.argv()), UsageError);
}

cdn::tools::ImageOptions image_options(std::initializer_list<const char*> a) {
  const Args args(a);
  return cdn::tools::parse_image_options(args.argc(), args.argv());
}

TEST(ImageOptions, BuiltinDefaultsToSigma25Seed1) {
  const auto o = image_options({});
  EXPECT_TRUE(o.input.empty());
  EXPECT_DOUBLE_EQ(o.noise_sigma, 25);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(o.backend, cdn::Backend::Auto);
  EXPECT_DOUBLE_EQ(image_options({"--builtin", "--add-noise", "0"}).noise_sigma, 0);
  const auto f = image_options({"in.png"});
  EXPECT_EQ(f.input, "in.png");
  EXPECT_DOUBLE_EQ(f.noise_sigma, 0);
}

TEST(ImageOptions, AllFlags) {
  const auto o = image_options({"in.pgm", "-o", "out.png", "--mode", "hybrid", "--planes", "luma", "--backend",
                                "cpu", "--add-noise", "15", "--seed", "99", "--save-noisy", "n.png", "--reference",
                                "r.png", "--json", "--segment-length", "4", "--max-length", "24"});
  EXPECT_EQ(o.output, "out.png");
  EXPECT_EQ(o.settings.mode, cdn::Mode::Hybrid);
  EXPECT_EQ(o.settings.planes, cdn::PlaneSelection::Luma);
  EXPECT_EQ(o.backend, cdn::Backend::Cpu);
  EXPECT_DOUBLE_EQ(o.noise_sigma, 15);
  EXPECT_EQ(o.seed, 99u);
  EXPECT_EQ(o.save_noisy, "n.png");
  EXPECT_EQ(o.reference, "r.png");
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.settings.pipd.max_length, 24);
}

TEST(ImageOptions, BadCombinationsAreUsageErrors) {
  EXPECT_THROW(image_options({"--mode", "bm4d"}), UsageError);
  EXPECT_THROW(image_options({"--backend", "gpu"}), UsageError);
  EXPECT_THROW(image_options({"--planes", "chroma"}), UsageError);
  EXPECT_NO_THROW(image_options({"--max-length", "24"}));  // 4 segments of 5: every length is valid
  EXPECT_THROW(image_options({"--bm3d-window", "20"}), UsageError);  // even
  EXPECT_THROW(image_options({"--thickness", "2"}), UsageError);
  EXPECT_THROW(image_options({"a.png", "b.png"}), UsageError);
  EXPECT_THROW(image_options({"--builtin", "a.png"}), UsageError);
  EXPECT_THROW(image_options({"a.png", "--save-noisy", "n.png"}), UsageError);
  EXPECT_THROW(image_options({"--seed", "-1"}), UsageError);
  EXPECT_THROW(image_options({"--add-noise", "-3"}), UsageError);
}

TEST(ImageOptions, UsageShowsParamFlags) {
  const std::string u = cdn::tools::image_usage();
  for (const cdn::ParamSpec& spec : cdn::param_specs())
    EXPECT_NE(u.find(std::string("--") + spec.name), std::string::npos) << spec.name;
  EXPECT_NE(u.find("Exit codes"), std::string::npos);
  // Every code the tool returns (tools/image/main.cpp's Exit), 1 included (issue 33, item 12).
  for (const char* code : {"0 success", "1 anything else", "2 bad arguments", "3 unreadable input",
                           "5 output exists", "6 CUDA error", "no CUDA device"})
    EXPECT_NE(u.find(code), std::string::npos) << code << "\n" << u;
}

TEST(ImageOptions, Nlm3dModeAndItsFlags) {
  const auto o = image_options({"in.png", "--mode", "nlm3d", "--search-radius", "3", "--temporal-radius", "0",
                                "--patch-radius", "2", "--sigma", "auto", "--nlm-beta", "0.7", "--chunk-size", "1"});
  EXPECT_EQ(o.settings.mode, cdn::Mode::Nlm3d);
  EXPECT_EQ(o.settings.nlm.search_radius, 3);
  EXPECT_EQ(o.settings.nlm.temporal_radius, 0);
  EXPECT_EQ(o.settings.nlm.patch_radius, 2);
  EXPECT_DOUBLE_EQ(o.settings.sigma, 0);
  EXPECT_DOUBLE_EQ(o.settings.nlm.beta, 0.7);
  EXPECT_EQ(o.settings.nlm.chunk_size, 1);
  EXPECT_DOUBLE_EQ(image_options({"--mode", "nlm3d", "--sigma", "12.5"}).settings.sigma, 12.5);
  EXPECT_THROW(image_options({"--mode", "nlm3d", "--search-radius", "0"}), UsageError);
}

// Every mode is offered, and each parameter flag sits under the heading of its
// group, which names the modes it applies to.
TEST(ImageOptions, UsageGroupsParamFlagsByMode) {
  const std::string u = cdn::tools::image_usage();
  for (cdn::Mode m : cdn::all_modes()) {
    EXPECT_NE(u.find(cdn::mode_name(m)), std::string::npos) << cdn::mode_name(m);
  }
  std::vector<std::pair<std::size_t, cdn::ParamGroup>> headings;
  for (cdn::ParamGroup g : {cdn::ParamGroup::Pipd, cdn::ParamGroup::Hybrid, cdn::ParamGroup::Nlm, cdn::ParamGroup::Bm3d,
                            cdn::ParamGroup::Vbm3d,
                            cdn::ParamGroup::Noise, cdn::ParamGroup::Temporal}) {
    const std::size_t at = u.find("\n" + cdn::tools::param_group_title(g) + ":\n");
    ASSERT_NE(at, std::string::npos) << cdn::tools::param_group_title(g) << " in\n" << u;
    headings.push_back({at, g});
  }
  std::sort(headings.begin(), headings.end());
  for (const cdn::ParamSpec& spec : cdn::param_specs()) {
    const std::size_t at = u.find(std::string("  --") + spec.name + " ");
    ASSERT_NE(at, std::string::npos) << spec.name;
    // The last heading before the flag is its group's.
    const cdn::ParamGroup* under = nullptr;
    for (const auto& [pos, g] : headings)
      if (pos < at) under = &g;
    ASSERT_NE(under, nullptr) << spec.name << " comes before every heading";
    EXPECT_EQ(*under, spec.group) << spec.name;
  }
}

}  // namespace

// Issue 37: --noise-profile, the one flag every tool with a settings path adds
// (transcode, image, eval denoise): the file is read when parsed, a bad one is
// a UsageError with the library's message, and settings_with_preset keeps the
// profile (it is not in the parameter table).
TEST(Flags, NoiseProfileFlagReadsTheFileIntoTheSettings) {
  char dir[] = "/tmp/cdn-flags-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string good = std::string(dir) + "/p.json", bad = std::string(dir) + "/bad.json";
  cdn::NoiseProfile profile;
  cdn::NoiseModel m;
  m.a = 0.5, m.b = 4, m.usable = true;
  profile.planes = {m};
  cdn::save_noise_profile(profile, good);
  std::ofstream(bad) << "{\"format\": \"cudadenoise-noise-profile\", \"version\": 1, \"planes\": []}";

  auto parse = [](const std::string& file, cdn::DenoiseSettings* s, FlagParser* p) {
    p->add_param_flags(s);
    p->add_noise_profile_flag(s);
    const Args args({"--noise-model", "signal", "--noise-profile", file.c_str()});
    p->parse(args.argc(), args.argv());
  };
  cdn::DenoiseSettings s;
  FlagParser p;
  parse(good, &s, &p);
  ASSERT_TRUE(s.noise_profile);
  ASSERT_EQ(s.noise_profile->planes.size(), 1u);
  EXPECT_DOUBLE_EQ(s.noise_profile->planes[0].a, 0.5);
  const cdn::DenoiseSettings run = cdn::tools::settings_with_preset(p, cdn::default_preset_name(), s);
  EXPECT_EQ(run.noise_profile, s.noise_profile) << "the preset's settings must keep the profile";
  EXPECT_EQ(run.noise_model, cdn::NoiseModelKind::Signal);

  for (const auto& c : {std::make_pair(std::string(dir) + "/missing.json", std::string("--noise-profile: noise profile: cannot read ") + dir + "/missing.json"),
                        std::make_pair(bad, "--noise-profile: " + bad + ": noise profile: \"planes\" must be a list of 1 to 4 planes")}) {
    cdn::DenoiseSettings t;
    FlagParser q;
    try {
      parse(c.first, &t, &q);
      ADD_FAILURE() << c.first << " was read";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), c.second);
    }
    EXPECT_FALSE(t.noise_profile);
  }
  std::filesystem::remove_all(dir);
}

TEST(ImageOptions, NoiseProfileFlags) {
  const Args args({"in.png", "--save-noise-profile", "out.json"});
  const cdn::tools::ImageOptions o = cdn::tools::parse_image_options(args.argc(), args.argv());
  EXPECT_EQ(o.save_noise_profile, "out.json");
  const std::string help = cdn::tools::image_usage();
  EXPECT_NE(help.find("--noise-profile FILE"), std::string::npos) << help;
  EXPECT_NE(help.find("--save-noise-profile OUT.json"), std::string::npos) << help;
  // --noise-profile sits with the noise model's parameters.
  EXPECT_LT(help.find("--noise-b"), help.find("--noise-profile FILE")) << help;
}
