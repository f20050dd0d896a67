// array_frames.cpp: numpy arrays to library frames and back (array_frames.h).
#include "array_frames.h"

#include <cstring>
#include <string>

namespace py = pybind11;

namespace cdn::python {

namespace {

bool is_u8(const py::array& a) { return a.dtype().is(py::dtype::of<std::uint8_t>()); }
bool is_u16(const py::array& a) { return a.dtype().is(py::dtype::of<std::uint16_t>()); }

py::array as_array(const py::handle& h, const char* what) {
  if (!py::isinstance<py::array>(h))
    throw py::value_error(std::string(what) + " is not a numpy array, nor a GPU array (__cuda_array_interface__)");
  return py::reinterpret_borrow<py::array>(h);
}

[[noreturn]] void refuse(const std::string& why) {
  throw py::value_error("frame: " + why +
                        "; expected (H, W) uint8/uint16, (H, W, 3) or (3, H, W) uint8, (Y, UV) uint8/uint16 "
                        "or (Y, U, V) uint8 (docs/PYTHON.md)");
}

// A C-contiguous copy (or the array itself) of `a`, of element type T.
template <typename T>
py::array_t<T, py::array::c_style> contiguous(const py::array& a) {
  return py::array_t<T, py::array::c_style>::ensure(a);
}

// Rows of `a` (C-contiguous, `row_bytes` each) into plane `p` of `f`.
void copy_rows_in(const py::array& a, std::size_t row_bytes, int rows, const FrameView& f, int p) {
  const auto* src = static_cast<const std::uint8_t*>(a.data());
  for (int y = 0; y < rows; ++y)
    std::memcpy(static_cast<std::uint8_t*>(f.data[p]) + y * f.pitch[p], src + y * row_bytes, row_bytes);
}

void copy_rows_out(const FrameView& f, int p, std::size_t row_bytes, int rows, py::array& a) {
  auto* dst = static_cast<std::uint8_t*>(a.mutable_data());
  for (int y = 0; y < rows; ++y)
    std::memcpy(dst + y * row_bytes, static_cast<const std::uint8_t*>(f.data[p]) + y * f.pitch[p], row_bytes);
}

int shift_of(PixelFormat f) { return format_info(f).shift; }

}  // namespace

FrameShape shape_of(const std::vector<ArrayDesc>& arrays, bool sequence, int bit_depth) {
  using Type = ArrayDesc::Type;
  FrameShape s;
  if (sequence) {
    if (arrays.size() != 2 && arrays.size() != 3) refuse("a sequence of " + std::to_string(arrays.size()) + " planes");
    const ArrayDesc& y = arrays[0];
    if (y.shape.size() != 2) refuse("Y is not 2-dimensional");
    s.height = static_cast<int>(y.shape[0]);
    s.width = static_cast<int>(y.shape[1]);
    const int cw = (s.width + 1) / 2, ch = (s.height + 1) / 2;
    if (arrays.size() == 2) {
      const ArrayDesc& uv = arrays[1];
      if (uv.shape.size() != 3 || uv.shape[0] != ch || uv.shape[1] != cw || uv.shape[2] != 2)
        refuse("UV of shape other than (" + std::to_string(ch) + ", " + std::to_string(cw) + ", 2)");
      if (uv.type != y.type) refuse("Y and UV of different types");
      s.layout = Layout::SemiPlanar420;
      if (y.type == Type::U8) {
        s.format = PixelFormat::NV12;
      } else if (y.type == Type::U16 && (bit_depth == 10 || bit_depth == 16)) {
        s.format = bit_depth == 10 ? PixelFormat::P010_10LE : PixelFormat::P016_LE;
      } else {
        refuse(y.type == Type::U16 ? "uint16 4:2:0 needs bit_depth=10 (P010) or 16 (P016)"
                                   : "a type other than uint8 or uint16");
      }
    } else {
      for (int k = 1; k <= 2; ++k) {
        const ArrayDesc& c = arrays[k];
        if (c.shape.size() != 2 || c.shape[0] != ch || c.shape[1] != cw)
          refuse("U or V of shape other than (" + std::to_string(ch) + ", " + std::to_string(cw) + ")");
        if (c.type != Type::U8) refuse("U or V not uint8");
      }
      if (y.type != Type::U8) refuse("(Y, U, V) is uint8 only (I420); 16-bit 4:2:0 is (Y, UV)");
      s.layout = Layout::Planar420;
      s.format = PixelFormat::I420;
    }
    return s;
  }
  const ArrayDesc& a = arrays.at(0);
  if (a.shape.size() == 2) {
    s.layout = Layout::Gray;
    s.height = static_cast<int>(a.shape[0]);
    s.width = static_cast<int>(a.shape[1]);
    if (a.type == Type::U8)
      s.format = PixelFormat::GRAY8;
    else if (a.type == Type::U16 && (bit_depth == 16 || bit_depth == 0))
      s.format = PixelFormat::GRAY16_LE;
    else
      refuse(a.type == Type::U16 ? "uint16 gray is 16-bit only (bit_depth=16)" : "a type other than uint8 or uint16");
  } else if (a.shape.size() == 3 && (a.shape[2] == 3 || a.shape[0] == 3)) {
    if (a.type != Type::U8) refuse("4:4:4 is uint8 only (Y444)");
    s.format = PixelFormat::Y444;
    s.layout = a.shape[2] == 3 ? Layout::Interleaved444 : Layout::Planar444;
    s.height = static_cast<int>(s.layout == Layout::Interleaved444 ? a.shape[0] : a.shape[1]);
    s.width = static_cast<int>(s.layout == Layout::Interleaved444 ? a.shape[1] : a.shape[2]);
  } else {
    refuse("an array of " + std::to_string(a.shape.size()) + " dimensions");
  }
  if (s.width < 1 || s.height < 1) refuse("an empty frame");
  return s;
}

FrameShape frame_shape(const py::object& frame, int bit_depth) {
  const auto describe = [](const py::handle& h, const char* what) {
    const py::array a = as_array(h, what);
    ArrayDesc d;
    d.shape.assign(a.shape(), a.shape() + a.ndim());
    d.type = is_u8(a) ? ArrayDesc::Type::U8 : is_u16(a) ? ArrayDesc::Type::U16 : ArrayDesc::Type::Other;
    return d;
  };
  if (py::isinstance<py::tuple>(frame) || py::isinstance<py::list>(frame)) {
    const py::sequence planes = py::reinterpret_borrow<py::sequence>(frame);
    std::vector<ArrayDesc> arrays;
    const char* const names[] = {"Y", planes.size() == 2 ? "UV" : "U", "V"};
    for (std::size_t k = 0; k < planes.size() && k < 3; ++k) arrays.push_back(describe(planes[k], names[k]));
    if (planes.size() > 3) arrays.resize(planes.size());
    return shape_of(arrays, true, bit_depth);
  }
  return shape_of({describe(frame, "frame")}, false, bit_depth);
}

std::unique_ptr<HostFrame> to_host_frame(const py::object& frame, const FrameShape& s) {
  auto host = std::make_unique<HostFrame>(s.format, s.width, s.height);
  const FrameView& f = host->view();
  const int cw = (s.width + 1) / 2, ch = (s.height + 1) / 2;
  switch (s.layout) {
    case Layout::Gray:
      if (s.format == PixelFormat::GRAY8)
        copy_rows_in(contiguous<std::uint8_t>(as_array(frame, "frame")), s.width, s.height, f, 0);
      else
        copy_rows_in(contiguous<std::uint16_t>(as_array(frame, "frame")), 2 * s.width, s.height, f, 0);
      break;
    case Layout::Planar444: {
      const auto a = contiguous<std::uint8_t>(as_array(frame, "frame"));
      for (int p = 0; p < 3; ++p) {
        const py::array plane = a[py::int_(p)];
        copy_rows_in(contiguous<std::uint8_t>(plane), s.width, s.height, f, p);
      }
      break;
    }
    case Layout::Interleaved444: {
      const auto a = contiguous<std::uint8_t>(as_array(frame, "frame"));
      const auto* src = a.data();
      for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x)
          for (int p = 0; p < 3; ++p)
            static_cast<std::uint8_t*>(f.data[p])[y * f.pitch[p] + x] = src[(std::size_t(y) * s.width + x) * 3 + p];
      break;
    }
    case Layout::SemiPlanar420: {
      const py::sequence planes = py::reinterpret_borrow<py::sequence>(frame);
      if (s.format == PixelFormat::NV12) {
        copy_rows_in(contiguous<std::uint8_t>(as_array(planes[0], "Y")), s.width, s.height, f, 0);
        copy_rows_in(contiguous<std::uint8_t>(as_array(planes[1], "UV")), 2 * cw, ch, f, 1);
      } else {
        // Values in the low bits; P010 keeps them in the high 10 bits of each sample.
        const int shift = shift_of(s.format);
        for (int p = 0; p < 2; ++p) {
          const auto a = contiguous<std::uint16_t>(as_array(planes[p], p ? "UV" : "Y"));
          const int rows = p ? ch : s.height, cols = p ? 2 * cw : s.width;
          const int maxv = (1 << (16 - shift)) - 1;
          for (int y = 0; y < rows; ++y) {
            auto* row = reinterpret_cast<std::uint16_t*>(static_cast<std::uint8_t*>(f.data[p]) + y * f.pitch[p]);
            for (int x = 0; x < cols; ++x) {
              const int v = a.data()[std::size_t(y) * cols + x];
              if (v > maxv)
                throw py::value_error("frame: a sample of " + std::to_string(v) + " is above the " +
                                      std::to_string(16 - shift) + "-bit maximum " + std::to_string(maxv));
              row[x] = static_cast<std::uint16_t>(v << shift);
            }
          }
        }
      }
      break;
    }
    case Layout::Planar420: {
      const py::sequence planes = py::reinterpret_borrow<py::sequence>(frame);
      copy_rows_in(contiguous<std::uint8_t>(as_array(planes[0], "Y")), s.width, s.height, f, 0);
      copy_rows_in(contiguous<std::uint8_t>(as_array(planes[1], "U")), cw, ch, f, 1);
      copy_rows_in(contiguous<std::uint8_t>(as_array(planes[2], "V")), cw, ch, f, 2);
      break;
    }
  }
  return host;
}

