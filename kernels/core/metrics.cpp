// metrics.cpp: MSE, PSNR and SSIM (Wang et al. 2004) on host planes (metrics.h).
#include "cudadenoise/metrics.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

void check_pair(const PlaneView& a, const PlaneView& b) {
  if (a.memory != MemoryKind::Host || b.memory != MemoryKind::Host)
    throw InvalidArgument("metrics need host planes");
  if (!a.data || !b.data) throw InvalidArgument("metrics: plane has no data");
  if (a.width <= 0 || a.height <= 0) throw InvalidArgument("metrics: empty plane");
  if (a.width != b.width || a.height != b.height || a.bit_depth != b.bit_depth) {
    std::ostringstream m;
    m << "metrics: planes differ: " << a.width << "x" << a.height << " " << a.bit_depth << "-bit against "
      << b.width << "x" << b.height << " " << b.bit_depth << "-bit";
    throw InvalidArgument(m.str());
  }
}

double sum_squared_error(const PlaneView& a, const PlaneView& b) {
  double sum = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      const double d = double(a.get(x, y)) - double(b.get(x, y));
      sum += d * d;
    }
  return sum;
}

constexpr int kWindow = 11;
constexpr int kRadius = kWindow / 2;
constexpr double kSigma = 1.5;

// The 1D Gaussian; the 2D window is its outer product (also normalised to 1).
std::vector<double> gaussian_taps() {
  std::vector<double> g(kWindow);
  double sum = 0;
  for (int i = 0; i < kWindow; ++i) {
    const double d = i - kRadius;
    g[i] = std::exp(-d * d / (2 * kSigma * kSigma));
    sum += g[i];
  }
  for (double& v : g) v /= sum;
  return g;
}

// Gaussian-weighted local mean of `img` (w x h) for every window wholly inside it:
// a (w-10) x (h-10) result, computed separably (rows, then columns).
std::vector<double> local_mean(const std::vector<double>& img, int w, int h, const std::vector<double>& g) {
  const int ow = w - 2 * kRadius, oh = h - 2 * kRadius;
  std::vector<double> rows(static_cast<std::size_t>(ow) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < ow; ++x) {
      double s = 0;
      for (int k = 0; k < kWindow; ++k) s += g[k] * img[static_cast<std::size_t>(y) * w + x + k];
      rows[static_cast<std::size_t>(y) * ow + x] = s;
    }
  std::vector<double> out(static_cast<std::size_t>(ow) * oh);
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      double s = 0;
      for (int k = 0; k < kWindow; ++k) s += g[k] * rows[static_cast<std::size_t>(y + k) * ow + x];
      out[static_cast<std::size_t>(y) * ow + x] = s;
    }
  return out;
}

}  // namespace

double mse(const PlaneView& a, const PlaneView& b) {
  check_pair(a, b);
  return sum_squared_error(a, b) / (double(a.width) * double(a.height));
}

double psnr_from_mse(double mse_value, int peak) {
  if (mse_value <= 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(double(peak) * double(peak) / mse_value);
}

double psnr(const PlaneView& a, const PlaneView& b) { return psnr_from_mse(mse(a, b), a.max_value()); }

double ssim(const PlaneView& a, const PlaneView& b) {
  check_pair(a, b);
  const int w = a.width, h = a.height;
  if (w < kWindow || h < kWindow) return std::numeric_limits<double>::quiet_NaN();

  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<double> x(n), y(n), xx(n), yy(n), xy(n);
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * w + c;
      x[i] = a.get(c, r);
      y[i] = b.get(c, r);
      xx[i] = x[i] * x[i];
      yy[i] = y[i] * y[i];
      xy[i] = x[i] * y[i];
    }
  const std::vector<double> g = gaussian_taps();
  const std::vector<double> mu_x = local_mean(x, w, h, g), mu_y = local_mean(y, w, h, g);
  const std::vector<double> e_xx = local_mean(xx, w, h, g), e_yy = local_mean(yy, w, h, g);
  const std::vector<double> e_xy = local_mean(xy, w, h, g);

  const double L = a.max_value();
  const double c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L);
  double sum = 0;
  for (std::size_t i = 0; i < mu_x.size(); ++i) {
    const double mx = mu_x[i], my = mu_y[i];
    const double vx = e_xx[i] - mx * mx, vy = e_yy[i] - my * my, cov = e_xy[i] - mx * my;
    sum += ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
  }
  return sum / double(mu_x.size());
}

Quality quality(const std::vector<PlaneView>& a, const std::vector<PlaneView>& b) {
  if (a.size() != b.size() || a.empty()) throw InvalidArgument("metrics: component lists differ or are empty");
  double sse = 0, samples = 0, ssim_sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    check_pair(a[i], b[i]);
    if (a[i].bit_depth != a[0].bit_depth) throw InvalidArgument("metrics: components of different bit depths");
    const double count = double(a[i].width) * double(a[i].height);
    sse += sum_squared_error(a[i], b[i]);
    ssim_sum += ssim(a[i], b[i]) * count;
    samples += count;
  }
  Quality q;
  q.psnr = psnr_from_mse(sse / samples, a[0].max_value());
  q.ssim = ssim_sum / samples;
  return q;
}

Quality frame_quality(const FrameView& a, const FrameView& b) {
  if (a.format != b.format || a.width != b.width || a.height != b.height)
    throw InvalidArgument("metrics: frames differ in format or size");
  validate_frame(a);
  validate_frame(b);
  return quality(components(a), components(b));
}

}  // namespace cdn
