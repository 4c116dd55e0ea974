#include "cli/commands.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "app/flag_args.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/usage_text.h"

namespace headroom::cli {
namespace {

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
      std::string shown(name);
      std::replace(shown.begin(), shown.end(), '_', '-');
      std::cerr << "headroom " << command << ": unknown flag --" << shown << " (see 'headroom "
                << command << " --help')\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int RunCli(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kTopUsage;
    return kExitBadInput;
  }
  const absl::string_view first = argv[1];
  if (IsHelp(first) || first == "help") {
    std::cout << kTopUsage;
    return kExitOk;
  }
  if (first == "--version" || first == "version") {
    std::cout << "headroom " << kVersion << "\n";
    return kExitOk;
  }
  const Command* command = nullptr;
  for (const Command& candidate : Commands()) {
    if (candidate.name == first) command = &candidate;
  }
  if (command == nullptr) {
    std::cerr << "headroom: unknown command \"" << first << "\"\n\n" << kTopUsage;
    return kExitBadInput;
  }
  std::vector<std::string> raw;
  for (int i = 2; i < argc; ++i) {
    if (IsHelp(argv[i])) {
      std::cout << command->usage;
      return kExitOk;
    }
    raw.emplace_back(argv[i]);
  }
  std::vector<std::string> joined = app::NormalizeFlagArgs(raw);
  std::vector<char*> args = {argv[0]};
  for (std::string& arg : joined) args.push_back(arg.data());
  if (!AllFlagsKnown(args, command->name)) return kExitBadInput;
  absl::SetProgramUsageMessage(std::string(command->usage));
  const std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  if (positional.size() > 1 + command->max_arguments) {
    std::cerr << "headroom " << command->name << ": unexpected argument \""
              << positional[1 + command->max_arguments] << "\" (see 'headroom " << command->name
              << " --help')\n";
    return kExitBadInput;
  }
  return command->run(std::vector<std::string>(positional.begin() + 1, positional.end()));
}

}  // namespace headroom::cli
