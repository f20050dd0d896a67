// chunk_scheduler.h: the bookkeeping of the temporal window (temporal_stream.h),
// shared by the CPU and CUDA backends: which frames can be filtered, in which
// chunk, and which input frames are still needed, for a window of `before`
// frames before and `after` frames after each output frame (window_filter.h).
#pragma once

#include <algorithm>

#include "stream/window_filter.h"

namespace cdn {

class ChunkScheduler {
 public:
  explicit ChunkScheduler(const WindowShape& w) : chunk_(w.chunk), before_(w.before), after_(w.after) {}

  void pushed() { ++pushed_; }
  void finish() { finished_ = true; }
  void reset() { pushed_ = computed_ = 0; finished_ = false; }

  int pushed_count() const { return pushed_; }
  int computed_count() const { return computed_; }
  bool finished() const { return finished_; }
  // Frames that exist as far as filtering is concerned: all pushed frames. Before
  // the end, every frame a chunk reads is below this, so clamping never applies.
  int stream_length() const { return pushed_; }

  // Frame t can be filtered once t + after has been pushed, or at the end.
  int filterable() const { return finished_ ? pushed_ : std::max(0, pushed_ - after_); }

  // The next chunk [begin, end), when a full chunk is filterable, or at the end
  // whatever is left.
  bool next_chunk(int* begin, int* end) const {
    const int ready = filterable() - computed_;
    if (ready <= 0 || (ready < chunk_ && !finished_)) return false;
    *begin = computed_;
    *end = computed_ + std::min(ready, chunk_);
    return true;
  }
  void computed(int end) { computed_ = end; }

  // Input frames a chunk [begin, end) reads.
  int window_begin(int begin) const { return std::max(0, begin - before_); }
  int window_end(int end) const { return std::min(pushed_, end + after_); }
  // The lowest input frame any later chunk can read.
  int oldest_needed() const { return window_begin(computed_); }

 private:
  int chunk_, before_, after_;
  int pushed_ = 0, computed_ = 0;
  bool finished_ = false;
};

}  // namespace cdn
