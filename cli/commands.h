#pragma once

// The `headroom` subcommands: name, help text and the function that runs one with the parsed
// flags (cli_flags.cc), and the dispatch from the command line.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace headroom::cli {

inline constexpr char kVersion[] = "0.1.0";

struct Command {
  absl::string_view name;
  absl::string_view usage;
  // Runs the command with its positional arguments (at most `max_arguments`).
  int (*run)(const std::vector<std::string>& arguments);
  size_t max_arguments = 0;
};

// Every command, in the order of the overview.
const std::vector<Command>& Commands();

// `headroom <command> [flags]`: finds the command, answers --help and --version, rejects
// unknown flags and stray arguments (exit 2) and runs it.
int RunCli(int argc, char** argv);

}  // namespace headroom::cli
