// Runs the real `headroom` binary as a user would: README example, shared test vectors in
// tests/testdata/optimize-node/, standard input, and bad input with its exit codes.

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/file_contents.h"

namespace {

using ::headroom::testing::FileContents;

using ::testing::HasSubstr;

struct CliRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr, in separate files joined here
  std::string err;
};

// Runs the CLI with `args` (shell words, quoted by the caller), `stdin_text` (if any) on
// standard input, and captures both output streams.
CliRun Headroom(const std::string& args, const std::string* stdin_text = nullptr) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string tag = absl::StrCat(
      ::getpid(), "-", ::testing::UnitTest::GetInstance()->current_test_info()->name());
  const std::filesystem::path out = dir / absl::StrCat("headroom-out-", tag);
  const std::filesystem::path err = dir / absl::StrCat("headroom-err-", tag);
  const std::filesystem::path in = dir / absl::StrCat("headroom-in-", tag);
  std::string input_redirect;
  if (stdin_text != nullptr) {
    std::ofstream(in) << *stdin_text;
    input_redirect = absl::StrCat(" <'", in.string(), "'");
  }
  const std::string command =
      absl::StrCat("cd '", HEADROOM_SOURCE_DIR, "' && '", HEADROOM_CLI_BINARY, "' ", args,
                   input_redirect, " >'", out.string(), "' 2>'", err.string(), "'");
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = FileContents(out);
  run.err = FileContents(err);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return run;
}

TEST(OptimizeNodeCliTest, ReadmeExampleRuns) {
  const CliRun run = Headroom("optimize-node --input examples/node.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out["node"], "worker-1");
  // The example is built to need exactly one eviction: the batch pod with the 2000Mi spike.
  ASSERT_EQ(out["evictions"].size(), 1u);
  EXPECT_EQ(out["evictions"][0]["pod"], "batch/report-builder-28f9c-ktl8w");
  EXPECT_EQ(out["evictions"][0]["resource"], "memory");
  EXPECT_EQ(out["skipped"].size(), 2u);
  for (const auto& container : out["containers"]) {
    EXPECT_TRUE(container["cpuLimitMillis"].is_null());
    EXPECT_GE(container["memoryLimitBytes"].get<int64_t>(),
              container["memoryRequestBytes"].get<int64_t>());
  }
}

TEST(OptimizeNodeCliTest, SharedVectorsMatchTheirExpectedOutput) {
  const std::filesystem::path dir =
      std::filesystem::path(HEADROOM_SOURCE_DIR) / "tests/testdata/optimize-node";
  int vectors = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 11 || name.substr(name.size() - 11) != ".input.json") continue;
    const std::string stem = name.substr(0, name.size() - 11);
    const CliRun run = Headroom(
        absl::StrCat("optimize-node --nopretty --input tests/testdata/optimize-node/", name));
    ASSERT_EQ(run.exit_code, 0) << stem << ": " << run.err;
    const nlohmann::json expected =
        nlohmann::json::parse(FileContents(dir / absl::StrCat(stem, ".expected.json")));
    const nlohmann::json actual = nlohmann::json::parse(run.out);
    // The expected files pin decisions and numbers; reason texts are free to improve.
    for (const char* field : {"node", "containers"}) {
      if (expected.contains(field)) {
        EXPECT_EQ(actual[field].dump(2), expected[field].dump(2)) << stem << " " << field;
      }
    }
    ASSERT_EQ(actual["evictions"].size(), expected["evictions"].size()) << stem;
    for (size_t i = 0; i < expected["evictions"].size(); ++i) {
      EXPECT_EQ(actual["evictions"][i]["pod"], expected["evictions"][i]["pod"]) << stem;
      EXPECT_EQ(actual["evictions"][i]["resource"], expected["evictions"][i]["resource"]) << stem;
    }
    const nlohmann::json no_shortfalls = nlohmann::json::array();
    const nlohmann::json& want_shortfalls =
        expected.contains("shortfalls") ? expected["shortfalls"] : no_shortfalls;
    ASSERT_EQ(actual["shortfalls"].size(), want_shortfalls.size()) << stem;
    for (size_t i = 0; i < want_shortfalls.size(); ++i) {
      EXPECT_EQ(actual["shortfalls"][i]["resource"], want_shortfalls[i]["resource"]) << stem;
      EXPECT_EQ(actual["shortfalls"][i]["code"], want_shortfalls[i]["code"]) << stem;
    }
    ++vectors;
  }
  EXPECT_GE(vectors, 3);
}

TEST(OptimizeNodeCliTest, ReadsStandardInput) {
  const CliRun run = Headroom("optimize-node --input - < examples/node.json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("worker-1"));
  EXPECT_EQ(run.err, "");
}

TEST(OptimizeNodeCliTest, MalformedInputExitsTwoNamingTheField) {
  const std::string input = R"({"node":{"name":"n","allocatable":{"cpu":"four","memory":"1Gi"}}})";
  const CliRun run = Headroom("optimize-node --input -", &input);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("node.allocatable.cpu"));
  EXPECT_EQ(run.out, "");
}

TEST(OptimizeNodeCliTest, TruncatedJsonExitsTwo) {
  const std::string input = "{\"node\": {";
  const CliRun run = Headroom("optimize-node --input -", &input);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("not valid JSON"));
}

