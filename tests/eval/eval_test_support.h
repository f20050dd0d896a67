// eval_test_support.h: helpers shared by the tests of tools/eval/.
#pragma once

#include "cudadenoise/frame.h"

namespace cdn::eval_test {

// Every sample of every component equal (frames of one format and size).
inline bool same(const FrameView& a, const FrameView& b) {
  const auto pa = components(a), pb = components(b);
  for (std::size_t c = 0; c < pa.size(); ++c)
    for (int y = 0; y < pa[c].height; ++y)
      for (int x = 0; x < pa[c].width; ++x)
        if (pa[c].get(x, y) != pb[c].get(x, y)) return false;
  return true;
}

}  // namespace cdn::eval_test
