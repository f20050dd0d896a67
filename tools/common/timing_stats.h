// timing_stats.h: the median of timing samples (the middle one, or the mean of
// the two middle ones), the one statistic the report gives for times.
#pragma once

#include <algorithm>
#include <vector>

namespace cdn::eval {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace cdn::eval