// New arrays are array_t<T>: their strides come from sizeof(T). pybind11 2.10
// (Debian 12's) reads a dtype's item size at numpy 1's offset, which numpy 2
// moved: an array made from a dtype there gets zero strides (every sample the
// same memory).
py::object from_host_frame(const FrameView& f, const FrameShape& s) {
  const py::ssize_t w = s.width, h = s.height, cw = (s.width + 1) / 2, ch = (s.height + 1) / 2;
  switch (s.layout) {
    case Layout::Gray: {
      if (s.format == PixelFormat::GRAY8) {
        py::array_t<std::uint8_t> a({h, w});
        copy_rows_out(f, 0, w, s.height, a);
        return std::move(a);
      }
      py::array_t<std::uint16_t> a({h, w});
      copy_rows_out(f, 0, 2 * w, s.height, a);
      return std::move(a);
    }
    case Layout::Planar444: {
      py::array_t<std::uint8_t> a({py::ssize_t(3), h, w});
      auto* dst = static_cast<std::uint8_t*>(a.mutable_data());
      for (int p = 0; p < 3; ++p)
        for (int y = 0; y < s.height; ++y)
          std::memcpy(dst + (std::size_t(p) * h + y) * w, static_cast<const std::uint8_t*>(f.data[p]) + y * f.pitch[p], w);
      return std::move(a);
    }
    case Layout::Interleaved444: {
      py::array_t<std::uint8_t> a({h, w, py::ssize_t(3)});
      auto* dst = static_cast<std::uint8_t*>(a.mutable_data());
      for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x)
          for (int p = 0; p < 3; ++p)
            dst[(std::size_t(y) * w + x) * 3 + p] = static_cast<const std::uint8_t*>(f.data[p])[y * f.pitch[p] + x];
      return std::move(a);
    }
    case Layout::SemiPlanar420: {
      if (s.format == PixelFormat::NV12) {
        py::array_t<std::uint8_t> y({h, w}), uv({ch, cw, py::ssize_t(2)});
        copy_rows_out(f, 0, w, s.height, y);
        copy_rows_out(f, 1, 2 * cw, static_cast<int>(ch), uv);
        return py::make_tuple(y, uv);
      }
      const int shift = shift_of(s.format);
      py::array_t<std::uint16_t> y({h, w}), uv({ch, cw, py::ssize_t(2)});
      for (int p = 0; p < 2; ++p) {
        py::array& a = p ? uv : y;
        auto* dst = static_cast<std::uint16_t*>(a.mutable_data());
        const int rows = p ? static_cast<int>(ch) : s.height, cols = p ? static_cast<int>(2 * cw) : s.width;
        for (int r = 0; r < rows; ++r) {
          const auto* row = reinterpret_cast<const std::uint16_t*>(static_cast<const std::uint8_t*>(f.data[p]) + r * f.pitch[p]);
          for (int x = 0; x < cols; ++x) dst[std::size_t(r) * cols + x] = static_cast<std::uint16_t>(row[x] >> shift);
        }
      }
      return py::make_tuple(y, uv);
    }
    case Layout::Planar420: {
      py::array_t<std::uint8_t> y({h, w}), u({ch, cw}), v({ch, cw});
      copy_rows_out(f, 0, w, s.height, y);
      copy_rows_out(f, 1, cw, static_cast<int>(ch), u);
      copy_rows_out(f, 2, cw, static_cast<int>(ch), v);
      return py::make_tuple(y, u, v);
    }
  }
  throw py::value_error("frame: unknown layout");
}

}  // namespace cdn::python
