// stabilizing_tables.cpp: the tables of a variance-stabilising transform and
// their use on host frames (stabilizing_tables.h).
#include "noise/stabilizing_tables.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "cudadenoise/error.h"
#include "cudadenoise/variance_stabilization.h"

namespace cdn {

namespace {

int component_plane(PixelFormat format, int c) {
  if (c == 0) return 0;
  return format_info(format).planes == 2 ? 1 : c;
}

// The tables of one component from its transform f (8-bit code values to the
// unit-variance domain) and f's inverse.
ComponentTables tables_of(const std::function<double(double)>& f, const std::function<double(double)>& f_inverse,
                          int depth) {
  const double scale = std::ldexp(1.0, depth - 8);
  const int max_code = (1 << depth) - 1;
  const double t0 = f(0.0), t1 = f(255.0);
  if (!(t1 > t0)) throw InvalidArgument("noise model: its transform does not increase over 0..255");
  const double k = max_code / (t1 - t0);  // stabilised code values per unit of noise std
  ComponentTables t;
  t.identity = false;
  t.sigma = k / scale;
  t.forward.resize(max_code + 1);
  t.inverse.resize(max_code + 1);
  auto code = [max_code](double v) {
    return static_cast<std::uint16_t>(std::clamp(std::lround(v), 0L, static_cast<long>(max_code)));
  };
  for (int x = 0; x <= max_code; ++x) t.forward[x] = code((f(x / scale) - t0) * k);
  for (int d = 0; d <= max_code; ++d) t.inverse[d] = code(f_inverse(t0 + d / k) * scale);
  return t;
}

ComponentTables identity_with_sigma(double sigma) {
  ComponentTables t;
  t.sigma = sigma;
  return t;
}

ComponentTables component_tables(NoiseModelKind kind, const NoiseModel& m, int depth) {
  if (kind == NoiseModelKind::Signal) {
    if (!(m.a > 0)) return identity_with_sigma(m.sigma_affine(0));  // AWGN: affine, nothing to stabilise
    const AnscombeTransform gat{m.a, m.b};
    return tables_of([&](double x) { return gat.forward(x); }, [&](double d) { return gat.inverse(d); }, depth);
  }
  if (kind == NoiseModelKind::Curve) {
    double lo = 1e300, hi = 0;
    for (int x = 0; x <= 255; ++x) {
      const double s = m.sigma_curve(x);
      lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
    if (hi < lo * kFlatCurveRatio) return identity_with_sigma(std::sqrt(lo * hi));
    const CurveTransform ct([&](double x) { return m.sigma_curve(x); }, 255.0);
    return tables_of([&](double x) { return ct.forward(x); }, [&](double t) { return ct.inverse(t); }, depth);
  }
  throw InvalidArgument("noise model: the constant model has no stabilising transform");
}

// Looks every sample of `in` up in each component's table into `out`.
void apply_host(const std::vector<ComponentTables>& tables, const FrameView& in, const FrameView& out, bool inverse) {
  validate_frame(in);
  validate_frame(out);
  if (in.memory != MemoryKind::Host || out.memory != MemoryKind::Host)
    throw InvalidArgument("stabilizing tables: host frames expected");
  const std::vector<PlaneView> from = components(in), to = components(out);
  for (std::size_t c = 0; c < from.size(); ++c) {
    const ComponentTables& t = tables[c];
    const std::vector<std::uint16_t>* table = t.identity ? nullptr : (inverse ? &t.inverse : &t.forward);
    if (!table && in.data[0] == out.data[0]) continue;
    for (int y = 0; y < from[c].height; ++y)
      for (int x = 0; x < from[c].width; ++x) {
        const int v = from[c].get(x, y);
        to[c].set(x, y, table ? (*table)[v] : v);
      }
  }
}

}  // namespace

std::vector<bool> filtered_components(PixelFormat format, PlaneSelection planes) {
  std::vector<bool> out;
  for (int c = 0; c < format_info(format).components; ++c)
    out.push_back(component_plane(format, c) == 0 || planes == PlaneSelection::All);
  return out;
}

StabilizingTables::StabilizingTables(PixelFormat format, NoiseModelKind kind, const std::vector<NoiseModel>& models,
                                     const std::vector<bool>& filtered)
    : format_(format) {
  const int n = format_info(format).components;
  if (static_cast<int>(models.size()) != n || static_cast<int>(filtered.size()) != n)
    throw InvalidArgument(std::string("noise model: ") + std::to_string(models.size()) + " component models for " +
                          format_name(format) + ", which has " + std::to_string(n));
  const int depth = format_info(format).bit_depth;
  for (int c = 0; c < n; ++c)
    components_.push_back(filtered[c] ? component_tables(kind, models[c], depth) : identity_with_sigma(0));
}



bool StabilizingTables::identity() const {
  for (const ComponentTables& t : components_)
    if (!t.identity) return false;
  return true;
}

std::vector<double> StabilizingTables::sigma() const {
  std::vector<double> out;
  for (const ComponentTables& t : components_) out.push_back(t.sigma);
  return out;
}

void StabilizingTables::forward_host(const FrameView& in, const FrameView& out) const {
  apply_host(components_, in, out, false);
}
void StabilizingTables::inverse_host(const FrameView& in, const FrameView& out) const {
  apply_host(components_, in, out, true);
}
void StabilizingTables::forward_device(const FrameView& in, const FrameView& out, void* stream) const {
  apply_device(in, out, false, stream);
}
void StabilizingTables::inverse_device(const FrameView& in, const FrameView& out, void* stream) const {
  apply_device(in, out, true, stream);
}

StabilizingTables::~StabilizingTables() = default;

#ifndef CDN_HAVE_CUDA
struct StabilizingTables::Device {};
void StabilizingTables::apply_device(const FrameView&, const FrameView&, bool, void*) const {
  throw Error("stabilizing tables: frames in device memory need a build with CUDA");
}
#endif

}  // namespace cdn
