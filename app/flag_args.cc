#include "app/flag_args.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace headroom::app {
namespace {

bool IsFlag(const std::string& arg) { return absl::StartsWith(arg, "-") && arg != "-"; }

}  // namespace

std::vector<std::string> NormalizeFlagArgs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  bool only_positional = false;  // after "--"
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (only_positional || !IsFlag(arg)) {
      out.push_back(std::move(arg));
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      out.push_back(std::move(arg));
      continue;
    }
    const size_t name_start = arg.find_first_not_of('-');
    const size_t name_end = std::min(arg.find('='), arg.size());
    for (size_t c = name_start; c < name_end; ++c) {
      if (arg[c] == '-') arg[c] = '_';
    }
    if (name_end == arg.size() && i + 1 < args.size() && args[i + 1] == "-") {
      arg += "=-";
      ++i;
    }
    out.push_back(std::move(arg));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ConfigFileArgs(absl::string_view yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not YAML: ", e.what()));
  }
  std::vector<std::string> args;
  if (root.IsNull()) return args;  // an empty file sets nothing
  if (!root.IsMap()) return absl::InvalidArgumentError("expected a map of flag: value");
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (!entry.second.IsScalar()) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": expected a single value"));
    }
    if (key == "config") return absl::InvalidArgumentError("config: cannot nest config files");
    args.push_back(absl::StrCat("--", key, "=", entry.second.as<std::string>()));
  }
  return args;
}

std::string ConfigFlagValue(const std::vector<std::string>& args) {
  std::string value;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == "--config" || args[i] == "-config") {
      if (i + 1 < args.size()) value = args[i + 1];
    } else if (absl::StartsWith(args[i], "--config=") || absl::StartsWith(args[i], "-config=")) {
      value = args[i].substr(args[i].find('=') + 1);
    }
  }
  return value;
}

std::string FlagHelp(absl::string_view program, absl::string_view usage,
                     std::vector<FlagDoc> flags) {
  std::sort(flags.begin(), flags.end(),
            [](const FlagDoc& a, const FlagDoc& b) { return a.name < b.name; });
  std::string out = absl::StrCat(program, ": ", usage,
                                 "\n\nFlags (also as \"name: value\" lines of --config):\n");
  for (const FlagDoc& flag : flags) {
    absl::StrAppend(&out, "  --", absl::StrReplaceAll(flag.name, {{"_", "-"}}), "=",
                    flag.default_value.empty() ? "\"\"" : flag.default_value, "\n");
    // The help text, wrapped at 80 columns under the name.
    std::string line = "      ";
    for (absl::string_view word : absl::StrSplit(flag.help, ' ', absl::SkipEmpty())) {
      if (line.size() > 6 && line.size() + 1 + word.size() > 80) {
        absl::StrAppend(&out, line, "\n");
        line = "      ";
      }
      absl::StrAppend(&line, line.size() > 6 ? " " : "", word);
    }
    if (line.size() > 6) absl::StrAppend(&out, line, "\n");
  }
  return out;
}

void ParseDaemonFlags(int argc, char** argv, absl::string_view usage,
                      absl::string_view flag_source) {
  absl::SetProgramUsageMessage(usage);
  absl::FlagsUsageConfig config;
  const std::string source(flag_source);
  // Flags shared by several binaries live in app/.
  config.contains_help_flags = [source](absl::string_view file) {
    return absl::StrContains(file, source) || absl::StrContains(file, "app/");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
  // Flags may be written with dashes (--http-address) as in the docs.
  std::vector<std::string> command_line(argv + 1, argv + argc);
  for (const std::string& arg : command_line) {
    if (arg == "--") break;
    if (arg != "--help" && arg != "-help" && arg != "-h") continue;
    // --help lists this binary's flags as operators write them (dashes), without the build
    // machine's file names.
    std::vector<FlagDoc> flags;
    for (const auto& [name, flag] : absl::GetAllFlags()) {
      if (config.contains_help_flags(flag->Filename())) {
        flags.push_back({std::string(name), flag->DefaultValue(), flag->Help()});
      }
    }
    const std::string program(argv[0]);
    std::cout << FlagHelp(program.substr(program.rfind('/') + 1), usage, std::move(flags));
    std::exit(0);
  }
  std::vector<std::string> from_file;
  if (const std::string config = ConfigFlagValue(command_line); !config.empty()) {
    std::ifstream in(config);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<std::vector<std::string>> parsed =
        in ? ConfigFileArgs(text.str()) : absl::NotFoundError("cannot read it");
    if (!parsed.ok()) {
      std::cerr << argv[0] << ": --config " << config << ": " << parsed.status().message() << "\n";
      std::exit(2);
    }
    from_file = std::move(*parsed);
  }
  // The file first: for a flag given twice, the last value wins.
  from_file.insert(from_file.end(), command_line.begin(), command_line.end());
  std::vector<std::string> normalized = NormalizeFlagArgs(from_file);
  std::vector<char*> args = {argv[0]};
  for (std::string& arg : normalized) args.push_back(arg.data());
  absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
}

absl::StatusOr<HostPort> ParseHostPort(absl::string_view address, absl::string_view flag) {
  const size_t colon = address.rfind(':');
  HostPort out;
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(address.substr(colon + 1), &out.port) ||
      out.port < 0 || out.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " must be host:port, got \"", address, "\""));
  }
  out.host = std::string(address.substr(0, colon));
  return out;
}

}  // namespace headroom::app
