// commands.h: the subcommands of cudadenoise-eval (one file each) and what they
// share: parsing "WxH+X+Y" and frame lists, and the exit codes.
//
// Exit codes: 0 success, 2 bad arguments, 3 unreadable input, 4 CUDA error,
// 5 output not writable, 1 anything else.
#pragma once

#include <string>
#include <vector>

#include "frame_rgb.h"

namespace cdn::eval {

enum Exit { kOk = 0, kFailed = 1, kUsage = 2, kUnreadable = 3, kCuda = 4, kUnwritable = 5 };

int cmd_info(int argc, const char* const* argv);
int cmd_prepare(int argc, const char* const* argv);
int cmd_pan(int argc, const char* const* argv);
int cmd_denoise(int argc, const char* const* argv);
int cmd_measure(int argc, const char* const* argv);
int cmd_estimate(int argc, const char* const* argv);
int cmd_crop(int argc, const char* const* argv);

// "WxH+X+Y" (or "WxH" at 0,0); throws tools::UsageError naming `flag`.
Region parse_region(const std::string& flag, const std::string& text);
// "3,4,5", "2-6" or a mix ("0,4-6"); empty text gives an empty list (all frames).
std::vector<int> parse_frame_list(const std::string& flag, const std::string& text);

}  // namespace cdn::eval
