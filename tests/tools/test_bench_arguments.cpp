// test_bench_arguments.cpp: cudadenoise-bench's argument errors name the flag
// and exit 2, as the other tools' do (issue 33, item 10); --help exits 0.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#ifndef CDN_BENCH_TOOL
#error "CDN_BENCH_TOOL must name the cudadenoise-bench binary"
#endif

namespace {

struct Result {
  int code;
  std::string out;
};

Result run(const std::string& args) {
  const std::string cmd = std::string("'") + CDN_BENCH_TOOL + "' " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  Result r{-1, ""};
  std::array<char, 4096> buf;
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

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
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(see --help)"), std::string::npos) << r.out;
  }
  EXPECT_EQ(run("--help").code, 0);
}

}  // namespace
