// plot.h: the speed-against-quality figure of the report: one labelled point
// per method, time per frame on a logarithmic x axis (ms), quality on a linear
// y axis (dB), a colour per series (cudadenoise GPU, CPU, FFmpeg, OpenCV, ...),
// horizontal reference lines (the noisy input), and footer lines.
#pragma once

#include <string>
#include <vector>

#include "raster.h"

namespace cdn::eval {

struct PlotPoint {
  std::string label;
  std::string series;
  double x = 0;  // > 0
  double y = 0;
};

struct PlotLine {
  double y = 0;
  std::string label;
};

struct PlotSpec {
  std::string title;
  std::vector<std::string> subtitle;
  std::vector<std::string> footer;
  std::string xlabel, ylabel;
  std::vector<PlotPoint> points;
  std::vector<PlotLine> hlines;
  int width = 960, height = 620;
};

// Throws std::invalid_argument without points or with x <= 0.
Canvas render_plot(const PlotSpec& spec);

// Axis helpers (exposed for tests): decades covering [lo, hi] (lo > 0) and
// "nice" linear ticks (step 1, 2 or 5 times a power of ten) covering [lo, hi].
std::vector<double> log_ticks(double lo, double hi);
std::vector<double> linear_ticks(double lo, double hi, int max_ticks);

}  // namespace cdn::eval
