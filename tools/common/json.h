// json.h: the tools' machine-readable output, one JSON object per line, through
// nlohmann-json (Debian's nlohmann-json3-dev).
//
// Json keeps keys in the order they were set. json_line() writes an object
// without spaces or a newline; doubles that are not finite (an infinite PSNR,
// a NaN SSIM) come out as null, since JSON has no inf or NaN, and bytes that
// are not UTF-8 (a file name) are replaced rather than thrown on.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cdn::tools {

using Json = nlohmann::ordered_json;

inline std::string json_line(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace cdn::tools
