// tool_run.h: runs a tool binary of the build end to end, as a shell would, and
// gives its exit code and what it wrote (stdout and stderr together): what the
// tests of the tools' command lines share.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace cdn_test {

struct ToolResult {
  int code;         // the exit status; -1 if the tool did not exit normally
  std::string out;  // stdout and stderr
};

// `tool` with `args` (shell words: the caller quotes paths).
inline ToolResult run_tool(const std::string& tool, const std::string& args) {
  const std::string cmd = "'" + tool + "' " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  ToolResult r{-1, ""};
  std::array<char, 4096> buf;
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace cdn_test
