// test_options.cpp: cudadenoise-transcode's command line (tools/transcode/options.h),
// how its quality flags map onto each encoder (encoder_options.h) and the
// progress line (progress.h), and that docs/TRANSCODE.md names every mode. No FFmpeg.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cudadenoise/noise_profile.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/settings.h"
#include "encoder_options.h"
#include "flags.h"
#include "options.h"
#include "progress.h"

namespace {

using cdn::tools::UsageError;
using namespace cdn::transcode;

struct Args {
  explicit Args(std::initializer_list<const char*> a) : v{"cudadenoise-transcode"} {
    v.insert(v.end(), a.begin(), a.end());
  }
  std::vector<const char*> v;
};

TranscodeOptions parse(std::initializer_list<const char*> a) {
  const Args args(a);
  return parse_transcode_options(static_cast<int>(args.v.size()), args.v.data());
}

std::string usage_error(std::initializer_list<const char*> a) {
  try {
    parse(a);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(TranscodeOptions, Defaults) {
  const TranscodeOptions o = parse({"-i", "in.mkv", "-o", "out.mkv"});
  EXPECT_EQ(o.input, "in.mkv");
  EXPECT_EQ(o.output, "out.mkv");
  // The default preset (docs/PRESETS.md): BM3D rapid, sigma measured.
  EXPECT_EQ(o.denoise_preset, cdn::default_preset_name());
  EXPECT_EQ(o.settings.mode, cdn::Mode::Bm3d);
  EXPECT_EQ(o.settings.bm3d.profile, cdn::Bm3dProfile::Rapid);
  EXPECT_DOUBLE_EQ(o.settings.sigma, 0);
  EXPECT_EQ(o.settings.planes, cdn::PlaneSelection::All);
  EXPECT_EQ(o.backend, cdn::Backend::Auto);
  EXPECT_EQ(o.codec, "h264");
  EXPECT_LT(o.crf, 0);
  EXPECT_EQ(o.bitrate, 0);
  EXPECT_EQ(o.gpu, 0);
  EXPECT_EQ(o.max_frames, 0u);
  EXPECT_EQ(o.overwrite, Overwrite::Refuse);
  EXPECT_TRUE(o.denoise);
  EXPECT_FALSE(o.null_output());
}

TEST(TranscodeOptions, EveryFlag) {
  const TranscodeOptions o =
      parse({"--input=a.mp4", "--output", "b.mov", "--mode", "hybrid", "--tmax", "1.5", "--segment-length", "4",
             "--max-length", "20", "--planes", "luma", "--codec", "hevc", "--crf", "19.5", "--preset", "slow",
             "--gpu", "2", "--backend", "cpu", "--frames", "100", "-y", "--quiet", "--json", "-v"});
  EXPECT_EQ(o.input, "a.mp4");
  EXPECT_EQ(o.output, "b.mov");
  EXPECT_EQ(o.settings.mode, cdn::Mode::Hybrid);
  EXPECT_DOUBLE_EQ(o.settings.pipd.tmax, 1.5);
  EXPECT_EQ(o.settings.pipd.segment_length, 4);
  EXPECT_EQ(o.settings.pipd.max_length, 20);
  EXPECT_EQ(o.settings.planes, cdn::PlaneSelection::Luma);
  EXPECT_EQ(o.codec, "hevc");
  EXPECT_DOUBLE_EQ(o.crf, 19.5);
  EXPECT_EQ(o.preset, "slow");
  EXPECT_EQ(o.gpu, 2);
  EXPECT_EQ(o.gpus, std::vector<int>{2});
  EXPECT_EQ(o.backend, cdn::Backend::Cpu);
  EXPECT_EQ(o.max_frames, 100u);
  EXPECT_EQ(o.overwrite, Overwrite::Yes);
  EXPECT_TRUE(o.quiet && o.json && o.verbose);
}

TEST(TranscodeOptions, SeveralGpusForTheTemporalMode) {
  const TranscodeOptions o = parse({"-i", "a", "-o", "b", "--mode", "nlm3d", "--gpu", "1,0,1"});
  EXPECT_EQ(o.gpu, 1) << "the first device decodes and encodes";
  EXPECT_EQ(o.gpus, (std::vector<int>{1, 0, 1}));
}

TEST(TranscodeOptions, EveryModeOfTheLibraryIsAccepted) {
  // --mode goes through cdn::parse_mode: modes added to the library appear by themselves.
  const std::string choices = mode_choices();
  EXPECT_EQ(choices.rfind("pipd|hybrid", 0), 0u) << choices;
  for (cdn::Mode m : cdn::all_modes())
    EXPECT_NE(("|" + choices + "|").find(std::string("|") + cdn::mode_name(m) + "|"), std::string::npos) << choices;
  std::size_t start = 0;
  for (std::size_t bar; start <= choices.size(); start = bar + 1) {
    bar = choices.find('|', start);
    if (bar == std::string::npos) bar = choices.size();
    const std::string name = choices.substr(start, bar - start);
    cdn::Mode m;
    ASSERT_TRUE(cdn::parse_mode(name, &m)) << name;
    EXPECT_EQ(parse({"-i", "a", "-o", "b.mkv", "--mode", name.c_str()}).settings.mode, m);
  }
}

TEST(TranscodeOptions, NullFormatNeedsNoOutput) {
  const TranscodeOptions o = parse({"-i", "a.mkv", "-f", "null", "--no-denoise", "-n"});
  EXPECT_TRUE(o.null_output());
  EXPECT_FALSE(o.denoise);
  EXPECT_EQ(o.overwrite, Overwrite::No);
}

TEST(TranscodeOptions, Range) {
  const TranscodeOptions o =
      parse({"-i", "a.mkv", "-o", "p.mkv", "--range", "250:500", "--manifest", "p.json", "--sigma", "12"});
  EXPECT_TRUE(o.has_range());
  EXPECT_EQ(o.range_begin, 250);
  EXPECT_EQ(o.range_end, 500);
  EXPECT_EQ(o.manifest, "p.json");
  EXPECT_FALSE(parse({"-i", "a.mkv", "-o", "b.mkv"}).has_range());
  const std::string bad = "--range: '%' is not a frame range A:B (0 <= A < B)";
  for (const char* text : {"5:5", "6:5", "5", ":5", "5:", "-1:5", "a:b", "1:2:3", " 1:2"}) {
    std::string want = bad;
    want.replace(want.find('%'), 1, text);
    EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--range", text}), want);
  }
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--range", "0:5", "--frames", "3"}),
            "--range and --frames exclude each other");
  EXPECT_EQ(usage_error({"-i", "-", "-o", "b", "--range", "0:5"}),
            "--range needs a seekable INPUT, not standard input");
  // The default preset's bm3d tracks sigma auto over every earlier frame: a piece needs a given sigma.
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--range", "5:9"}),
            "--range with mode bm3d needs --sigma: the automatic noise level is tracked over every earlier frame, "
            "so a piece cut from the middle could not equal a whole run");
  EXPECT_TRUE(parse({"-i", "a", "-o", "b", "--range", "5:9", "--mode", "pipd"}).has_range());
  EXPECT_EQ(usage_error({"-i", "a", "-f", "null", "--manifest", "m.json"}),
            "--manifest describes encoded video: not with -f null");
}

TEST(TranscodeOptions, Errors) {
  EXPECT_EQ(usage_error({"-o", "b.mkv"}), "no input: give -i INPUT");
  EXPECT_EQ(usage_error({"-i", "a.mkv"}), "no output: give -o OUTPUT");
  EXPECT_EQ(usage_error({"-i", "a.mkv", "-o", "b.mkv", "extra"}),
            "unexpected argument 'extra' (give the input with -i and the output with -o)");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "-y", "-n"}), "-y and -n exclude each other");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--crf", "20", "--bitrate", "1M"}),
            "--crf and --bitrate exclude each other");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--lossless", "--crf", "0"}), "--lossless excludes --crf and --bitrate");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--frames", "0"}), "--frames: 0 frames: give at least 1");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--gpu", "-1"}),
            "--gpu: '-1' in '-1' is not a CUDA device index (0 to 63, commas between)");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--gpu", "0,x"}),
            "--gpu: 'x' in '0,x' is not a CUDA device index (0 to 63, commas between)");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--gpu", "64"}),
            "--gpu: '64' in '64' is not a CUDA device index (0 to 63, commas between)");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--codec", "av1"}), "--codec: 'av1' is not one of h264|hevc");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--mode", "x"}), "--mode: 'x' is not one of " + mode_choices());
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--preset", "p4"}),
            "--preset: 'p4' is not one of " + cdn::preset_choices() + " (denoiser) or ultrafast ... placebo (encoder)");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--encoder-preset", "p4"}),
            "--encoder-preset: 'p4' is not a preset (ultrafast ... placebo)");
  EXPECT_NE(usage_error({"-i", "a", "-o", "b", "--bm3d-window", "20"}).find("expected an odd number"),
            std::string::npos);
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--tmax", "101"}), "--tmax: 101 is out of range [0, 100]");
}

