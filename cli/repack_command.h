#pragma once

#include <ostream>
#include <string>

#include "absl/time/time.h"
#include "shared/repack_generator.h"

namespace headroom::cli {

struct RepackCommandOptions {
  std::string input;      // a file or "-"; empty with generate
  bool generate = false;  // solve a generated instance (seed 002's setup) instead
  RepackGeneratorConfig generator;
  std::string write_instance;  // also write the instance solved, as JSON
  absl::Duration timeout = absl::Seconds(5);
  uint64_t seed = 1;
  std::string output = "table";  // table or json
};

// `headroom repack`: reads a cluster (our instance JSON, or `kubectl get nodes,pods -A -o json`)
// or generates one, and prints the repacking plan. Changes nothing. Returns the exit code.
int RunRepack(const RepackCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace headroom::cli
