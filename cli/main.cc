// headroom: the command-line tool. Parses flags and dispatches to a command; the work is
// done in the command files and the shared library.

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "cli/exit_codes.h"
#include "cli/optimize_node_command.h"
#include "cli/recommend_command.h"

ABSL_FLAG(std::string, input, "", "Input file, or - for standard input.");
ABSL_FLAG(bool, pretty, true, "Indent the JSON output (--nopretty for one line).");
ABSL_FLAG(std::string, format, "auto", "Input format: auto, csv or json.");
ABSL_FLAG(std::string, output, "table", "Output: table or json.");

namespace {

constexpr char kVersion[] = "0.1.0";

constexpr char kTopUsage[] =
    R"(headroom — pods request what they use and share one spike headroom per node.

Usage: headroom <command> [flags]

Commands:
  optimize-node   Size the pods of one node (base + shared headroom) and pick evictions.
  recommend       Show what headroom, VPA and Crane would request for containers' usage.

Run 'headroom <command> --help' for a command's flags. 'headroom --version' prints the
version. Exit codes: 0 success, 1 runtime failure (I/O), 2 bad flags or malformed input.
)";

constexpr char kOptimizeNodeUsage[] = R"(Usage: headroom optimize-node --input FILE|- [--nopretty]

Reads one node and its pods as JSON and prints the per-node optimisation (seed 000, phase 2)
as JSON: evictions with reasons, and each surviving container's CPU request (no CPU limit),
memory request and memory limit. The formats are in docs/optimize-node.md.

Flags:
  --input FILE|-   The node as JSON; - reads standard input. Required.
  --[no]pretty     Indent the JSON output (default: true).

Example:
  headroom optimize-node --input examples/node.json
)";

constexpr char kRecommendUsage[] =
    R"(Usage: headroom recommend --input FILE|- [--format auto|csv|json] [--output table|json]

Reads per-container usage samples and prints, for each container, what each policy would
request: headroom (seed 000: peak when alone, base + a share of one headroom on a node; the
memory limit is 2 x max(7-day max, memory at OOM); no CPU limit), VPA (target, bounds,
confidence) and Crane (P99 + 15%, OOM protection). Nothing is applied anywhere. Formats are
in docs/recommend.md.

Flags:
  --input FILE|-   Samples as CSV (container,timestamp,cpu,memory[,oom]) or JSON. Required.
  --format F       auto (default: JSON if it starts with { or [), csv or json.
  --output O       table (default) or json.

Example:
  headroom recommend --input examples/usage.csv
)";

struct Command {
  absl::string_view name;
  absl::string_view usage;
  int (*run)();
};

int RunOptimizeNode() {
  return headroom::cli::RunOptimizeNode(absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_pretty),
                                        std::cout, std::cerr);
}

int RunRecommend() {
  return headroom::cli::RunRecommend(absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_format),
                                     absl::GetFlag(FLAGS_output), std::cout, std::cerr);
}

constexpr Command kCommands[] = {
    {"optimize-node", kOptimizeNodeUsage, &RunOptimizeNode},
    {"recommend", kRecommendUsage, &RunRecommend},
};

bool IsHelp(absl::string_view arg) { return arg == "--help" || arg == "-h" || arg == "-help"; }

// Rejects flags that no command defines, with our exit code rather than the flags library's.
bool AllFlagsKnown(const std::vector<char*>& args, absl::string_view command) {
  for (size_t i = 1; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") break;
    if (!absl::StartsWith(arg, "-") || arg == "-") continue;
    arg.remove_prefix(absl::StartsWith(arg, "--") ? 2 : 1);
    const absl::string_view name = arg.substr(0, arg.find('='));
    const bool negated =
        absl::StartsWith(name, "no") && absl::FindCommandLineFlag(name.substr(2)) != nullptr;
    if (absl::FindCommandLineFlag(name) == nullptr && !negated) {
      std::cerr << "headroom " << command << ": unknown flag --" << name << " (see 'headroom "
                << command << " --help')\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kTopUsage;
    return headroom::cli::kExitBadInput;
  }
  const absl::string_view first = argv[1];
  if (IsHelp(first) || first == "help") {
    std::cout << kTopUsage;
    return headroom::cli::kExitOk;
  }
  if (first == "--version" || first == "version") {
    std::cout << "headroom " << kVersion << "\n";
    return headroom::cli::kExitOk;
  }
  const Command* command = nullptr;
  for (const Command& candidate : kCommands) {
    if (candidate.name == first) command = &candidate;
  }
  if (command == nullptr) {
    std::cerr << "headroom: unknown command \"" << first << "\"\n\n" << kTopUsage;
    return headroom::cli::kExitBadInput;
  }
  // "--input -" becomes "--input=-": the flags library takes a lone "-" for a typo.
  std::vector<std::string> joined;
  for (int i = 2; i < argc; ++i) {
    if (IsHelp(argv[i])) {
      std::cout << command->usage;
      return headroom::cli::kExitOk;
    }
    const absl::string_view arg = argv[i];
    if (absl::StartsWith(arg, "-") && arg != "-" && !absl::StrContains(arg, '=') && i + 1 < argc &&
        absl::string_view(argv[i + 1]) == "-") {
      joined.push_back(absl::StrCat(arg, "=-"));
      ++i;
    } else {
      joined.emplace_back(arg);
    }
  }
  std::vector<char*> args = {argv[0]};
  for (std::string& arg : joined) args.push_back(arg.data());
  if (!AllFlagsKnown(args, command->name)) return headroom::cli::kExitBadInput;
  absl::SetProgramUsageMessage(std::string(command->usage));
  const std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  if (positional.size() > 1) {
    std::cerr << "headroom " << command->name << ": unexpected argument \"" << positional[1]
              << "\" (see 'headroom " << command->name << " --help')\n";
    return headroom::cli::kExitBadInput;
  }
  return command->run();
}
