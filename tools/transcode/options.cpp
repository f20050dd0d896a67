// options.cpp: cudadenoise-transcode's flags (options.h).
#include "options.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "cudadenoise/backend.h"
#include "cudadenoise/error.h"
#include "cudadenoise/presets.h"
#include "flags.h"

namespace cdn::transcode {

using tools::FlagParser;
using tools::UsageError;

namespace {

std::string preset_jobs() {
  std::string out;
  for (const Preset* p : available_presets()) out += (out.empty() ? "" : "; ") + std::string(p->name) + " = " + p->job;
  return out;
}

// x264's preset names; NVENC gets the matching p1..p7 (encoder.cpp).
const std::vector<std::string> kPresets = {"ultrafast", "superfast", "veryfast", "faster", "fast",
                                           "medium",    "slow",      "slower",   "veryslow", "placebo"};

struct Parser {
  FlagParser flags;
  TranscodeOptions o;
  std::string backend = "auto", planes = planes_name(DenoiseSettings{}.planes), preset = default_preset_name();
  bool yes = false, no = false, no_denoise = false;

  Parser() {
    flags.add_string("-i,--input", "INPUT", "the video file to denoise ('-' or pipe:0: standard input)", &o.input);
    flags.add_string("-o,--output", "OUTPUT",
                     "where to write the result; written to a temporary file beside it and renamed at the end "
                     "('-' or pipe:1: standard output, Matroska unless -f; -f yuv4mpegpipe: raw y4m frames)",
                     &o.output);
    flags.add_string("-f,--format", "NAME",
                     "output container (muxer) name, e.g. matroska, mp4, mov (default: from OUTPUT's extension); "
                     "'null' writes nothing and skips encoding (for timing decode + denoise)",
                     &o.format);
    flags.add("--preset", preset_choices() + "|ultrafast..placebo",
              "denoiser preset (docs/PRESETS.md; default " + preset +
                  "), every denoiser flag given overrides it: " + preset_jobs() +
                  "; an x264 preset name (ultrafast ... placebo) is taken as --encoder-preset, as before",
              [this](const std::string& flag, const std::string& v) {
                for (const auto& p : kPresets)
                  if (v == p) {
                    o.preset = v;
                    return;
                  }
                if (!find_preset(v))
                  throw UsageError(flag + ": '" + v + "' is not one of " + preset_choices() + " (denoiser) or ultrafast ... placebo (encoder)");
                preset = v;
              });
    flags.add("--mode", mode_choices(),
              std::string("denoising algorithm (default: the preset's, ") + mode_name(SettingsChoice().resolve().mode) + ")",
              [this](const std::string& flag, const std::string& v) {
                if (!parse_mode(v, &o.settings.mode)) throw UsageError(flag + ": '" + v + "' is not one of " + mode_choices());
              });
    flags.add_param_flags(&o.settings);
    flags.add_noise_profile_flag(&o.settings);
    flags.add_choice("--planes", {"luma", "all"}, "components to filter: Y only, or Y, U and V", &planes);
    flags.add_switch("--no-denoise", "decode and re-encode without denoising (a baseline for timing)", &no_denoise);
    flags.add_choice("--codec", {"h264", "hevc"}, "output video codec", &o.codec);
    flags.add_number("--crf", "N",
                     "constant quality, 0..51, lower is better (x264/x265 crf, NVENC cq; default: 23 for h264, "
                     "28 for hevc)",
                     0, 51, &o.crf);
    flags.add("--bitrate", "B", "average bit rate instead of --crf, e.g. 4M or 2500k",
              [this](const std::string& flag, const std::string& v) { o.bitrate = parse_bitrate(flag, v); });
    flags.add_switch("--lossless", "mathematically lossless video (x264 qp 0, x265 lossless, NVENC tune lossless)",
                     &o.lossless);
    std::string preset_list;
    for (const auto& p : kPresets) preset_list += (preset_list.empty() ? "" : "|") + p;
    flags.add("--encoder-preset", "P",
              "encoder speed/quality preset: " + preset_list + " (NVENC: mapped to p1..p7; default medium)",
              [this](const std::string& flag, const std::string& v) {
                for (const auto& p : kPresets)
                  if (v == p) {
                    o.preset = v;
                    return;
                  }
                throw UsageError(flag + ": '" + v + "' is not a preset (ultrafast ... placebo)");
              });
    flags.add("--gpu", "N[,N...]",
              "CUDA device index (default 0); with several, --mode nlm3d or vbm3d spreads its chunks over them (decoding, "
              "encoding and the per-frame modes use the first)",
              [this](const std::string& flag, const std::string& v) {
                std::string why;
                if (!parse_cuda_device_list(v, &o.gpus, &why) || o.gpus.empty())
                  throw UsageError(flag + ": " + (why.empty() ? "give a CUDA device index" : why));
                o.gpu = o.gpus.front();
              });
    flags.add_choice("--backend", {"auto", "cuda", "cpu"},
                     "auto: NVDEC + CUDA (+ NVENC) when a GPU is usable, else the CPU; cuda: fail without a GPU; "
                     "cpu: never touch the GPU",
                     &backend);
    flags.add_uint64("--frames", "N", "stop after N video frames (other streams stop where reading stopped)",
                     &o.max_frames);
    flags.add("--range", "A:B",
              "write frames A to B-1 of the input only (0-based, in presentation order), video only: one piece "
              "of a longer job that concatenates without re-encoding (cudadenoise-farm); the frames a temporal "
              "mode's window needs around the range are decoded and filtered but not written",
              [this](const std::string& flag, const std::string& v) { parse_range(flag, v, &o.range_begin, &o.range_end); });
    flags.add_string("--manifest", "FILE",
                     "write one JSON line describing the written video to FILE: frames, first and last timestamps, "
                     "the MD5 of each frame as decoding OUTPUT gives it (ffmpeg -f framemd5's) and of them all, "
                     "and of each video packet in it (-c copy -f framemd5's); OUTPUT is read back for it before "
                     "it gets its name, so not a pipe",
                     &o.manifest);
    flags.add_switch("-y", "overwrite OUTPUT if it exists", &yes);
    flags.add_switch("-n", "never overwrite OUTPUT: fail if it exists (the default without -y)", &no);
    flags.add_switch("--autorotate",
                     "turn the picture upright as the input's display matrix says (a phone clip's rotate 90) and "
                     "drop the matrix, as ffmpeg -autorotate does; without it the matrix is kept (MP4/MOV)",
                     &o.autorotate);
    flags.add_switch("--fail-on-decode-error,-xerror",
                     "stop with exit 3 at the first decode error (a damaged packet or frame; by default FFmpeg "
                     "conceals them and they are counted, reported and put in --json)",
                     &o.fail_on_decode_error);
    flags.add_switch("-q,--quiet", "print nothing but errors (and the --json line)", &o.quiet);
    flags.add_switch("--json",
                     "print one JSON line with the result on stdout at the end (stderr when OUTPUT is stdout); on "
                     "failure {\"error\":...,\"code\":...}",
                     &o.json);
    flags.add_switch("-v,--verbose", "show FFmpeg's own log (decoder, encoder and muxer messages)", &o.verbose);
    flags.add_switch("-h,--help", "show this help", &o.help);
  }