TEST(TranscodeOptions, DenoiserPresetAndFlagsOverIt) {
  TranscodeOptions o = parse({"-i", "a", "-o", "b", "--bm3d-profile", "reference", "--preset", "draft"});
  EXPECT_EQ(o.denoise_preset, "draft");
  EXPECT_EQ(o.settings.bm3d.profile, cdn::Bm3dProfile::Reference) << "a flag given wins over the preset";
  o = parse({"-i", "a", "-o", "b", "--preset", "isoline", "--strength", "1.5"});
  EXPECT_EQ(o.settings.mode, cdn::Mode::Hybrid);
  EXPECT_EQ(o.settings.pipd.thickness, 3);
  EXPECT_DOUBLE_EQ(o.settings.strength, 1.5);
  // An x264 preset name is the encoder's, as before --encoder-preset existed.
  o = parse({"-i", "a", "-o", "b", "--preset", "slow"});
  EXPECT_EQ(o.preset, "slow");
  EXPECT_EQ(o.denoise_preset, cdn::default_preset_name());
  o = parse({"-i", "a", "-o", "b", "--encoder-preset", "fast", "--preset", "best"});
  EXPECT_EQ(o.preset, "fast");
  EXPECT_EQ(o.settings.bm3d.profile, cdn::Bm3dProfile::Balanced);
}

