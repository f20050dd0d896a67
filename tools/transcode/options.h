// options.h: the command line of cudadenoise-transcode, parsed into
// TranscodeOptions. No FFmpeg in here, so the tests check parsing on its own.
// The denoiser's parameter flags come from cdn::param_specs() and --mode is
// parsed by cdn::parse_mode, so new parameters and modes appear by themselves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudadenoise/settings.h"
#include "output_path.h"

namespace cdn::transcode {

using Overwrite = tools::Overwrite;  // default (Refuse), -y, -n

struct TranscodeOptions {
  std::string input;
  std::string output;
  std::string format;  // muxer name (-f); empty: guessed from the output's name
  DenoiseSettings settings;        // the denoiser preset's, with the flags given on top
  std::string denoise_preset;      // --preset (a denoiser preset's name)
  bool denoise = true;  // --no-denoise: decode and re-encode only (a benchmark baseline)
  Backend backend = Backend::Auto;
  int gpu = 0;            // decoding, encoding, per-frame filtering: the first of --gpu
  std::vector<int> gpus;  // every device of --gpu (a temporal mode's lanes); empty: gpu alone
  std::string codec = "h264";  // h264 | hevc
  double crf = -1;             // < 0: not given
  std::int64_t bitrate = 0;    // bits per second; 0: not given
  bool lossless = false;
  std::string preset;  // --encoder-preset (x264-style name); empty: the encoder's default
  std::uint64_t max_frames = 0;  // 0: all
  // --range A:B: write frames [A, B) of the input only (one piece of a longer
  // job, cudadenoise-farm; range.h); range_begin < 0: the whole input.
  std::int64_t range_begin = -1, range_end = -1;
  std::string manifest;  // --manifest FILE: the piece's JSON description (piece_manifest.h); "": none
  Overwrite overwrite = Overwrite::Refuse;
  bool fail_on_decode_error = false;
  bool autorotate = false;  // --autorotate: apply the display matrix to the pixels (rotation.h)  // --fail-on-decode-error / -xerror: a damaged packet or frame is exit 3
  bool quiet = false;
  bool json = false;
  bool verbose = false;
  bool help = false;

  bool null_output() const { return format == "null"; }
  bool has_range() const { return range_begin >= 0; }
  // -o - or pipe:1: the result goes to standard output (and the --json line to stderr).
  bool output_is_pipe() const { return !null_output() && tools::is_pipe_name(output); }
};

// Throws tools::UsageError (flags.h) with a one-line message for anything
// wrong, including parameter combinations cdn::validate rejects.
TranscodeOptions parse_transcode_options(int argc, const char* const* argv);

// "4M", "2500k", "800000" (bits per second); throws UsageError naming `flag`.
std::int64_t parse_bitrate(const std::string& flag, const std::string& text);

// "A:B" (frame numbers, 0 <= A < B) into *begin, *end; throws UsageError naming `flag`.
void parse_range(const std::string& flag, const std::string& text, std::int64_t* begin, std::int64_t* end);

// The names --mode accepts ("pipd|hybrid|..."): the library's modes (cdn::all_modes).
std::string mode_choices();

// The --help text.
std::string transcode_usage();

}  // namespace cdn::transcode
