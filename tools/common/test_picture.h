// test_picture.h: the built-in test picture of cudadenoise-image, made in code
// so a first run needs no download.
//
// An 8-bit RGB landscape: a smooth sky gradient with a soft sun, two ranges of
// hills with fine grass texture, rippled water, a house with a roof and windows
// (edges at several angles), three shaded balls and a sheet of text-like strokes.
// Edges are anti-aliased (3x3 supersampling), so it has the smooth areas, edges
// and fine detail of a photograph and none of its noise. Deterministic.
#pragma once

#include "image.h"

namespace cdn::tools {

Image make_test_picture(int width = 512, int height = 512);

}  // namespace cdn::tools
