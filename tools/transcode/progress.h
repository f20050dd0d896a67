// progress.h: what the user sees while and after it runs: the progress line on
// a terminal (frame=, fps=, speed=, elapsed=, eta=), the path taken, and the
// final summary as text or as one JSON line.
#pragma once

#include <chrono>
#include <string>

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
  std::string output;   // "" for -f null
  std::string gpu;      // device name, "" without
  long long host_copies = 0;  // host frames the CUDA filter had to upload
  long long downloads = 0;    // frames downloaded for a CPU encoder
  double fps() const { return seconds > 0 ? frames / seconds : 0; }
};

class Progress {
 public:
  // `show`: draw the line (stderr is a terminal and not --quiet). duration and
  // total_frames (<= 0: unknown) give the ETA.
  Progress(bool show, double duration_seconds, long long total_frames);
  // At most a few times a second.
  void update(long long frames, double media_seconds);
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

// {"frames":..,"seconds":..,"fps":..,"decode":..,"filter":..,"encode":..,"output":..,...}
std::string summary_json(const Summary& s);
// "30 frames in 1.20 s (25.0 fps, 0.83x): decode software, filter cpu, encode libx264 -> out.mkv"
std::string summary_text(const Summary& s);

}  // namespace cdn::transcode
