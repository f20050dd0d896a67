// test_bench_arguments.cpp: cudadenoise-bench's argument errors name the flag
// and exit 2, as the other tools' do (issue 33, item 10); --help exits 0 and
// lists the exit codes; --no-cpu without a CUDA device is exit 6 with the
// other tools' words.
#include <gtest/gtest.h>

#include <string>

#include "cudadenoise/backend.h"
#include "tool_run.h"

#ifndef CDN_BENCH_TOOL
#error "CDN_BENCH_TOOL must name the cudadenoise-bench binary"
#endif

namespace {

using Result = cdn_test::ToolResult;

Result run(const std::string& args) { return cdn_test::run_tool(CDN_BENCH_TOOL, args); }

TEST(BenchArguments, ErrorsNameTheFlag) {
  const struct {
    const char* args;
    const char* says;
  } cases[] = {
      {"--nosuch", "unknown flag --nosuch"},
      {"--iterations 0", "--iterations needs a whole number of 1 or more"},
      {"--size", "--size needs WIDTHxHEIGHT"},
      {"--size 12", "--size needs WIDTHxHEIGHT"},
      {"--data", "--data needs a value"},
      // Numbers are read whole: atoi took "3x" as 3 and sscanf "12x12junk" as 12x12.
      {"--iterations 3x", "--iterations needs a whole number of 1 or more"},
      {"--nlm-frames 2.5", "--nlm-frames needs a whole number of 1 or more"},
      {"--size 12x12junk", "--size needs WIDTHxHEIGHT"},
      {"--no-cpu --no-gpu", "--no-cpu and --no-gpu leave nothing to measure"},
      {"--streams 8,x", "--streams needs whole numbers of 1 or more, with commas between"},
      {"--streams-only 0", "--streams-only needs whole numbers of 1 or more, with commas between"},
      {"--streams-presets standard,nosuch", "--streams-presets: no preset nosuch"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(see --help)"), std::string::npos) << r.out;
  }
  const Result help = run("--help");
  EXPECT_EQ(help.code, 0);
  for (const char* code : {"0 success", "2 bad arguments", "6 no CUDA device"})
    EXPECT_NE(help.out.find(code), std::string::npos) << code << "\n" << help.out;
}

// Without a device, --no-cpu (only the GPU rows) printed empty tables and exited 0.
TEST(BenchArguments, NoCpuWithoutCudaDeviceIsTheOtherToolsNoDeviceError) {
  if (cdn::cuda_available()) GTEST_SKIP() << "a CUDA device is here: --no-cpu would measure it";
  const Result r = run("--no-cpu --no-pipd --no-nlm --no-bm3d --no-vbm3d --no-presets");
  EXPECT_EQ(r.code, 6) << r.out;
  EXPECT_NE(r.out.find("cudadenoise-bench: --no-cpu: no CUDA device"), std::string::npos) << r.out;
}

}  // namespace
