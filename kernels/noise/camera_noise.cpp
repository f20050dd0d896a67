// camera_noise.cpp: camera-model test noise (camera_noise.h): YCbCr to linear
// RGB, Poisson-Gaussian noise per channel, back through BT.709.
#include "cudadenoise/camera_noise.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

// BT.709 luma weights and the colour-difference scales.
constexpr double kR = 0.2126, kG = 0.7152, kB = 0.0722;
constexpr double kCb = 1.8556, kCr = 1.5748;

std::uint8_t to_code(double v) { return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

}  // namespace

CameraNoise camera_noise_for_shot(double shot) {
  if (!(shot > 0)) throw InvalidArgument("camera noise: shot must be positive");
  return {shot, std::exp(2.18 * std::log(shot) + 1.20)};
}

double bt709_oetf(double l) {
  l = std::clamp(l, 0.0, 1.0);
  return l < 0.018 ? 4.5 * l : 1.099 * std::pow(l, 0.45) - 0.099;
}

double bt709_inverse_oetf(double v) {
  v = std::clamp(v, 0.0, 1.0);
  return v < 0.081 ? v / 4.5 : std::pow((v + 0.099) / 1.099, 1.0 / 0.45);
}

void add_camera_noise(const FrameView& in, const FrameView& out, const CameraNoise& noise, std::uint64_t seed) {
  if (in.format != PixelFormat::I420 && in.format != PixelFormat::NV12 && in.format != PixelFormat::Y444)
    throw InvalidArgument(std::string("camera noise: ") + format_name(in.format) + ": I420, NV12 or Y444 only");
  if (out.format != in.format || out.width != in.width || out.height != in.height)
    throw InvalidArgument("camera noise: the output must have the input's format and size");
  if (in.memory != MemoryKind::Host || out.memory != MemoryKind::Host)
    throw InvalidArgument("camera noise: host frames only");
  if (noise.shot < 0 || noise.read < 0) throw InvalidArgument("camera noise: shot and read must not be negative");
  validate_frame(in);
  validate_frame(out);
  const std::vector<PlaneView> ci = components(in), co = components(out);
  const int w = in.width, h = in.height;
  const FormatInfo fi = format_info(in.format);
  const int sx = fi.chroma_shift_x, sy = fi.chroma_shift_y;
  // Full-resolution Y'CbCr out before subsampling (the input is read whole first,
  // so in == out is safe).
  std::vector<float> y(static_cast<std::size_t>(w) * h), cb(y.size()), cr(y.size());
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  for (int py = 0; py < h; ++py) {
    for (int px = 0; px < w; ++px) {
      const double yp = (ci[0].get(px, py) - 16.0) / 219.0;
      const double cbp = (ci[1].get(px >> sx, py >> sy) - 128.0) / 224.0;
      const double crp = (ci[2].get(px >> sx, py >> sy) - 128.0) / 224.0;
      double rgb[3] = {yp + kCr * crp, 0, yp + kCb * cbp};
      rgb[1] = (yp - kR * rgb[0] - kB * rgb[2]) / kG;
      for (double& c : rgb) {
        const double l = bt709_inverse_oetf(c);
        c = bt709_oetf(l + std::sqrt(noise.shot * l + noise.read) * z(rng));
      }
      const double yo = kR * rgb[0] + kG * rgb[1] + kB * rgb[2];
      const std::size_t i = static_cast<std::size_t>(py) * w + px;
      y[i] = static_cast<float>(16.0 + 219.0 * yo);
      cb[i] = static_cast<float>(128.0 + 224.0 * (rgb[2] - yo) / kCb);
      cr[i] = static_cast<float>(128.0 + 224.0 * (rgb[0] - yo) / kCr);
    }
  }
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) co[0].set(px, py, to_code(y[static_cast<std::size_t>(py) * w + px]));
  // Chroma: the mean of the full-resolution samples each chroma sample covers.
  for (int k = 1; k <= 2; ++k) {
    const std::vector<float>& c = k == 1 ? cb : cr;
    for (int qy = 0; qy < co[k].height; ++qy)
      for (int qx = 0; qx < co[k].width; ++qx) {
        double sum = 0;
        int n = 0;
        for (int dy = 0; dy < (1 << sy); ++dy)
          for (int dx = 0; dx < (1 << sx); ++dx) {
            const int fx = (qx << sx) + dx, fy = (qy << sy) + dy;
            if (fx >= w || fy >= h) continue;
            sum += c[static_cast<std::size_t>(fy) * w + fx];
            n++;
          }
        co[k].set(qx, qy, to_code(sum / n));
      }
  }
}

}  // namespace cdn
