// noise_sample_plan.cpp: the copies of the noise tracker's sampled bands and
// the host planes over them (noise_sample_plan.h).
#include "noise/noise_sample_plan.h"

#include <cstring>

#include "cudadenoise/error.h"

namespace cdn {

namespace {

bool same_sampling(const PatchSampling& a, const PatchSampling& b) {
  return a.band_first == b.band_first && a.band_step == b.band_step && a.bands == b.bands && a.x_first == b.x_first &&
         a.x_step == b.x_step;
}

}  // namespace

int component_plane(PixelFormat format, int c) {
  if (c == 0) return 0;
  return format_info(format).interleaved_uv ? 1 : c;
}

int staged_rows(const PatchSampling& ps) {
  if (ps.bands <= 0) return 0;
  return ps.band_step < kNoisePatch ? (ps.bands - 1) * ps.band_step + kNoisePatch : ps.bands * kNoisePatch;
}

SampleCopyPlan plan_sample_copy(const FrameView& f, const std::vector<PatchSampling>& sampling) {
  const FormatInfo fi = format_info(f.format);
  if (static_cast<int>(sampling.size()) != fi.components)
    throw InvalidArgument("noise samples: one sampling per component");
  SampleCopyPlan plan;
  plan.plane_offset.assign(fi.planes, 0);
  std::vector<int> first(fi.planes, -1);  // the component that decides a memory plane's rows
  for (int c = 0; c < fi.components; ++c) {
    const int p = component_plane(f.format, c);
    if (first[p] >= 0) {
      if (!same_sampling(sampling[first[p]], sampling[c]))
        throw InvalidArgument("noise samples: components of one memory plane need the same sampling");
      continue;
    }
    first[p] = c;
    const PatchSampling& ps = sampling[c];
    const std::size_t pitch = f.pitch[p];
    plan.plane_offset[p] = plan.bytes;
    plan.bytes += static_cast<std::size_t>(staged_rows(ps)) * pitch;
    if (ps.bands <= 0) continue;
    SampleCopy k;
    k.plane = p;
    k.source_offset = static_cast<std::size_t>(ps.band_first) * pitch;
    k.staged_offset = plan.plane_offset[p];
    const std::size_t row_bytes = plane_row_bytes(f.format, f.width, p);
    if (ps.band_step < kNoisePatch) {
      // Dense (a small plane, overlapping bands): its rows, as they are.
      k.source_pitch = k.staged_pitch = pitch;
      k.row_bytes = row_bytes;
      k.rows = staged_rows(ps);
    } else {
      // A "row" of the copy is a whole band: 7 rows, from the first byte of its
      // first row to the last byte of its last row's samples (nothing past the
      // plane's last row), bands band_step rows apart, stacked 7 rows apart.
      k.source_pitch = static_cast<std::size_t>(ps.band_step) * pitch;
      k.staged_pitch = static_cast<std::size_t>(kNoisePatch) * pitch;
      k.row_bytes = (kNoisePatch - 1) * pitch + row_bytes;
      k.rows = ps.bands;
    }
    plan.copies.push_back(k);
  }
  return plan;
}

StagedComponents staged_components(const FrameView& f, const std::vector<PatchSampling>& sampling,
                                   const SampleCopyPlan& plan, unsigned char* staging) {
  // The same frame layout over the staging buffer; each component's height is
  // its staged rows, read from row 0 (bands stacked every 7 rows; dense: as they are).
  FrameView h = f;
  h.memory = MemoryKind::Host;
  for (int p = 0; p < format_info(f.format).planes; ++p) h.data[p] = staging + plan.plane_offset[p];
  StagedComponents st;
  st.planes = components(h);
  st.sampling = sampling;
  for (std::size_t c = 0; c < st.planes.size(); ++c) {
    PatchSampling& ps = st.sampling[c];
    st.planes[c].height = staged_rows(ps);
    ps.band_first = 0;
    if (ps.band_step >= kNoisePatch) ps.band_step = kNoisePatch;
  }
  return st;
}

StagedComponents stage_host_samples(const FrameView& f, const std::vector<PatchSampling>& sampling,
                                    std::vector<unsigned char>& staging) {
  if (f.memory != MemoryKind::Host) throw InvalidArgument("stage_host_samples takes host frames");
  const SampleCopyPlan plan = plan_sample_copy(f, sampling);
  staging.resize(plan.bytes);
  for (const SampleCopy& k : plan.copies) {
    const unsigned char* from = static_cast<const unsigned char*>(f.data[k.plane]) + k.source_offset;
    unsigned char* to = staging.data() + k.staged_offset;
    for (int r = 0; r < k.rows; ++r) std::memcpy(to + r * k.staged_pitch, from + r * k.source_pitch, k.row_bytes);
  }
  return staged_components(f, sampling, plan, staging.data());
}

}  // namespace cdn