  void parse(int argc, const char* const* argv) {
    const std::vector<std::string> positional = flags.parse(argc, argv);
    if (o.help) return;
    if (!positional.empty())
      throw UsageError("unexpected argument '" + positional[0] + "' (give the input with -i and the output with -o)");
    if (o.input.empty()) throw UsageError("no input: give -i INPUT");
    if (o.output.empty() && !o.null_output()) throw UsageError("no output: give -o OUTPUT");
    if (yes && no) throw UsageError("-y and -n exclude each other");
    o.overwrite = yes ? Overwrite::Yes : (no ? Overwrite::No : Overwrite::Refuse);
    if (flags.was_set("--crf") && o.bitrate > 0) throw UsageError("--crf and --bitrate exclude each other");
    if (o.lossless && (flags.was_set("--crf") || o.bitrate > 0))
      throw UsageError("--lossless excludes --crf and --bitrate");
    if (flags.was_set("--frames") && o.max_frames == 0) throw UsageError("--frames: 0 frames: give at least 1");
    if (o.has_range() && o.max_frames > 0) throw UsageError("--range and --frames exclude each other");
    if (o.has_range() && tools::is_pipe_name(o.input))
      throw UsageError("--range needs a seekable INPUT, not standard input");
    if (!o.manifest.empty() && (o.null_output() || o.format == "yuv4mpegpipe"))
      throw UsageError("--manifest describes encoded video: not with -f " + o.format);
    if (!o.manifest.empty() && tools::is_pipe_name(o.output))
      throw UsageError("--manifest reads OUTPUT back once it is written: not with a pipe (" + o.output + ")");
    o.denoise = !no_denoise;
    parse_backend(backend, &o.backend);
    parse_planes(planes, &o.settings.planes);
    o.denoise_preset = preset;
    o.settings = tools::settings_with_preset(flags, preset, o.settings);
    // sigma auto is tracked over the frames (kernels/include/cudadenoise/noise_tracker.h): its value
    // at frame A depends on every frame before A, so a piece could not equal the
    // same frames of a whole run. cudadenoise-farm passes --sigma (docs/FARM.md).
    // A signal or curve model is given by a noise profile or --noise-a/--noise-b
    // (no --sigma then), or estimated like sigma.
    const bool constant = o.settings.noise_model == NoiseModelKind::Constant;
    const bool estimated = constant ? o.settings.sigma <= 0 : !o.settings.noise_profile && o.settings.noise_a < 0;
    if (o.has_range() && o.denoise && uses_sigma(o.settings.mode) && estimated)
      throw UsageError(std::string("--range with mode ") + mode_name(o.settings.mode) +
                       (constant ? " needs --sigma: the automatic noise level"
                                 : std::string(" and --noise-model ") + noise_model_name(o.settings.noise_model) +
                                       " needs --noise-profile (or --noise-a and --noise-b): the estimated model") +
                       " is tracked over every earlier frame, so a piece cut from the middle could not equal a whole "
                       "run");
  }
};

}  // namespace

std::string mode_choices() {
  std::string list;
  for (Mode m : all_modes()) list += (list.empty() ? "" : "|") + std::string(mode_name(m));
  return list;
}

void parse_range(const std::string& flag, const std::string& text, std::int64_t* begin, std::int64_t* end) {
  const std::size_t colon = text.find(':');
  const auto bad = [&]() { return UsageError(flag + ": '" + text + "' is not a frame range A:B (0 <= A < B)"); };
  if (colon == std::string::npos) throw bad();
  const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  for (const std::string& part : {a, b})
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 15) throw bad();
  *begin = std::stoll(a);
  *end = std::stoll(b);
  if (*begin >= *end) throw bad();
}

