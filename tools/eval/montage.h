// montage.h: the crops figure of the report: the same region of the same frame
// from the clean input, the noisy input and every method, side by side, each
// with its label (name, PSNR), under a title, with an overview of the whole
// frame that marks the region, and footer lines (GPU, CPU, date).
#pragma once

#include <string>
#include <vector>

#include "image.h"
#include "raster.h"

namespace cdn::eval {

struct MontageTile {
  tools::Image rgb;                 // the crop, 8-bit RGB
  std::vector<std::string> labels;  // lines under the crop
};

struct MontageSpec {
  std::string title;
  std::vector<std::string> footer;
  tools::Image overview;  // optional (width 0: none): the whole frame, any size
  int region_x = 0, region_y = 0, region_w = 0, region_h = 0;  // the crop, in overview pixels
  std::vector<MontageTile> tiles;
  int columns = 4;
  int zoom = 1;  // each crop pixel drawn zoom x zoom
};

Canvas render_montage(const MontageSpec& spec);

// Nearest-neighbour resize of an RGB image to fit in max_w x max_h (keeping its
// aspect ratio); returns the scale used through *scale.
tools::Image fit_rgb(const tools::Image& rgb, int max_w, int max_h, double* scale);

}  // namespace cdn::eval