TEST(OptimizeNodeCliTest, UsageErrors) {
  EXPECT_EQ(Headroom("optimize-node").exit_code, 2);
  EXPECT_EQ(Headroom("optimize-node --input examples/node.json --frobnicate").exit_code, 2);
  EXPECT_EQ(Headroom("no-such-command").exit_code, 2);
  EXPECT_EQ(Headroom("").exit_code, 2);
  const CliRun missing = Headroom("optimize-node --input does/not/exist.json");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("does/not/exist.json"));
}

TEST(RecommendCliTest, ReadmeExampleShowsEveryPolicy) {
  const CliRun run = Headroom("recommend --input examples/usage.csv --output json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json out = nlohmann::json::parse(run.out);
  ASSERT_EQ(out["containers"].size(), 2u);
  for (const auto& container : out["containers"]) {
    for (const char* policy : {"headroom", "vpa", "crane"}) {
      EXPECT_FALSE(container["policies"][policy].contains("error"))
          << container["container"] << " " << policy;
    }
  }
  // The worker was OOM-killed at 1.5 GiB: its memory limit is 2 x 1.5 GiB.
  const nlohmann::json& worker = out["containers"][1];
  EXPECT_EQ(worker["container"], "worker");
  EXPECT_EQ(worker["policies"]["headroom"]["memoryLimitBytes"], 3LL << 30);
  EXPECT_EQ(worker["policies"]["crane"]["oomProtected"], true);
  const CliRun table = Headroom("recommend --input examples/usage.csv");
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_THAT(table.out, HasSubstr("CONTAINER  POLICY"));
}

TEST(RecommendCliTest, BadInputAndFlags) {
  const std::string bad = "container,timestamp,cpu,memory\na,1,1,1GB\n";
  const CliRun run = Headroom("recommend --input -", &bad);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("memory"));
  EXPECT_EQ(Headroom("recommend --input examples/usage.csv --output yaml").exit_code, 2);
  EXPECT_EQ(Headroom("recommend --input examples/usage.csv --format xml").exit_code, 2);
  EXPECT_EQ(Headroom("recommend").exit_code, 2);
}

TEST(SimulateCliTest, ASmallRunWritesTheTableJsonAndChart) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrCat("headroom-sim-", ::getpid());
  const CliRun run = Headroom(absl::StrCat(
      "simulate --pods 16 --duration 4h --warmup 1h --seed 5 --progress never --output-dir '",
      dir.string(), "'"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* policy : {"static", "vpa", "crane", "headroom"}) {
    EXPECT_THAT(run.out, HasSubstr(policy));
  }
  EXPECT_THAT(run.out, HasSubstr("Against static"));
  const nlohmann::json summary = nlohmann::json::parse(FileContents(dir / "summary.json"));
  EXPECT_EQ(summary["pods"], 16);
  EXPECT_EQ(summary["minutes"], 240);
  ASSERT_EQ(summary["policies"].size(), 4u);
  EXPECT_EQ(summary["policies"][0]["series"].size(), 16u);  // every 15 minutes
  EXPECT_THAT(FileContents(dir / "chart.svg"), HasSubstr("</svg>"));
  // The same seed gives the same numbers.
  const CliRun again = Headroom(absl::StrCat(
      "simulate --pods 16 --duration 4h --warmup 1h --seed 5 --progress never --output-dir '",
      dir.string(), "'"));
  const nlohmann::json second = nlohmann::json::parse(FileContents(dir / "summary.json"));
  EXPECT_EQ(summary["policies"].dump(), second["policies"].dump());
  std::filesystem::remove_all(dir);
}

TEST(SimulateCliTest, BadFlagsExitTwo) {
  EXPECT_EQ(Headroom("simulate --duration 10m").exit_code, 2);
  EXPECT_EQ(Headroom("simulate --policies static,magic").exit_code, 2);
  EXPECT_EQ(Headroom("simulate --node-shape 4").exit_code, 2);
  const CliRun small = Headroom("simulate --node-shape 2,4Gi --pods 3 --duration 2h --warmup 1h");
  EXPECT_EQ(small.exit_code, 2);
  EXPECT_THAT(small.err, HasSubstr("larger than a node"));
  const CliRun typo = Headroom(R"(simulate --pod-annotations '{"headroom.dev/min-cpus":"1"}')");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("did you mean headroom.dev/min-cpu?"));
  EXPECT_EQ(Headroom(R"(simulate --pod-annotations '["x"]')").exit_code, 2);
  EXPECT_EQ(
      Headroom(R"(simulate --pod-annotations '{"headroom.dev/cpu-margin":"lots"}')").exit_code, 2);
  const CliRun missing = Headroom("simulate --pod-list /does/not/exist.csv");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("/does/not/exist.csv"));
}

TEST(OptimizeNodeCliTest, HelpIsAvailableAndSucceeds) {
  const CliRun top = Headroom("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.out, HasSubstr("optimize-node"));
  const CliRun command = Headroom("optimize-node --help");
  EXPECT_EQ(command.exit_code, 0);
  EXPECT_THAT(command.out, HasSubstr("--input FILE|-"));
}

}  // namespace