std::int64_t parse_bitrate(const std::string& flag, const std::string& text) {
  if (text.empty()) throw UsageError(flag + ": '' is not a bit rate");
  double scale = 1;
  std::string number = text;
  switch (text.back()) {
    case 'k': case 'K': scale = 1e3; number.pop_back(); break;
    case 'm': case 'M': scale = 1e6; number.pop_back(); break;
    case 'g': case 'G': scale = 1e9; number.pop_back(); break;
    default: break;
  }
  double v = 0;
  try {
    v = tools::parse_number(flag, number, false, 0, 1e12);
  } catch (const UsageError&) {
    throw UsageError(flag + ": '" + text + "' is not a bit rate (e.g. 4M, 2500k, 800000)");
  }
  const double bits = std::round(v * scale);
  if (bits < 1000 || bits > 1e10)
    throw UsageError(flag + ": " + text + " is out of range [1k, 10G] bits per second");
  return static_cast<std::int64_t>(bits);
}

TranscodeOptions parse_transcode_options(int argc, const char* const* argv) {
  Parser p;
  p.parse(argc, argv);
  return p.o;
}

std::string transcode_usage() {
  return "Usage: cudadenoise-transcode -i INPUT -o OUTPUT [options]\n"
         "\n"
         "Denoises the video stream of INPUT with one of the library's modes (--mode)\n"
         "and writes OUTPUT, the video re-encoded as H.264 or HEVC. Audio, subtitles,\n"
         "cover art and other streams are copied untouched; timestamps, time base, frame\n"
         "rate, frame count, metadata, rotation (display matrix), colour range, matrix,\n"
         "primaries and transfer, and the field order of interlaced video (filtered\n"
         "field by field) are kept. With a CUDA GPU the frames are decoded by NVDEC, denoised and encoded\n"
         "by NVENC without leaving the GPU; where NVENC is missing (H100, H200) the\n"
         "denoised frames are encoded by libx264/libx265 on the CPU; where NVDEC cannot\n"
         "decode the codec, or there is no GPU, decoding (and without a GPU denoising)\n"
         "runs on the CPU. The path taken is printed (and in --json).\n"
         "\n"
         "Options:\n" +
         Parser().flags.help() +
         "\n"
         "Exit status:\n"
         "  0    success\n"
         "  2    bad arguments or parameter values, or a frame size --codec cannot\n"
         "       encode (checked before decoding; docs/TRANSCODE.md, 'Frame size')\n"
         "  3    input missing, unreadable, corrupt or truncated, or a decode error\n"
         "       with --fail-on-decode-error (without it they are counted and reported)\n"
         "  4    no decoder for the input's video codec, or no encoder for --codec\n"
         "  5    output exists (without -y), or cannot be created or written\n"
         "  6    GPU/CUDA failure, or --backend cuda with no CUDA device\n"
         "  130  interrupted (Ctrl-C; 143 for SIGTERM)\n"
         "  1    anything else\n"
         "On any failure the output file is left as it was: nothing is written under its\n"
         "name until the transcode has finished.\n"
         "\n"
         "Examples:\n"
         "  cudadenoise-transcode -i noisy.mkv -o clean.mkv\n"
         "  cudadenoise-transcode -i in.mp4 -o out.mp4 --preset best --crf 20 --encoder-preset slow -y\n"
         "  cudadenoise-transcode -i in.mp4 -o out.mp4 --mode hybrid --strength 1.5 -y\n"
         "  cudadenoise-transcode -i in.mkv -o out.mkv --backend cpu --lossless --json\n"
         "  cudadenoise-transcode -i in.mp4 -f null --json          # decode + denoise speed\n";
}

}  // namespace cdn::transcode
