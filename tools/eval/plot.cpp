// plot.cpp: the speed-against-quality scatter plot (plot.h).
#include "plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace cdn::eval {

namespace {

constexpr Rgb8 kBackground{255, 255, 255}, kInk{20, 20, 20}, kGrey{110, 110, 110}, kGrid{225, 225, 225};
constexpr Rgb8 kPalette[] = {{0, 114, 178}, {213, 94, 0}, {0, 158, 115}, {204, 121, 167},
                             {230, 159, 0}, {86, 180, 233}, {120, 120, 120}, {0, 0, 0}};

std::string format_tick(double v) {
  char buf[32];
  if (v >= 1) std::snprintf(buf, sizeof buf, "%g", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

struct Box {
  int x, y, w, h;
  bool overlaps(const Box& o) const { return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h; }
};

}  // namespace

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo)) throw std::invalid_argument("log axis needs 0 < lo <= hi");
  std::vector<double> t;
  for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= static_cast<int>(std::ceil(std::log10(hi))); ++e)
    t.push_back(std::pow(10.0, e));
  return t;
}

std::vector<double> linear_ticks(double lo, double hi, int max_ticks) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, max_ticks - 1);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = p;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  std::vector<double> t;
  for (double v = std::floor(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
  if (t.front() > lo) t.insert(t.begin(), t.front() - step);
  if (t.back() < hi) t.push_back(t.back() + step);
  return t;
}

Canvas render_plot(const PlotSpec& spec) {
  if (spec.points.empty()) throw std::invalid_argument("a plot needs points");
  double xlo = spec.points[0].x, xhi = xlo, ylo = spec.points[0].y, yhi = ylo;
  for (const PlotPoint& p : spec.points) {
    if (!(p.x > 0)) throw std::invalid_argument("plot x values must be positive (log axis): " + p.label);
    xlo = std::min(xlo, p.x), xhi = std::max(xhi, p.x), ylo = std::min(ylo, p.y), yhi = std::max(yhi, p.y);
  }
  for (const PlotLine& l : spec.hlines) ylo = std::min(ylo, l.y), yhi = std::max(yhi, l.y);
  const std::vector<double> xt = log_ticks(xlo / 1.5, xhi * 1.5);
  const std::vector<double> yt = linear_ticks(ylo - 0.5, yhi + 0.5, 8);
  const double lx0 = std::log10(xt.front()), lx1 = std::log10(xt.back());
  const double y0 = yt.front(), y1 = yt.back();

  std::vector<std::string> series;
  for (const PlotPoint& p : spec.points)
    if (std::find(series.begin(), series.end(), p.series) == series.end()) series.push_back(p.series);
  auto colour = [&](const std::string& s) {
    const auto i = std::find(series.begin(), series.end(), s) - series.begin();
    return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
  };

  const int th = text_height();
  const int top = 12 + text_height(2) + 6 + static_cast<int>(spec.subtitle.size()) * (th + 2) + 8 + th + 6;
  const int legend_h = th + 8;
  const int bottom = 40 + legend_h + static_cast<int>(spec.footer.size()) * (th + 2) + 8;
  const int left = 70, right = 30;
  int width = spec.width;
  for (const std::string& f : spec.footer) width = std::max(width, 24 + text_width(f));
  width = std::max(width, 24 + text_width(spec.title, 2));
  Canvas cv(width, spec.height, kBackground);
  const int pw = width - left - right, ph = spec.height - top - bottom;
  if (pw < 100 || ph < 100) throw std::invalid_argument("plot too small");
  auto px = [&](double x) { return left + static_cast<int>(std::lround((std::log10(x) - lx0) / (lx1 - lx0) * pw)); };
  auto py = [&](double y) { return top + ph - static_cast<int>(std::lround((y - y0) / (y1 - y0) * ph)); };

  int ty = 12;
  cv.text(12, ty, spec.title, kInk, 2);
  ty += text_height(2) + 6;
  for (const std::string& s : spec.subtitle) {
    cv.text(12, ty, s, kGrey);
    ty += th + 2;
  }
  // Grid and ticks: decades on x (with 2 and 5 between), nice steps on y.
  for (std::size_t i = 0; i < xt.size(); ++i) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = xt[i] * m;
      if (v > xt.back()) break;
      const int x = px(v);
      cv.line(x, top, x, top + ph, m == 1.0 ? Rgb8{200, 200, 200} : kGrid);
      const std::string s = format_tick(v);
      if (m == 1.0 || xt.size() <= 3) cv.text(x - text_width(s) / 2, top + ph + 6, s, kInk);
    }
  }
  for (double v : yt) {
    const int y = py(v);
    cv.line(left, y, left + pw, y, kGrid);
    const std::string s = format_tick(v);
    cv.text(left - 8 - text_width(s), y - th / 2, s, kInk);
  }
  cv.rect_outline(left, top, pw + 1, ph + 1, kInk);
  cv.text(left + pw / 2 - text_width(spec.xlabel) / 2, top + ph + 6 + th + 6, spec.xlabel, kInk);
  cv.text(12, top - th - 4, spec.ylabel, kInk);

  std::vector<Box> taken;
  for (const PlotLine& l : spec.hlines) {
    const int y = py(l.y);
    cv.dashed_line(left + 1, y, left + pw - 1, y, kGrey, 5);
    const Box b{left + 6, y - th - 2, text_width(l.label), th};
    cv.text(b.x, b.y, l.label, kGrey);
    taken.push_back(b);
  }
  for (const PlotPoint& p : spec.points) taken.push_back({px(p.x) - 5, py(p.y) - 5, 11, 11});
  for (const PlotPoint& p : spec.points) cv.dot(px(p.x), py(p.y), 4, colour(p.series));
  // Labels: the first free place among a few around the point, else below the last try.
  for (const PlotPoint& p : spec.points) {
    const int x = px(p.x), y = py(p.y), w = text_width(p.label);
    const Box tries[] = {{x + 8, y - th / 2, w, th},      {x - 8 - w, y - th / 2, w, th}, {x - w / 2, y - 8 - th, w, th},
                         {x - w / 2, y + 8, w, th},       {x + 8, y - th - 6, w, th},     {x + 8, y + 6, w, th},
                         {x - 8 - w, y - th - 6, w, th},  {x - 8 - w, y + 6, w, th}};
    Box chosen = tries[0];
    bool found = false;
    for (const Box& b : tries) {
      if (b.x < left + 2 || b.x + b.w > left + pw - 2 || b.y < top + 2 || b.y + b.h > top + ph - 2) continue;
      if (std::none_of(taken.begin(), taken.end(), [&](const Box& o) { return o.overlaps(b); })) {
        chosen = b;
        found = true;
        break;
      }
    }
    if (!found) {  // stack below, inside the plot
      chosen = {std::min(std::max(x + 8, left + 2), left + pw - 2 - w), y + 6, w, th};
      while (std::any_of(taken.begin(), taken.end(), [&](const Box& o) { return o.overlaps(chosen); }) &&
             chosen.y + th < top + ph - 2)
        chosen.y += th;
    }
    taken.push_back(chosen);
    cv.text(chosen.x, chosen.y, p.label, colour(p.series));
  }
  // Legend, then the footer.
  int lx = left, ly = top + ph + 6 + 2 * th + 14;
  for (const std::string& s : series) {
    cv.dot(lx + 4, ly + th / 2, 4, colour(s));
    lx = cv.text(lx + 12, ly, s, kInk) + 18;
  }
  int fy = spec.height - 8 - static_cast<int>(spec.footer.size()) * (th + 2);
  for (const std::string& f : spec.footer) {
    cv.text(12, fy, f, kGrey);
    fy += th + 2;
  }
  return cv;
}

}  // namespace cdn::eval