TEST(TranscodeOptions, Bitrates) {
  EXPECT_EQ(parse_bitrate("--bitrate", "4M"), 4000000);
  EXPECT_EQ(parse_bitrate("--bitrate", "2500k"), 2500000);
  EXPECT_EQ(parse_bitrate("--bitrate", "1.5M"), 1500000);
  EXPECT_EQ(parse_bitrate("--bitrate", "800000"), 800000);
  EXPECT_THROW(parse_bitrate("--bitrate", "fast"), UsageError);
  EXPECT_THROW(parse_bitrate("--bitrate", "10"), UsageError);  // below 1k: surely a mistake
  EXPECT_THROW(parse_bitrate("--bitrate", ""), UsageError);
}

// docs/TRANSCODE.md lacked vbm3d in its --mode list (issue 33, item 12): every
// list of modes it gives names each of the library's modes.
TEST(TranscodeOptions, TheDocNamesEveryModeOfTheLibrary) {
  std::ifstream in(CDN_TRANSCODE_DOC);
  ASSERT_TRUE(in) << CDN_TRANSCODE_DOC;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  std::vector<std::string> lists;  // "--mode a|b|c" and the line that says what MODE is
  const std::regex mode_list("--mode ([a-z0-9]+(\\|[a-z0-9]+)+)"), mode_line("\nMODE is [^\n]*");
  for (std::sregex_iterator it(doc.begin(), doc.end(), mode_list), end; it != end; ++it) lists.push_back((*it)[1]);
  for (std::sregex_iterator it(doc.begin(), doc.end(), mode_line), end; it != end; ++it) lists.push_back((*it)[0]);
  ASSERT_FALSE(lists.empty()) << "no list of modes in " << CDN_TRANSCODE_DOC;
  for (const std::string& list : lists)
    for (cdn::Mode m : cdn::all_modes())
      EXPECT_TRUE(std::regex_search(list, std::regex(std::string("(^|[^a-z0-9])") + cdn::mode_name(m) + "([^a-z0-9]|$)")))
          << cdn::mode_name(m) << " is missing from: " << list;
}

