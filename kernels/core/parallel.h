// parallel.h: a minimal parallel-for over rows for the CPU reference.
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

namespace cdn {

// Calls body(y) for y in [0, rows) on up to `threads` threads (<= 0: all hardware
// threads), in contiguous bands. body must only write rows it is given.
template <typename Body>
void parallel_rows(int rows, int threads, Body body) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min(threads, rows));
  if (threads == 1) {
    for (int y = 0; y < rows; ++y) body(y);
    return;
  }
  std::vector<std::thread> pool;
  const int band = (rows + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int y0 = t * band, y1 = std::min(rows, y0 + band);
    if (y0 >= y1) break;
    pool.emplace_back([=] {
      for (int y = y0; y < y1; ++y) body(y);
    });
  }
  for (auto& th : pool) th.join();
}

}  // namespace cdn
