// progress.cpp: the progress line and the summaries (progress.h).
#include "progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "json.h"
#include "noise_model_report.h"

namespace cdn::transcode {

Progress::Progress(bool show, double duration_seconds, long long total_frames)
    : show_(show), duration_(duration_seconds), total_frames_(total_frames),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string progress_line(long long frames_in, long long frames_out, double t, double media_seconds,
                          double duration, long long total_frames) {
  const double fps = t > 0 ? frames_out / t : 0;
  const double speed = t > 0 ? media_seconds / t : 0;
  double eta = -1;
  if (frames_out > 0 && total_frames > 0 && fps > 0)
    eta = std::max(0.0, (total_frames - frames_out) / fps);
  else if (frames_out > 0 && duration > 0 && speed > 0)
    eta = std::max(0.0, (duration - media_seconds) / speed);
  char held[32] = "";
  if (frames_in > frames_out) std::snprintf(held, sizeof held, " in=%6lld", frames_in);
  char buf[160];
  std::snprintf(buf, sizeof buf, "frame=%6lld%s fps=%6.1f speed=%5.2fx elapsed=%s eta=%s", frames_out, held, fps,
                speed, format_clock(t).c_str(), format_clock(eta).c_str());
  return buf;
}

void Progress::update(long long frames_in, long long frames_out, double media_seconds) {
  if (!show_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  const std::string line = progress_line(frames_in, frames_out, elapsed(), media_seconds, duration_, total_frames_);
  std::fprintf(stderr, "\r%s   ", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (drawn_) std::fputc('\n', stderr);
  drawn_ = false;
}

std::string format_clock(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  const long long total = static_cast<long long>(s + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return buf;
}

std::string sigma_text(const std::vector<double>& sigma) {
  std::string out;
  char buf[32];
  for (double v : sigma) {
    std::snprintf(buf, sizeof buf, "%.2f", v);
    out += (out.empty() ? "" : "/") + std::string(buf);
  }
  return out;
}

std::string noise_model_text(const Summary& s) {
  return tools::noise_models_text(s.noise_model, s.noise_models) + " (" + s.noise_model_source + ")";
}

std::string summary_json(const Summary& s) {
  tools::Json j;
  j["frames"] = s.frames, j["seconds"] = s.seconds, j["fps"] = s.fps();
  j["decode"] = s.decode, j["filter"] = s.filter, j["encode"] = s.encode;
  j["output"] = s.output.empty() ? tools::Json() : tools::Json(s.output);
  j["host_copies"] = s.host_copies, j["downloads"] = s.downloads;
  j["codec"] = s.codec, j["mode"] = s.mode, j["media_seconds"] = s.media_seconds;
  j["preset"] = s.preset, j["strength"] = s.strength;
  j["sigma"] = s.sigma.empty() ? tools::Json() : tools::Json(s.sigma);
  j["sigma_estimated"] = s.sigma_estimated;
  j["noise_model"] = s.noise_models.empty() ? tools::Json() : tools::Json(noise_model_name(s.noise_model));
  j["noise_model_source"] = s.noise_models.empty() ? tools::Json() : tools::Json(s.noise_model_source);
  j["noise_models"] = s.noise_models.empty() ? tools::Json() : tools::noise_models_json(s.noise_models);
  j["decode_errors"] = s.decode_errors;
  j["notes"] = s.notes;
  j["gpu"] = s.gpu.empty() ? tools::Json() : tools::Json(s.gpu);
  return tools::json_line(j);
}

std::string summary_text(const Summary& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%lld frames in %.2f s (%.1f fps, %.2fx real time)", s.frames, s.seconds, s.fps(),
                s.seconds > 0 ? s.media_seconds / s.seconds : 0.0);
  std::string out = buf;
  out += ": decode " + s.decode + ", filter " + s.filter + ", encode " + s.encode;
  out += s.output.empty() ? " (no output)" : " -> " + s.output;
  if (s.decode_errors > 0) out += " (" + std::to_string(s.decode_errors) + " decode errors)";
  if (!s.sigma.empty()) out += "; noise sigma " + sigma_text(s.sigma) + (s.sigma_estimated ? " (estimated)" : " (given)");
  if (!s.noise_models.empty()) out += "; noise model " + noise_model_text(s);
  return out;
}

}  // namespace cdn::transcode