TEST(TranscodeOptions, HelpListsEveryFlagAndExitCode) {
  const std::string help = transcode_usage();
  for (const char* s : {"-i, --input INPUT", "-o, --output OUTPUT", "--segment-length N", "--tmax X", "--planes",
                        "--lossless", "--encoder-preset P", "--preset standard|", "--strength X", "--json", "-y", "-n", "Exit status:", "130"})
    EXPECT_NE(help.find(s), std::string::npos) << s;
}

TEST(EncoderOptions, X264) {
  TranscodeOptions o;
  EncoderSettings s = encoder_settings("libx264", o);
  EXPECT_EQ(s.options.at("crf"), "23");
  EXPECT_EQ(s.options.count("preset"), 0u);
  o.crf = 18;
  o.preset = "veryfast";
  s = encoder_settings("libx264", o);
  EXPECT_EQ(s.options.at("crf"), "18");
  EXPECT_EQ(s.options.at("preset"), "veryfast");
  o.crf = -1;
  o.lossless = true;
  s = encoder_settings("libx264", o);
  EXPECT_EQ(s.options.at("qp"), "0");
  EXPECT_EQ(s.options.count("crf"), 0u);
  o.lossless = false;
  o.bitrate = 3000000;
  s = encoder_settings("libx264", o);
  EXPECT_EQ(s.bit_rate, 3000000);
  EXPECT_EQ(s.options.count("crf"), 0u);
}

TEST(EncoderOptions, X265) {
  TranscodeOptions o;
  o.codec = "hevc";
  EncoderSettings s = encoder_settings("libx265", o);
  EXPECT_EQ(s.options.at("crf"), "28");
  EXPECT_EQ(s.options.at("x265-params"), "log-level=error");
  o.lossless = true;
  s = encoder_settings("libx265", o);
  EXPECT_EQ(s.options.at("x265-params"), "log-level=error:lossless=1");
}

TEST(EncoderOptions, Nvenc) {
  TranscodeOptions o;
  EncoderSettings s = encoder_settings("h264_nvenc", o);
  EXPECT_EQ(s.options.at("preset"), "p4");
  EXPECT_EQ(s.options.at("rc"), "vbr");
  EXPECT_EQ(s.options.at("cq"), "23");
  o.preset = "ultrafast";
  o.lossless = true;
  s = encoder_settings("hevc_nvenc", o);
  EXPECT_EQ(s.options.at("preset"), "p1");
  EXPECT_EQ(s.options.at("tune"), "lossless");
  EXPECT_EQ(s.options.count("cq"), 0u);
  EXPECT_EQ(nvenc_preset("veryslow"), "p7");
  EXPECT_EQ(nvenc_preset("medium"), "p4");
}

TEST(Options, PipesDecodeErrorsAndJson) {
  TranscodeOptions o = parse({"-i", "-", "-o", "-"});
  EXPECT_TRUE(o.output_is_pipe());
  EXPECT_FALSE(o.fail_on_decode_error);
  EXPECT_TRUE(parse({"-i", "a.mkv", "-o", "pipe:1", "-xerror"}).fail_on_decode_error);
  EXPECT_TRUE(parse({"-i", "a.mkv", "-o", "b.mkv", "--fail-on-decode-error"}).fail_on_decode_error);
  EXPECT_FALSE(parse({"-i", "a.mkv", "-o", "b.mkv"}).output_is_pipe());
  EXPECT_FALSE(parse({"-i", "a.mkv", "-f", "null"}).output_is_pipe());
}

// The temporal mode gives frames back a chunk at a time: the ETA comes from
// the frames out so far, and while none has come out there is none.
TEST(Progress, LineAndEta) {
  EXPECT_EQ(progress_line(40, 0, 1.5, 0, 10, 300), "frame=     0 in=    40 fps=   0.0 speed= 0.00x elapsed=0:00:02 eta=?");
  EXPECT_EQ(progress_line(60, 48, 1.6, 1.6, 10, 300), "frame=    48 in=    60 fps=  30.0 speed= 1.00x elapsed=0:00:02 eta=0:00:08");
  EXPECT_EQ(progress_line(48, 48, 2.0, 2.0, 4.0, 0), "frame=    48 fps=  24.0 speed= 1.00x elapsed=0:00:02 eta=0:00:02");
  EXPECT_EQ(format_clock(3725), "1:02:05");
  EXPECT_EQ(format_clock(-1), "?");
}

}  // namespace

