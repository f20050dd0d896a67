// progress.h: what the user sees while and after it runs: the progress line on
// a terminal (frame=, fps=, speed=, elapsed=, eta=), the path taken, and the
// final summary as text or as one JSON line.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cudadenoise/noise_model.h"
#include "cudadenoise/settings.h"

namespace cdn::transcode {

// What a finished (or, for the progress line, running) transcode did.
struct Summary {
  long long frames = 0;
  double seconds = 0;   // wall clock
  double media_seconds = 0;
  std::string decode;   // nvdec | software
  std::string filter;   // cuda | cpu | none
  std::string encode;   // nvenc | libx264 | libx265 | none
  std::string codec;    // h264 | hevc
  std::string mode;
  std::string preset;   // the denoiser preset
  double strength = 1;
  std::vector<double> sigma;  // noise sigma per component (8-bit code values), before strength; empty: none
  bool sigma_estimated = false;  // sigma auto (measured on the frames) rather than given
  // With --noise-model signal or curve (then `sigma` is empty): the model's
  // kind, where it came from (noise_model_report.h: profile, given, estimated)
  // and each component's model, luma first, 8-bit code values.
  NoiseModelKind noise_model = NoiseModelKind::Constant;
  std::string noise_model_source;
  std::vector<NoiseModel> noise_models;  // empty: the constant model (or no sigma)
  std::string output;   // "" for -f null
  std::string gpu;      // device name, "" without
  long long host_copies = 0;  // host frames the CUDA filter had to upload
  long long downloads = 0;    // frames downloaded for a CPU encoder
  long long decode_errors = 0;  // damaged packets and frames FFmpeg concealed (decoder.h)
  std::vector<std::string> notes;  // what the output lost (HDR metadata the encoder or container cannot carry)
  double fps() const { return seconds > 0 ? frames / seconds : 0; }
};

class Progress {
 public:
  // `show`: draw the line (stderr is a terminal and not --quiet). duration and
  // total_frames (<= 0: unknown) give the ETA.
  Progress(bool show, double duration_seconds, long long total_frames);
  // At most a few times a second; the first call draws at once. frames_in:
  // decoded frames given to the filter; frames_out: denoised frames written
  // (fewer while a temporal mode fills its window). Call it after draining
  // the filter, not for each frame of a burst: a temporal mode gives back a
  // chunk of frames at once, and a line drawn at the first of them would show
  // one frame done and an ETA many times too long.
  void update(long long frames_in, long long frames_out, double media_seconds);
  // Ends the line (if one was drawn).
  void finish();
  double elapsed() const;

 private:
  bool show_;
  double duration_;
  long long total_frames_;
  std::chrono::steady_clock::time_point start_, last_;
  bool drawn_ = false;
};

// "0:01:02" (h:mm:ss), "?" for negative or non-finite.
std::string format_clock(double seconds);

// The progress line (without the leading '\r'):
// "frame=    48 fps=  30.0 speed= 1.00x elapsed=0:00:02 eta=0:00:08", with
// " in=    96" after frame= while frames are held. The ETA is the frames (of
// total_frames) or seconds (of duration) still to come at the rate so far; "?"
// while no frame has come out.
std::string progress_line(long long frames_in, long long frames_out, double elapsed, double media_seconds,
                          double duration, long long total_frames);

// {"frames":..,"seconds":..,"fps":..,"decode":..,"filter":..,"encode":..,"output":..,...}
std::string summary_json(const Summary& s);
// "3.02/1.10/1.05": per component, luma first.
std::string sigma_text(const std::vector<double>& sigma);
// "signal, a 0.50/0.50/0.50, b 4.00/4.00/4.00 (profile)": the summary's noise model.
std::string noise_model_text(const Summary& s);
// "30 frames in 1.20 s (25.0 fps, 0.83x): decode software, filter cpu, encode libx264 -> out.mkv"
std::string summary_text(const Summary& s);

}  // namespace cdn::transcode
