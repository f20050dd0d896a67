// pipd_glrt.cpp: the host-side threshold table of the exact GLRT (pipd_glrt.h).
#include "pipd/pipd_glrt.h"

#include <cmath>

namespace cdn {

void make_glrt_table(double t, GlrtTable* table) {
  table->exp_t_over_n[0] = 0.0;  // unused: counts are at least 2
  for (int n = 1; n <= kMaxGlrtCount; ++n) table->exp_t_over_n[n] = std::exp(t / n);
}

}  // namespace cdn