// Issue 37: --noise-profile reads the file when parsed; a file that cannot be
// read or is not a profile is a usage error with the library's message.
TEST(TranscodeOptions, NoiseProfile) {
  char dir[] = "/tmp/cdn-transcode-options-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string good = std::string(dir) + "/p.json", bad = std::string(dir) + "/bad.json";
  cdn::NoiseProfile p;
  for (int k = 0; k < 3; ++k) {
    cdn::NoiseModel m;
    m.a = 0.5, m.b = 4 + k, m.usable = true;
    p.planes.push_back(m);
  }
  cdn::save_noise_profile(p, good);
  std::ofstream(bad) << "[1, 2]";
  const TranscodeOptions o = parse({"-i", "a", "-o", "b", "--noise-model", "signal", "--noise-profile", good.c_str()});
  ASSERT_TRUE(o.settings.noise_profile);
  ASSERT_EQ(o.settings.noise_profile->planes.size(), 3u);
  EXPECT_DOUBLE_EQ(o.settings.noise_profile->planes[2].b, 6);
  EXPECT_EQ(o.settings.noise_model, cdn::NoiseModelKind::Signal);
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--noise-model", "signal", "--noise-profile", "/nonexistent/p.json"}),
            "--noise-profile: noise profile: cannot read /nonexistent/p.json");
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--noise-model", "signal", "--noise-profile", bad.c_str()}),
            "--noise-profile: " + bad + ": noise profile: no \"format\": \"cudadenoise-noise-profile\"");
  // The library's conflicts: a profile needs a signal or curve model.
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--noise-profile", good.c_str()}),
            "a noise profile needs noise-model=signal or noise-model=curve");
  // A given model is not tracked: a piece of a --range equals the whole run's frames.
  EXPECT_TRUE(parse({"-i", "a", "-o", "b", "--range", "5:9", "--noise-model", "signal", "--noise-profile",
                     good.c_str()})
                  .has_range());
  EXPECT_TRUE(parse({"-i", "a", "-o", "b", "--range", "5:9", "--noise-model", "signal", "--noise-a", "0.5",
                     "--noise-b", "4"})
                  .has_range());
  EXPECT_EQ(usage_error({"-i", "a", "-o", "b", "--range", "5:9", "--noise-model", "signal"}),
            "--range with mode bm3d and --noise-model signal needs --noise-profile (or --noise-a and --noise-b): the "
            "estimated model is tracked over every earlier frame, so a piece cut from the middle could not equal a "
            "whole run");
  std::filesystem::remove_all(dir);
}

// With a signal or curve model the summary gives the model, per component, in
// place of a sigma: in the text and in --json.
TEST(Progress, SummaryCarriesTheNoiseModel) {
  Summary s;
  s.frames = 3, s.decode = "software", s.filter = "cpu", s.encode = "libx264", s.output = "o.mkv";
  s.sigma = {2.0, 1.0, 1.0};
  s.sigma_estimated = true;
  EXPECT_NE(summary_json(s).find("\"noise_model\":null"), std::string::npos) << summary_json(s);
  EXPECT_EQ(summary_text(s).find("noise model"), std::string::npos) << summary_text(s);
  s.sigma.clear();
  s.noise_model = cdn::NoiseModelKind::Signal;
  s.noise_model_source = "profile";
  for (double b : {4.0, 3.0, 2.5}) {
    cdn::NoiseModel m;
    m.a = 0.5, m.b = b, m.usable = true;
    s.noise_models.push_back(m);
  }
  s.noise_models[0].levels.push_back({128, 68, 300});
  const std::string json = summary_json(s);
  EXPECT_NE(json.find("\"noise_model\":\"signal\",\"noise_model_source\":\"profile\",\"noise_models\":[{\"a\":0.5,"
                      "\"b\":4.0,\"curve\":[[128.0,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"a\":0.5,\"b\":2.5,\"curve\":[]}]"), std::string::npos) << json;
  EXPECT_NE(summary_text(s).find("; noise model signal, a 0.50/0.50/0.50, b 4.00/3.00/2.50 (profile)"),
            std::string::npos)
      << summary_text(s);
}
